"""One process, several profiled launches: (cubin, shape) pairs, in order, between cudaProfilerStart/Stop.
    python3 ncu_multi.py CUBIN_OR_- B,HQ,HK,SQ,SK,D,C [CUBIN_OR_- SHAPE ...]"""
import os, sys
import torch
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev
from pyhipattn.tools import bench
from pyhipattn.tools.bench import Shape

runs = []
args = sys.argv[1:]
for i in range(0, len(args), 2):
    cubin = None if args[i] == "-" else args[i]
    b, hq, hk, sq, sk, d, c = (int(x) for x in args[i + 1].split(","))
    s = Shape(b, hq, hk, sq, sk, d, bool(c), "prefill")
    q, k, v = bench.make_inputs(s, "bf16", 1, seed=7)[0]
    f = hopper_dev.hopper_fwd(cubin, None)
    runs.append((args[i], args[i + 1], lambda f=f, q=q, k=k, v=v, c=c: f(q, k, v, causal=bool(c), return_lse=False)))
for _, _, r in runs:
    for _ in range(3):
        r()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for name, shape, r in runs:
    r()
    torch.cuda.synchronize()
    print("profiled", name, shape, flush=True)
torch.cuda.cudart().cudaProfilerStop()
