"""Write kernels/co/<arch>/hopper_manifest.json from the built hopper cubin, and check it.

    python3 kernels/src/hopper/make_manifest.py <arch> <dir with hopper_fwd.cubin> <stages d64> <stages d128> <consumer warpgroups d64> <Q buffers>

Facts come from the object's own metadata (pyhipattn.codeobj), the kernel names
(``hopper_fwd_<dtype>_d<D>``) and the stage / warpgroup counts the build passed to nvcc
(block_m = 64 per consumer warpgroup, threads = 128 per warpgroup, the producer's included).  The launch's dynamic shared memory is the kernel's layout (hopper_fwd.cu): QS Q tiles,
STAGES K and V tiles, 2 * QS + 4 * STAGES mbarriers, and 1024 bytes of slack to align the tiles to
1024 bytes (the 128-byte swizzle's period).  The build fails here when a kernel's kernarg
layout differs from hopper_args.h, when it spills or uses local memory, when its shared
memory exceeds the arch's limit, or when its SASS has no HGMMA (when a disassembler is found).
Output is deterministic (sorted keys, no timestamps).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..")))

from pyhipattn import codeobj  # noqa: E402
from pyhipattn.arch import arch_info  # noqa: E402
from pyhipattn.codeobj.isa import ToolNotFoundError, mnemonics  # noqa: E402
from pyhipattn.codeobj.limits import resource_report  # noqa: E402
from pyhipattn.kernargs import check_layout, layout_from_header  # noqa: E402

HEADER = "kernels/src/hopper/hopper_args.h"
FWD = re.compile(r"hopper_fwd_(bf16|fp16)_d(\d+)$")


def shared_bytes(block_m: int, block_n: int, d: int, stages: int, q_stages: int) -> int:
    """Dynamic shared memory of one CTA (see the module docstring)."""
    return q_stages * block_m * d * 2 + 2 * stages * block_n * d * 2 + 8 * (2 * q_stages + 4 * stages) + 1024


def main(arch: str, folder: str, stages64: str, stages128: str, nwg64: str, q_stages: str) -> None:
    qs = int(q_stages)
    block_n = {64: 128, 128: 128}
    stages = {64: int(stages64), 128: int(stages128)}
    nwg = {64: int(nwg64), 128: 2}
    hdr_path = os.path.join(HERE, "hopper_args.h")
    lay = layout_from_header(hdr_path, "hopper_fwd_args")
    fname = "hopper_fwd.cubin"
    data = open(os.path.join(folder, fname), "rb").read()
    (co,) = codeobj.read(data)
    if co.arch != arch:
        raise SystemExit(f"make_manifest: {fname} is for {co.arch}, expected {arch}")
    try:
        ops = mnemonics(os.path.join(folder, fname), arch)
    except ToolNotFoundError as e:
        print(f"make_manifest: HGMMA not checked ({e})", file=sys.stderr)
        ops = None
    limit = arch_info(arch).shared_limit
    objects, problems = [], []
    for name in sorted(co.kernels):
        m = FWD.match(name)
        if not m:
            raise SystemExit(f"make_manifest: kernel {name} does not follow hopper_fwd_<dtype>_d<D>")
        k = co.kernels[name]
        d = int(m[2])
        bm, bn = 64 * nwg[d], block_n[d]
        shared = shared_bytes(bm, bn, d, stages[d], qs)
        try:
            check_layout(lay, k)
        except ValueError as e:
            problems.append(f"{name}: {e}")
        problems += [f"{name}: {p}" for p in resource_report(k, arch)]
        if k.shared_bytes + shared > limit:
            problems.append(f"{name}: {k.shared_bytes} + {shared} shared bytes > {limit}")
        if ops is not None and not any(op.upper().startswith("HGMMA") for op in ops.get(name, {})):
            problems.append(f"{name}: no HGMMA in its SASS")
        objects.append({
            "name": f"fwd_{m[1]}_d{d}", "file": fname, "kernel": name, "role": "fwd", "struct": "hopper_fwd_args",
            "dtype": m[1], "head_dim": d, "block_m": bm, "block_n": bn, "stages": stages[d], "q_stages": qs,
            "threads": 128 * (nwg[d] + 1), "shared": shared, "registers": k.registers,
        })
    if problems:
        raise SystemExit("make_manifest: " + "; ".join(problems))
    manifest = {"family": "hopper", "arch": arch, "header": HEADER, "source": "kernels/src/hopper/hopper_fwd.cu",
                "sha256": {fname: hashlib.sha256(data).hexdigest()}, "objects": objects}
    with open(os.path.join(folder, "hopper_manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
