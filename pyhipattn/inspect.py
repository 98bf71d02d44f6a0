"""``pyhipattn inspect``: what code objects contain, as tables for people or JSON for scripts.

    inspect_paths(["kernels/co"])             -> text, one table per kernel
    inspect_paths(["a.co"], json=True)        -> JSON list of kernel records (keys: RECORD_KEYS)
    main_inspect(["--json", "a.co", "dir/"])  -> exit status, prints to stdout

Directories are walked; files named *.co, *.hsaco, *.cubin, *.o, *.bin are read, and any
other file whose first bytes look like ELF or an offload bundle.
"""

from __future__ import annotations

import argparse
import json as _json
import os
import sys
from typing import Iterable, Iterator

from .codeobj import is_code_object, read
from .codeobj.model import CodeObject, KernelInfo
from .errors import CodeObjectError

CODE_OBJECT_SUFFIXES = (".co", ".hsaco", ".cubin", ".o", ".bin")
STRICT_SUFFIXES = (".co", ".hsaco", ".cubin")

#: Keys of every JSON record, in order; values a format does not carry are null.
RECORD_KEYS = (
    "file", "entry", "platform", "arch", "name", "symbol", "kernarg_size", "kernarg_align",
    "args", "shared_bytes", "scratch_bytes", "vgpr_count", "sgpr_count", "agpr_count",
    "registers", "vgpr_spill_count", "sgpr_spill_count", "wavefront_size",
    "max_workgroup_size", "reqd_workgroup_size",
)


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


def inspect_records(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[dict], list[str]]:
    """(kernel records, error messages) for every code object under ``paths`` (see
    :func:`iter_code_object_files` for which failures count as errors)."""
    records: list[dict] = []
    errors: list[str] = []
    for path, strict in iter_code_object_files(paths):
        try:
            objs = read(path)
        except CodeObjectError as e:
            if strict:
                errors.append(str(e))
            continue
        for co in objs:
            records += [kernel_record(co, k) for k in co.kernels.values()]
    return records, errors


def inspect_paths(paths: Iterable[str | os.PathLike[str]], json: bool = False) -> str:
    """Render every kernel of every code object under ``paths``: tables, or a JSON list of
    :func:`kernel_record` dicts.  Files that do not parse are reported at the end (text) or
    raise CodeObjectError (JSON, so that scripts never get a partial list silently)."""
    records, errors = inspect_records(paths)
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
    lines = [f"{k:<11} {v}" for k, v in rows]
    if r["args"]:
        lines.append(f"{'args':<11} {'#':>3}  {'name':<16} {'offset':>6} {'size':>5}  kind")
        for i, a in enumerate(r["args"]):
            lines.append(f"{'':<11} {i:>3}  {fmt(a['name']):<16} {a['offset']:>6} {a['size']:>5}  {a['kind']}")
    else:
        lines.append(f"{'args':<11} none")
    return "\n".join(lines)


def main_inspect(argv: list[str] | None = None) -> int:
    """CLI entry: ``pyhipattn inspect [--json] PATH...``; returns 0, or 1 if any file failed."""
    ap = argparse.ArgumentParser(prog="pyhipattn inspect", description="Show kernels of code objects.")
    ap.add_argument("paths", nargs="+", help="code object files (.co .hsaco .cubin ...) or directories")
    ap.add_argument("--json", action="store_true", help="print a JSON list of kernel records")
    args = ap.parse_args(argv)
    records, errors = inspect_records(args.paths)
    if args.json:
        print(_json.dumps(records, indent=1))
    else:
        print("\n\n".join(_table(r) for r in records) or "no code objects found")
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0
