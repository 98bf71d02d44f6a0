"""``pyhipattn info``: what this machine offers pyhipattn, and what is missing.

Never raises for a missing GPU, driver or binding: each is reported with the reason.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from collections import Counter


def info_report() -> dict:
    """Platform, devices, shipped code objects per arch, and the AITER ASM directory."""
    from .. import __version__
    from ..runtime import platform_report

    rep: dict = {"pyhipattn": __version__, "python": sys.version.split()[0], "platform": platform_report()}
    rep["devices"] = _devices()
    rep["code_objects"] = _code_objects()
    try:
        from ..families.asm_v3 import find_asm_dir

        d = find_asm_dir()
        rep["aiter_asm_dir"] = str(d) if d else None
        env = os.environ.get("AITER_ASM_DIR")
        if env and (d is None or not str(d).startswith(str(Path(env).expanduser().resolve()))):
            rep["aiter_asm_dir_ignored"] = (f"{env} holds no <arch>/fmha_v3_fwd directory (expected AITER's "
                                            "aiter_meta/hsa or one of its gfx* subdirectories)")
    except Exception as e:  # report, never fail
        rep["aiter_asm_dir"] = f"error: {e}"
    return rep


def _devices() -> list[dict]:
    try:
        from ..runtime import get_backend

        b = get_backend()
    except Exception:
        return []
    out = []
    for i in range(b.device_count()):
        d = b.device_info(i)
        out.append({"index": i, "name": d.name, "arch": d.arch, "raw_arch": d.raw_arch,
                    "compute_units": d.compute_units, "memory_gib": round(d.total_memory / 2**30, 1)})
    return out


def _code_objects() -> dict:
    from ..codeobj import is_code_object
    from ..kernels_dir import kernels_dir

    try:
        root = kernels_dir()
    except FileNotFoundError as e:
        return {"error": str(e)}
    per_arch: dict = {"dir": str(root)}
    for arch_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [f for f in arch_dir.iterdir() if f.is_file() and is_code_object(f.read_bytes()[:64])]
        fams = Counter(f.name.split("_", 1)[0] for f in files)
        per_arch[arch_dir.name] = {"files": len(files), "families": dict(sorted(fams.items()))}
    return per_arch


def format_info(rep: dict) -> str:
    plat = rep["platform"]
    lines = [f"pyhipattn {rep['pyhipattn']} on Python {rep['python']}"]
    sel = plat.get("selected")
    lines.append(f"platform: {sel or 'none usable'}" + (f" (forced by PYHIPATTN_PLATFORM={plat['forced']})" if plat.get("forced") else ""))
    if plat.get("error"):
        lines.append(f"  error: {plat['error']}")
    for name in ("nvidia", "amd"):
        p = plat.get(name, {})
        state = "usable" if p.get("usable") else f"not usable: {p.get('error')}"
        lines.append(f"  {name:6s} {p.get('bindings')}: {p.get('installed') or 'not installed'}; {state}")
    if rep["devices"]:
        lines.append("devices:")
        for d in rep["devices"]:
            lines.append(f"  [{d['index']}] {d['name']}  arch {d['arch']} ({d['raw_arch']}), {d['compute_units']} CUs/SMs, {d['memory_gib']} GiB")
    else:
        lines.append("devices: none (planning, inspect and check --static-only still work)")
    co = rep["code_objects"]
    if "error" in co:
        lines.append(f"code objects: {co['error']}")
    else:
        lines.append(f"code objects in {co['dir']}:")
        for arch, v in co.items():
            if arch != "dir":
                fams = ", ".join(f"{k} {n}" for k, n in v["families"].items())
                lines.append(f"  {arch:8s} {v['files']:4d} files ({fams})")
    lines.append(f"AITER ASM v3 objects: {rep.get('aiter_asm_dir') or 'not found (install amd-aiter or set AITER_ASM_DIR)'}")
    if rep.get("aiter_asm_dir_ignored"):
        lines.append(f"  AITER_ASM_DIR ignored: {rep['aiter_asm_dir_ignored']}")
    return "\n".join(lines)
