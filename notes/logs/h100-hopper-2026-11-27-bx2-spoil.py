"""Call bx2 (the lead, session 8): why ours / cuDNN on the d64 _c2 rows drops ~2% when the bench's paired rotation
includes the efficient SDPA backend.  bench.gpu_time_paired over ours (pyhipattn.mha_fwd) and cuDNN, with a third
callable in the rotation: none, `flush` (torch.zero_ of a 192 MiB buffer: L2 full of dirty lines, no code), `eff` (SDPA
efficient), `flash` (SDPA flash), `copy` (a 96 MiB device copy: L2 traffic, tiny code).  9 rounds of each; median
TFLOP/s of ours and cuDNN and their ratio."""
import statistics
import sys

import torch

import pyhipattn
from pyhipattn.tools import bench

shapes = [bench.Shape(16, 12, 12, 1024, 1024, 64, False), bench.Shape(32, 16, 16, 512, 512, 64, False)]
big = torch.empty(192 << 20, dtype=torch.uint8, device="cuda")
src = torch.empty(96 << 20, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
for s in shapes:
    flops = 4 * s.b * s.hq * s.sq * s.sk * s.d
    n_sets = bench.rotation_sets(2 * (s.b * s.sq * s.hq * s.d + 2 * s.b * s.sk * s.hk * s.d), 50 << 20)
    sets = bench.make_inputs(s, "bf16", n_sets, seed=7)
    cud = bench._sdpa_call("cudnn", s)
    eff = bench._sdpa_call("efficient", s)
    fla = bench._sdpa_call("flash", s)
    base = {"ours": lambda i: pyhipattn.mha_fwd(*sets[i]), "cudnn": lambda i: cud(*sets[i])}
    extra = {"none": {}, "flush": {"flush": lambda i: big.zero_()}, "eff": {"eff": lambda i: eff(*sets[i])},
             "flash": {"flash": lambda i: fla(*sets[i])}, "copy": {"copy": lambda i: dst.copy_(src)}}
    res = {k: {"ours": [], "cudnn": []} for k in extra}
    for r in range(9):
        for k, e in extra.items():
            got = bench.gpu_time_paired({**base, **e}, n_sets, rep_ms=120.0)
            for n in ("ours", "cudnn"):
                res[k][n].append(got[n]["ms"])
    for k in extra:
        o, c = statistics.median(res[k]["ours"]), statistics.median(res[k]["cudnn"])
        print(f"{s.b}x{s.sq} h{s.hq} d{s.d} with {k:6s}: ours {flops / o / 1e9:6.1f} cudnn {flops / c / 1e9:6.1f} "
              f"TFLOP/s  ours/cudnn {c / o:.3f}", flush=True)
