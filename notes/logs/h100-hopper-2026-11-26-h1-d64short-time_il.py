"""Interleaved timing of hopper d64 variants, cuDNN and (causal rows) the portable family (helper h1, issue 11h).

    SHAPES="b,hq,hk,sq,sk,d,c;..." ROUNDS=5 python3 .dev-h1/time_il.py VARIANT_DIR ...

Adapted from notes/logs/h100-hopper-2026-11-26-g2-steady-time_il.py: per shape every column is timed ROUNDS times,
the order rotating each round; the median of the rounds is reported.  "hopper" = kernels/co/sm_90a of the tree.
"""
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402
from pyhipattn.api import mha_fwd  # noqa: E402
from pyhipattn.families import hopper  # noqa: E402
from pyhipattn.tools import bench  # noqa: E402
from pyhipattn.tools.bench import Shape  # noqa: E402

hopper.preferred = lambda p: "time_il: the portable family, forced"
variants = [None] + [os.path.join(p, "hopper_fwd.cubin") for p in sys.argv[1:]]
shapes = [tuple(int(x) for x in r.split(",")) for r in os.environ["SHAPES"].split(";") if r]
rounds = int(os.environ.get("ROUNDS", "5"))
rep_ms = float(os.environ.get("REP_MS", "25"))
print(torch.cuda.get_device_name(), flush=True)
rows = []
for b, hq, hk, sq, sk, d, c in shapes:
    causal = bool(c)
    s = Shape(b, hq, hk, sq, sk, d, causal, "prefill")
    flops = bench.attn_flops(b, hq, sq, sk, d, causal)
    in_bytes = bench.attn_bytes(b, hq, hk, sq, sk, d) - 2 * b * sq * hq * d
    n_sets = bench.rotation_sets(in_bytes, torch.cuda.get_device_properties(0).L2_cache_size)
    sets = bench.make_inputs(s, "bf16", n_sets, seed=7)
    outs = [torch.empty_like(x[0]) for x in sets]
    impls = {}
    for cubin in variants:
        name = os.path.basename(os.path.dirname(cubin)) if cubin else "hopper"

        def f(i, cubin=cubin):
            q, k, v = sets[i]
            prep = hopper_dev.hopper_prepared(q, k, v, causal, False, cubin)
            prep.launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": outs[i].data_ptr()},
                        torch.cuda.current_stream().cuda_stream)
        impls[name] = f
    if causal and sk <= 4096:
        impls["portable"] = lambda i: mha_fwd(*sets[i], causal=causal)
    call = bench._sdpa_call("cudnn", s)
    impls["cudnn"] = lambda i, call=call: call(*sets[i])
    res = {n: [] for n in impls}
    names = list(impls)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            try:
                t = bench.gpu_time(impls[n], n_sets, warmup_ms=10.0, rep_ms=rep_ms, max_warmup=50)
                res[n].append(flops / (t["ms"] * 1e-3) / 1e12)
            except Exception as e:  # noqa: BLE001
                print(f"  {n} failed on {(b, hq, hk, sq, sk, d, c)}: {type(e).__name__}: {str(e)[:200]}", flush=True)
    row = {"shape": [b, hq, hk, sq, sk, d, c]}
    for n in names:
        row[n] = statistics.median(res[n]) if res[n] else None
        row[n + "_spread"] = (max(res[n]) - min(res[n])) / statistics.median(res[n]) if len(res[n]) > 1 else None
    rows.append(row)
    print(json.dumps(row), flush=True)
    del sets, outs
    torch.cuda.empty_cache()
out = os.environ.get("OUT")
if out:
    with open(os.path.join(out, os.environ.get("TIME_JSON", "time_il.json")), "w") as fh:
        json.dump(rows, fh, indent=1)
names = []
for r in rows:
    names += [k for k in r if k != "shape" and not k.endswith("_spread")]
names = list(dict.fromkeys(names))
print("| shape | " + " | ".join(names) + " | " + " | ".join(f"{n}/hopper" for n in names if n != "hopper")
      + " | " + " | ".join(f"{n}/cudnn" for n in names if n != "cudnn") + " | max spread |")
print("|---|" + "---|" * (3 * len(names) - 1))
for r in rows:
    h, cd = r.get("hopper"), r.get("cudnn")
    cells = [f"{r[n]:.0f}" if r.get(n) else "-" for n in names]
    rat = [f"{r[n] / h:.3f}" if r.get(n) and h else "-" for n in names if n != "hopper"]
    ratc = [f"{r[n] / cd:.3f}" if r.get(n) and cd else "-" for n in names if n != "cudnn"]
    sp = max((r[k] for k in r if k.endswith("_spread") and r[k] is not None), default=0)
    print(f"| {','.join(map(str, r['shape']))} | " + " | ".join(cells + rat + ratc) + f" | {sp:.3f} |")
