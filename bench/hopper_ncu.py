"""One profiled launch for ncu (issue 11): the hopper kernel or a torch SDPA peer on one shape.

    ncu --profile-from-start off --clock-control none --set full -o REPORT \
        python3 bench/hopper_ncu.py hopper|cudnn|flash B HQ HK SQ SK D CAUSAL [CUBIN]

Inputs are made and the kernel warmed up outside the profiled range; exactly one call of the
chosen implementation runs between cudaProfilerStart and cudaProfilerStop.
"""

from __future__ import annotations

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import hopper_dev  # noqa: E402

from pyhipattn.tools import bench  # noqa: E402
from pyhipattn.tools.bench import Shape  # noqa: E402


def main() -> int:
    impl = sys.argv[1]
    b, hq, hk, sq, sk, d, causal = (int(x) for x in sys.argv[2:9])
    cubin = sys.argv[9] if len(sys.argv) > 9 else None
    s = Shape(b, hq, hk, sq, sk, d, bool(causal), "prefill")
    q, k, v = bench.make_inputs(s, "bf16", 1, seed=7)[0]
    if impl == "hopper":
        cap = int(os.environ.get("HOPPER_NCU_GRID", "0")) or None     # a persistent grid of that many CTAs
        run = lambda: hopper_dev.hopper_fwd(cubin, cap)(q, k, v, causal=bool(causal), return_lse=False)  # noqa: E731
    else:
        call = bench._sdpa_call(impl, s)
        run = lambda: call(q, k, v)  # noqa: E731
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"{impl} {sys.argv[2:9]} profiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
