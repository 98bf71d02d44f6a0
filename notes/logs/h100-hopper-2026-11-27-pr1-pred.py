"""Call pr1 (the lead, session 9): does the kernel that runs before a timed call change its time, and ours more than
cuDNN's?  For each shape, each pair (P, X) with X in {ours, cudnn} and P in {idle (a 20 us sleep), ours, cudnn, flash,
eff, zero (torch.zero_ of 192 MiB: an L2 of dirty lines)}: P's call (input set c), then X's call (set c + 1) between two
CUDA events.  All 12 pairs take turns call by call (order rotating) after a sleep kernel per batch, so they share the
clocks; 7 rounds, median of round medians.  Prints X's TFLOP/s after each P and cudnn/ours per P."""
import statistics
import sys

import torch

import pyhipattn
from pyhipattn.tools import bench

SH = [bench.Shape(16, 12, 12, 1024, 1024, 64, False), bench.Shape(32, 16, 16, 512, 512, 64, False),
      bench.Shape(16, 32, 32, 1024, 1024, 64, False), bench.Shape(1, 32, 8, 8192, 8192, 128, True),
      bench.Shape(4, 32, 32, 2048, 2048, 96, True)]
big = torch.empty(192 << 20, dtype=torch.uint8, device="cuda")
cpm = bench._cycles_per_ms()
for s in SH:
    flops = bench.attn_flops(s.b, s.hq, s.sq, s.sk, s.d, s.causal)
    n_sets = bench.rotation_sets(2 * (s.b * s.sq * s.hq * s.d + 2 * s.b * s.sk * s.hk * s.d), 50 << 20)
    sets = bench.make_inputs(s, "bf16", n_sets, seed=7)
    call = {p: bench._sdpa_call(p, s) for p in ("cudnn", "flash", "efficient")}
    f = {"ours": lambda i: pyhipattn.mha_fwd(*sets[i], causal=s.causal),
         "cudnn": lambda i: call["cudnn"](*sets[i]), "flash": lambda i: call["flash"](*sets[i]),
         "eff": lambda i: call["efficient"](*sets[i]), "zero": lambda i: big.zero_(),
         "idle": lambda i: torch.cuda._sleep(int(cpm * 0.02))}
    P = ["idle", "ours", "cudnn", "flash", "eff", "zero"]
    X = ["ours", "cudnn"]
    pairs = [(p, x) for x in X for p in P]
    for n in f:
        f[n](0)
    torch.cuda.synchronize()
    res = {pr: [] for pr in pairs}
    for r in range(7):
        times = {pr: [] for pr in pairs}
        c = 0
        for rep in range(4):
            ev = []
            torch.cuda._sleep(int(cpm * 60))
            for j in range(6):
                for k in range(len(pairs)):
                    pr = pairs[(k + j + rep) % len(pairs)]
                    f[pr[0]](c % n_sets); c += 1
                    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    a.record(); f[pr[1]](c % n_sets); b.record(); c += 1
                    ev.append((pr, a, b))
            torch.cuda.synchronize()
            if rep:   # the first batch warms up
                for pr, a, b in ev:
                    times[pr].append(a.elapsed_time(b))
        for pr in pairs:
            res[pr].append(statistics.median(times[pr]))
    lab = f"{s.b}x{s.sq} h{s.hq}/{s.hk} d{s.d}{' causal' if s.causal else ''}"
    print(f"== {lab}  TFLOP/s of X after P (median of 7 round medians)")
    print(f"  {'P':6s} {'ours':>7s} {'cudnn':>7s} {'cudnn_ms/ours_ms':>17s}")
    for p in P:
        o, cu = statistics.median(res[(p, "ours")]), statistics.median(res[(p, "cudnn")])
        print(f"  {p:6s} {flops / o / 1e9:7.1f} {flops / cu / 1e9:7.1f} {cu / o:17.3f}")
    sys.stdout.flush()
