"""``pyhipattn check [PATH...]``: static checks of code objects, then (with a GPU) numerics.

Static (no GPU): every kernel a manifest names exists in its object, its kernarg metadata
equals the struct its family's header declares, it uses no scratch and spills nothing, its
shared memory / LDS (static + the dynamic amount it is launched with) fits the arch, and
attention producers contain the arch's matrix instructions (v_mfma, v_wmma, HMMA/HGMMA).
Objects without a manifest get the resource checks only.  Each row (``--json``) also carries
``limits`` (resources used against the arch's limits, :func:`~pyhipattn.codeobj.limits.resource_usage`)
and ``matrix_instructions`` (mnemonic -> count where the object was disassembled, else null).

Numeric (NVIDIA GPU present, not ``--static-only``): the randomized ``mha_fwd`` sweep of
``pyhipattn.tools.sweep`` with the code objects found under PATH in place of the shipped ones.

Emulated (``--emulate``, no GPU needed): every AMD attention object under PATH runs the
numeric sweep of ``pyhipattn.tools.emulated_sweep`` on the CPU emulator in place of its shipped
counterpart; a failing case fails the check (exit 1) and is named.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import codeobj
from ..arch import arch_info
from ..codeobj.isa import ToolNotFoundError, mnemonics
from ..codeobj.limits import matrix_counts, resource_report, resource_usage
from ..kernargs import check_layout, check_params, layout_from_header
from ..manifest import Entry, manifests


def _files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += [f for f in sorted(p.rglob("*")) if f.is_file() and f.suffix in (".co", ".hsaco", ".cubin")]
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"{p} does not exist")
    return out


#: Objects without a manifest are disassembled (for the rows' matrix_instructions) up to this many.
ISA_UNLISTED_FILES = 16


def check_entry(e: Entry, isa_cache: dict, extra: dict | None = None) -> list[str]:
    """Problems of one manifest entry (empty list: it passes).  ``extra``, when given, receives
    the row additions ``limits`` and ``matrix_instructions``."""
    cos = codeobj.read(e.file)
    co = next((c for c in cos if c.arch == e.arch), cos[0])
    if e.kernel not in co.kernels:
        return [f"{e.file.name}: kernel {e.kernel} is missing (has {', '.join(sorted(co.kernels))})"]
    k = co.kernels[e.kernel]
    problems = resource_report(k, e.arch)
    if extra is not None:
        extra["limits"] = resource_usage(k, e.arch, e.dynamic_shared)
    limit = arch_info(e.arch).shared_limit
    if k.shared_bytes + e.dynamic_shared > limit:
        problems.append(f"{e.kernel}: {k.shared_bytes} static + {e.dynamic_shared} dynamic shared bytes > {limit}")
    if e.header and e.struct:
        try:
            if e.more_params:   # several struct parameters: each at the offset the manifest says
                structs = [e.struct, *(name for name, _ in e.more_params)]
                offsets = check_params([layout_from_header(e.header, n) for n in structs], k)
                if offsets[1:] != tuple(off for _, off in e.more_params):
                    problems.append(f"{e.kernel}: parameters {structs} sit at offsets {list(offsets)} in the metadata, "
                                    f"the manifest says {[0, *(off for _, off in e.more_params)]}")
            else:
                check_layout(layout_from_header(e.header, e.struct), k)
        except ValueError as err:
            problems.append(f"{e.kernel}: {err}")
    if e.needs_matrix_unit:
        if e.file not in isa_cache:
            try:
                isa_cache[e.file] = mnemonics(e.file, e.arch)
            except ToolNotFoundError as err:   # a missing disassembler is not a broken object
                isa_cache[e.file] = err
        if isinstance(isa_cache[e.file], ToolNotFoundError):
            if extra is not None:
                extra["isa_unchecked"] = str(isa_cache[e.file])
            return [f"{e.arch}/{e.file.name}: {p}" for p in problems]
        ops = isa_cache[e.file].get(e.kernel, {})
        want = arch_info(e.arch).matrix_isa
        if not any(op.upper().startswith(w.upper()) for op in ops for w in want):
            problems.append(f"{e.kernel}: no {' / '.join(want)} instruction in its disassembly")
    if extra is not None and isinstance(isa_cache.get(e.file), dict):
        extra["matrix_instructions"] = matrix_counts(isa_cache[e.file].get(e.kernel, {}))
    return [f"{e.arch}/{e.file.name}: {p}" for p in problems]


def static_check(paths: list[str], progress=None) -> tuple[list[dict], list[str]]:
    """(rows, problems) over the manifests and objects under ``paths``.  ``progress``, when
    given, is called with one line per (arch, family) group as it finishes (kernels checked,
    failures, seconds so far)."""
    import time

    rows, problems, isa_cache = [], [], {}
    roots = [Path(p) for p in paths]
    entries = [e for r in roots if r.is_dir() for e in manifests(r)]
    listed = {e.file.resolve() for e in entries}
    t0, group, done, bad = time.monotonic(), None, 0, 0

    def report():
        if progress is not None and group is not None:
            progress(f"  {group[0]:9s} {group[1]:12s} {done:4d} kernels checked, {bad} failed "
                     f"({time.monotonic() - t0:.1f} s)")

    for e in entries:
        if (e.arch, e.family) != group:
            report()
            group, done, bad = (e.arch, e.family), 0, 0
        extra = {"limits": None, "matrix_instructions": None}
        try:
            found = check_entry(e, isa_cache, extra)
        except (ValueError, ToolNotFoundError, OSError) as err:
            found = [f"{e.arch}/{e.file.name}: {err}"]
        rows.append({"arch": e.arch, "family": e.family, "object": e.file.name, "kernel": e.kernel,
                     "role": e.role, "ok": not found, **extra})
        problems += found
        done, bad = done + 1, bad + bool(found)
    report()
    unlisted = [f for f in _files(paths) if f.resolve() not in listed]
    for f in unlisted:
        try:
            for co in codeobj.read(f):
                ops = _matrix_or_none(co) if len(unlisted) <= ISA_UNLISTED_FILES else None
                for k in co.kernels.values():
                    found = [f"{co.arch}/{f.name}: {p}" for p in resource_report(k, co.arch)]
                    rows.append({"arch": co.arch, "family": "-", "object": f.name, "kernel": k.name,
                                 "role": "-", "ok": not found, "limits": resource_usage(k, co.arch),
                                 "matrix_instructions": matrix_counts(ops[k.name]) if ops else None})
                    problems += found
        except ValueError as err:
            problems.append(f"{f}: {err}")
    return rows, problems


def _matrix_or_none(co) -> dict | None:
    """{kernel: mnemonic counts} of ``co``, or None when no disassembler is installed (the rows
    of objects without a manifest do not need one)."""
    from ..codeobj.isa import mnemonics_of

    try:
        return mnemonics_of(co)
    except ToolNotFoundError:
        return None


def run_check(args) -> int:
    """CLI entry; returns 0 when everything passed."""
    from ..kernels_dir import kernels_dir

    paths = args.paths or [str(kernels_dir())]
    if not _files(paths):
        raise FileNotFoundError(f"no code objects (.co, .hsaco, .cubin) under {' '.join(paths)}")
    print(f"checking {len(_files(paths))} code objects under {' '.join(paths)} ...", file=sys.stderr, flush=True)
    rows, problems = static_check(paths, progress=lambda line: print(line, file=sys.stderr, flush=True))
    numeric = emulated = None
    if getattr(args, "emulate", False):
        from .emulated_sweep import emulated_check

        print(f"emulated sweep of the AMD objects under {' '.join(paths)} ({args.emulate_cases} cases per family; "
              "progress on stderr)", file=sys.stderr)
        emulated = emulated_check(paths, cases=args.emulate_cases,
                                  progress=lambda line: print(line, file=sys.stderr, flush=True))
        problems += [f"emulated: {f}" for f in emulated["failures"]]
    if not args.static_only and not getattr(args, "emulate", False):
        from .sweep import gpu_available, run_sweep

        if gpu_available():
            numeric = run_sweep(cases=args.cases, kernels_root=_co_root(paths), progress=sys.stderr)
            problems += [f"numeric: {f}" for f in numeric["failures"]]
    if args.json:
        print(json.dumps({"rows": rows, "problems": problems, "numeric": numeric, "emulated": emulated}, indent=1))
    else:
        by_arch: dict[str, list[int]] = {}
        for r in rows:
            by_arch.setdefault(r["arch"], [0, 0])[0 if r["ok"] else 1] += 1
        print("arch       kernels  ok  failed")
        for a, (ok, bad) in sorted(by_arch.items()):
            print(f"{a:10s} {ok + bad:7d} {ok:3d} {bad:7d}")
        unchecked = [r for r in rows if r.get("isa_unchecked")]
        if unchecked:
            print(f"matrix instructions not checked for {len(unchecked)} kernels: {unchecked[0]['isa_unchecked']}")
        if emulated is not None:
            from .emulated_sweep import format_table

            print(format_table(emulated["results"]))
            for line in emulated["skipped"]:
                print(f"not emulated: {line}")
            n = len(emulated["results"])
            print(f"emulated sweep: {n - len(emulated['failures'])} passed, {len(emulated['failures'])} failed "
                  f"({emulated['seconds']} s on the CPU emulator)")
        if numeric:
            print(f"numeric sweep on {numeric['device']}: {numeric['passed']} passed, {len(numeric['failures'])} failed")
        elif not args.static_only and emulated is None:
            print("numeric sweep: skipped (no usable NVIDIA GPU)")
        for p in problems:
            print("FAIL", p)
    return 1 if problems else 0


def _co_root(paths: list[str]) -> str | None:
    """The code-object root (the folder holding <arch>/ folders) for a directory argument."""
    for p in map(Path, paths):
        if p.is_dir():
            from ..arch import known_arches

            return str(p.parent if p.name in known_arches() else p)
    return None
