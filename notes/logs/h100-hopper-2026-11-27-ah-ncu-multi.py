"""One process, several profiled launches (issue11g; reused by issue11u): IMPL CUBIN_OR_- B,HQ,HK,SQ,SK,D,C triples, in order.
IMPL hopper (CUBIN or - for the shipped object) or a torch SDPA peer (cudnn)."""
import os, sys
import torch
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev
from pyhipattn.tools import bench
from pyhipattn.tools.bench import Shape

runs = []
args = sys.argv[1:]
for i in range(0, len(args), 3):
    impl, cubin, shape = args[i], (None if args[i + 1] == "-" else args[i + 1]), args[i + 2]
    b, hq, hk, sq, sk, d, c = (int(x) for x in shape.split(","))
    s = Shape(b, hq, hk, sq, sk, d, bool(c), "prefill")
    q, k, v = bench.make_inputs(s, "bf16", 1, seed=7)[0]
    if impl == "hopper":
        f = hopper_dev.hopper_fwd(cubin, None)
        r = lambda f=f, q=q, k=k, v=v, c=c: f(q, k, v, causal=bool(c), return_lse=False)
    else:
        call = bench._sdpa_call(impl, s)
        r = lambda call=call, q=q, k=k, v=v: call(q, k, v)
    runs.append((impl, args[i + 1], shape, r))
for *_, r in runs:
    for _ in range(3):
        r()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for impl, cubin, shape, r in runs:
    r()
    torch.cuda.synchronize()
    print("profiled", impl, cubin, shape, flush=True)
torch.cuda.cudart().cudaProfilerStop()
