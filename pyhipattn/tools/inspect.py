"""``pyhipattn inspect``: what code objects contain, as tables for people or JSON for scripts.

    inspect_paths(["kernels/co"])             -> text, one table per kernel
    inspect_paths(["a.co"], json=True)        -> JSON list of kernel records (keys: RECORD_KEYS)
    main_inspect(["--json", "a.co", "dir/"])  -> exit status, prints to stdout

Directories are walked; files named *.co, *.hsaco, *.cubin, *.o, *.bin are read, and any
other file whose first bytes look like ELF or an offload bundle.

Resources against the arch's limits (``resources=True``, always in the CLI): each record gains
``limits`` (:func:`pyhipattn.codeobj.limits.resource_usage`: VGPR / AGPR / LDS / scratch /
spills, or registers / shared / local on NVIDIA, each ``{"used", "limit"}``, plus
``problems``).  Matrix instructions (``isa=True``): ``matrix_instructions`` (mnemonic ->
count, from llvm-objdump-22 / cuobjdump) and ``isa_note`` (why there are none: not
disassembled, or the disassembler is missing; never an error).  Disassembly costs about 25 ms
per object, so the CLI does it by default only for up to ISA_AUTO_FILES files (``--isa`` /
``--no-isa`` decide); reading metadata stays fast for the 2,501 AITER objects.
"""

from __future__ import annotations

import argparse
import json as _json
import os
import sys
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Iterator

from ..codeobj import is_code_object, read
from ..codeobj.isa import ToolNotFoundError, mnemonics_of
from ..codeobj.limits import matrix_counts, resource_usage
from ..codeobj.model import CodeObject, KernelInfo
from ..errors import CodeObjectError

CODE_OBJECT_SUFFIXES = (".co", ".hsaco", ".cubin", ".o", ".bin")
STRICT_SUFFIXES = (".co", ".hsaco", ".cubin")

#: Keys of every JSON record, in order; values a format does not carry are null.
RECORD_KEYS = (
    "file", "entry", "platform", "arch", "name", "symbol", "kernarg_size", "kernarg_align",
    "args", "shared_bytes", "scratch_bytes", "vgpr_count", "sgpr_count", "agpr_count",
    "registers", "vgpr_spill_count", "sgpr_spill_count", "wavefront_size",
    "max_workgroup_size", "reqd_workgroup_size",
)
#: Keys records gain with ``resources=True`` (after RECORD_KEYS).
RESOURCE_KEYS = ("limits", "matrix_instructions", "isa_note")
#: The CLI disassembles by default when it finds at most this many code-object files.
ISA_AUTO_FILES = 16


def iter_code_object_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[str, bool]]:
    """``(file, strict)`` for the files named by ``paths``, directories walked in sorted order.

    A file named explicitly is always yielded, strict.  Inside directories a file is yielded
    when its suffix is a code-object suffix or its first bytes are ELF / offload-bundle
    magic; it is strict (a parse failure is an error) only for ``.co``, ``.hsaco``, ``.cubin``,
    since ``.o`` / ``.bin`` / unnamed ELF files may be host objects.
    """
    for p in paths:
        p = os.fspath(p)
        if not os.path.isdir(p):
            yield p, True
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith(CODE_OBJECT_SUFFIXES) or _looks_like_code_object(full):
                    yield full, name.endswith(STRICT_SUFFIXES)


