"""Write kernels/co/<arch>/native_manifest.json from the built native code objects.

    python3 kernels/src/native/make_manifest.py <arch> <dir with native_fwd.*, native_combine.*>

Every fact comes from the objects' own metadata (read with pyhipattn.codeobj) and the kernel
names (``native_fwd_<dtype>_d<D>_<mask|nomask>_m<BM>_n<BN>``, ``native_combine_<dtype>``);
the output is deterministic (sorted, no timestamps).
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

FWD = re.compile(r"native_fwd_(bf16|fp16)_d(\d+)_(mask|nomask)_m(\d+)_n(\d+)$")
COMBINE = re.compile(r"native_combine_(bf16|fp16)$")
HEADER = "kernels/src/native/native_args.h"


def describe(name: str, k, obj: str) -> dict:
    m = FWD.match(name)
    if m:
        entry = {"role": "producer", "dtype": m[1], "head_dim": int(m[2]), "head_dim_v": int(m[2]),
                 "masked": m[3] == "mask", "tile_m": int(m[4]), "tile_n": int(m[5]),
                 "kernarg_struct": "native_fwd_args"}
    elif COMBINE.match(name):
        entry = {"role": "combine", "dtype": COMBINE.match(name)[1], "kernarg_struct": "native_combine_args"}
    else:
        raise SystemExit(f"make_manifest: kernel {name} in {obj} does not follow the native naming scheme")
    entry.update(name=name, object=obj, threads=k.max_workgroup_size, lds_bytes=k.shared_bytes,
                 kernarg_bytes=k.explicit_kernarg_size, scratch_bytes=k.scratch_bytes)
    if k.registers is not None:
        entry["registers"] = k.registers
    else:
        entry.update(vgpr_count=k.vgpr_count, agpr_count=k.agpr_count, sgpr_count=k.sgpr_count,
                     wavefront_size=k.wavefront_size)
    return entry


def main(arch: str, folder: str) -> None:
    kernels, objects = [], {}
    for fname in sorted(os.listdir(folder)):
        if not re.fullmatch(r"native_(fwd|combine)\.(co|cubin)", fname):
            continue
        data = open(os.path.join(folder, fname), "rb").read()
        objects[fname] = hashlib.sha256(data).hexdigest()
        (co,) = codeobj.read(data)
        if co.arch != arch:
            raise SystemExit(f"make_manifest: {fname} is for {co.arch}, expected {arch}")
        kernels += [describe(n, co.kernels[n], fname) for n in sorted(co.kernels)]
    manifest = {"family": "native", "arch": arch, "kernarg_header": HEADER, "objects": objects, "kernels": kernels}
    with open(os.path.join(folder, "native_manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