def _looks_like_code_object(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return is_code_object(f.read(32))
    except OSError:
        return False


def kernel_record(co: CodeObject, kernel: KernelInfo) -> dict:
    """One kernel as a JSON-ready dict with keys :data:`RECORD_KEYS`."""
    file, _, entry = co.source.partition("#")
    return {
        "file": file,
        "entry": entry or None,
        "platform": co.platform,
        "arch": kernel.arch,
        "name": kernel.name,
        "symbol": kernel.symbol,
        "kernarg_size": kernel.kernarg_size,
        "kernarg_align": kernel.kernarg_align,
        "args": [
            {"name": a.name, "offset": a.offset, "size": a.size, "kind": a.kind, "address_space": a.address_space}
            for a in kernel.args
        ],
        "shared_bytes": kernel.shared_bytes,
        "scratch_bytes": kernel.scratch_bytes,
        "vgpr_count": kernel.vgpr_count,
        "sgpr_count": kernel.sgpr_count,
        "agpr_count": kernel.agpr_count,
        "registers": kernel.registers,
        "vgpr_spill_count": kernel.vgpr_spill_count,
        "sgpr_spill_count": kernel.sgpr_spill_count,
        "wavefront_size": kernel.wavefront_size,
        "max_workgroup_size": kernel.max_workgroup_size,
        "reqd_workgroup_size": list(kernel.reqd_workgroup_size) if kernel.reqd_workgroup_size else None,
    }


def inspect_records(paths: Iterable[str | os.PathLike[str]], resources: bool = False,
                    isa: bool = False) -> tuple[list[dict], list[str]]:
    """(kernel records, error messages) for every code object under ``paths`` (see
    :func:`iter_code_object_files` for which failures count as errors).  ``resources`` adds
    :data:`RESOURCE_KEYS` to each record; ``isa`` also disassembles (else
    ``matrix_instructions`` is None and ``isa_note`` says why)."""
    records: list[dict] = []
    errors: list[str] = []
    objects: list[tuple[CodeObject, list[dict]]] = []
    for path, strict in iter_code_object_files(paths):
        try:
            objs = read(path)
        except CodeObjectError as e:
            if strict:
                errors.append(str(e))
            continue
        for co in objs:
            recs = [kernel_record(co, k) for k in co.kernels.values()]
            if resources:
                for r, k in zip(recs, co.kernels.values()):
                    r.update(limits=resource_usage(k), matrix_instructions=None,
                             isa_note="not disassembled (pass --isa)")
                objects.append((co, recs))
            records += recs
    if resources and isa:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for (co, recs), (counts, note) in zip(objects, pool.map(_disassemble, (co for co, _ in objects))):
                for r in recs:
                    r["matrix_instructions"] = matrix_counts(counts[r["name"]]) if counts is not None else None
                    r["isa_note"] = note
    return records, errors


def _disassemble(co: CodeObject) -> tuple[dict | None, str | None]:
    """({kernel: mnemonic counts}, None), or (None, why not) when the tool is missing or fails."""
    try:
        return mnemonics_of(co), None
    except ToolNotFoundError as e:
        return None, f"not disassembled: {e}"


def inspect_paths(paths: Iterable[str | os.PathLike[str]], json: bool = False, resources: bool | None = None,
                  isa: bool = False) -> str:
    """Render every kernel of every code object under ``paths``: tables, or a JSON list of
    :func:`kernel_record` dicts.  Files that do not parse are reported at the end (text) or
    raise CodeObjectError (JSON, so that scripts never get a partial list silently).
    ``resources`` (default: on for tables, off for JSON, whose records keep RECORD_KEYS) and
    ``isa`` as :func:`inspect_records`."""
    if resources is None:
        resources = not json
    records, errors = inspect_records(paths, resources=resources, isa=isa)
    if json:
        if errors:
            raise CodeObjectError("; ".join(errors))
        return _json.dumps(records, indent=1)
    blocks = [_table(r) for r in records]
    blocks += [f"error: {e}" for e in errors]
    return "\n\n".join(blocks) if blocks else "no code objects found"


def _table(r: dict) -> str:
    def fmt(v: object) -> str:
        return "-" if v is None else str(v)

    if r["platform"] == "amd":
        regs = f"vgpr {fmt(r['vgpr_count'])}  agpr {fmt(r['agpr_count'])}  sgpr {fmt(r['sgpr_count'])}"
        spills = f"vgpr {fmt(r['vgpr_spill_count'])}  sgpr {fmt(r['sgpr_spill_count'])}"
    else:
        regs, spills = f"{fmt(r['registers'])} per thread", "-"
    where = r["file"] + (f"#{r['entry']}" if r["entry"] else "")
    rows = [
        ("kernel", r["name"]),
        ("symbol", r["symbol"]),
        ("file", where),
        ("arch", f"{r['arch']} ({r['platform']})"),
        ("kernarg", f"{r['kernarg_size']} bytes, align {r['kernarg_align']}"),
        ("shared/LDS", f"{r['shared_bytes']} bytes"),
        ("scratch", f"{r['scratch_bytes']} bytes per thread"),
        ("registers", regs),
        ("spills", spills),
        ("wavefront", str(r["wavefront_size"])),
        ("workgroup", f"max {fmt(r['max_workgroup_size'])}, required {fmt(r['reqd_workgroup_size'])}"),
    ]
    if "limits" in r:
        rows += _resource_rows(r)
    lines = [f"{k:<11} {v}" for k, v in rows]
    if r["args"]:
        lines.append(f"{'args':<11} {'#':>3}  {'name':<16} {'offset':>6} {'size':>5}  kind")
        for i, a in enumerate(r["args"]):
            lines.append(f"{'':<11} {i:>3}  {fmt(a['name']):<16} {a['offset']:>6} {a['size']:>5}  {a['kind']}")
    else:
        lines.append(f"{'args':<11} none")
    return "\n".join(lines)


def _resource_rows(r: dict) -> list[tuple[str, str]]:
    """``limits`` (used / limit per resource, then each problem) and ``matrix`` rows."""
    lim = r["limits"]
    if lim is None:
        rows = [("limits", f"unknown for {r['arch']} (pyhipattn.arch has no facts for it)")]
    else:
        names = {"vgpr": "VGPR", "agpr": "AGPR", "lds": "LDS", "scratch": "scratch", "spills": "spills",
                 "registers": "regs", "shared": "shared", "local": "local"}
        parts = [f"{names[k]} {'-' if v['used'] is None else v['used']}/{v['limit']}"
                 for k, v in lim.items() if k != "problems"]
        rows = [("limits", "  ".join(parts) + ("  ok" if not lim["problems"] else "  OVER"))]
        rows += [("", f"over: {p}") for p in lim["problems"]]
    m = r["matrix_instructions"]
    if m is None:
        rows.append(("matrix", r["isa_note"] or "-"))
    else:
        rows.append(("matrix", ", ".join(f"{op} \u00d7{n}" for op, n in m.items()) or "none in the disassembly"))
    return rows


def main_inspect(argv: list[str] | None = None) -> int:
    """CLI entry: ``pyhipattn inspect [--json] [--isa | --no-isa] PATH...``; returns 0, 1 if any
    file could not be read, 2 if a path does not exist.  Tables and JSON records carry the resources against the arch's limits;
    the matrix instructions need a disassembly, done for up to ISA_AUTO_FILES files unless
    ``--isa`` / ``--no-isa`` says otherwise."""
    ap = argparse.ArgumentParser(prog="pyhipattn inspect", description="Show kernels of code objects.")
    ap.add_argument("paths", nargs="+", help="code object files (.co .hsaco .cubin ...) or directories")
    ap.add_argument("--json", action="store_true", help="print a JSON list of kernel records")
    ap.add_argument("--isa", action=argparse.BooleanOptionalAction, default=None,
                    help=f"disassemble to count matrix instructions (default: only for <= {ISA_AUTO_FILES} files)")
    args = ap.parse_args(argv)
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"pyhipattn inspect: {', '.join(missing)} does not exist", file=sys.stderr)
        return 2
    isa = args.isa
    if isa is None:
        isa = sum(1 for _ in iter_code_object_files(args.paths)) <= ISA_AUTO_FILES
    records, errors = inspect_records(args.paths, resources=True, isa=isa)
    if not isa:
        why = "--no-isa" if args.isa is False else f"more than {ISA_AUTO_FILES} files; pass --isa"
        for r in records:
            r["isa_note"] = f"not disassembled ({why})"
    if args.json:
        print(_json.dumps(records, indent=1))
    else:
        # a missing or too old disassembler is said once, not once per kernel
        tool_notes = list(dict.fromkeys(r["isa_note"] for r in records
                                        if (r.get("isa_note") or "").startswith("not disassembled: ")))
        for r in records:
            if r.get("isa_note") in tool_notes:
                r["isa_note"] = "not disassembled (see the note at the end)"
        print("\n\n".join(_table(r) for r in records) or "no code objects found")
        for n in tool_notes:
            print(f"\nnote: {n}")
        if records and any(Path(p).is_dir() for p in args.paths):
            files = {r["file"] for r in records}
            arches = sorted({r["arch"] for r in records})
            print(f"\n{len(records)} kernels in {len(files)} files ({', '.join(arches)})"
                  + (f"; {len(errors)} files unreadable" if errors else ""))
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main_inspect())
