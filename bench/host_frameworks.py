"""Host time per call of ``mha_fwd`` from torch, CuPy, JAX eager and JAX under jit, each beside
its framework's own peer and its own do-nothing floor, in one run.

    python3 bench/host_frameworks.py [--shape B,HQ,HK,SQ,SK,D] [--json F] [--png F]

Default shape: decode, q (1, 1, 32, 128), k / v (1, 256, 8, 128), bf16 (issue 12's table).
Every number is the median over rounds (interleaved, rotated per round) of each round's
median, in microseconds of host time per call with the GPU idle before each call
(``pyhipattn.tools.bench.host_times``); the JAX jit rows also give the time per step of 300
back-to-back steps (queue kept busy, one block at the end).

- torch: ``pyhipattn.mha_fwd`` / ``torch.nn.functional.scaled_dot_product_attention`` / floor
  ``q + 1`` (one tiny kernel: an output allocation and a launch);
- CuPy: ``pyhipattn.mha_fwd`` / floor ``q + 1``;
- JAX eager: ``pyhipattn.mha_fwd`` (a jitted custom call, fastpath.py) / ``jax.nn.dot_product_attention``
  eager / floor ``q + 1``;
- JAX jit: ``jax.jit(lambda q, k, v: pyhipattn.jax.mha_fwd(q, k, v))`` / the same jitted
  around ``jax.nn.dot_product_attention`` / floor ``jax.jit(lambda q, k, v: q + 1)``;
- JAX jit step: a jitted step of several kernels (``tanh(q @ w)``, the attention, ``softmax(o @ w).sum()``)
  with our attention / ``jax.nn.dot_product_attention`` / none (floor), under XLA's default
  flags, and how often our handler ran per step (below 1 when XLA replays a recorded graph).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def per_step(fn, block, steps: int = 300, rounds: int = 7) -> float:
    """Microseconds per step of ``steps`` back-to-back calls ending in one ``block``."""
    times = []
    for _ in range(rounds):
        block(fn())
        t0 = time.perf_counter_ns()
        for _ in range(steps - 1):
            fn()
        block(fn())
        times.append((time.perf_counter_ns() - t0) / steps / 1e3)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="1,32,8,1,256,128", help="B,HQ,HK,SQ,SK,D (default: the decode shape)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--png", help="draw the table as bars here (matplotlib)")
    ap.add_argument("--replot", metavar="JSON", help="only draw --png from a saved --json")
    args = ap.parse_args(argv)
    if args.replot:
        with open(args.replot) as f:
            saved = json.load(f)
        _plot(saved["rows"], args.png or args.replot.replace(".json", ".png"), saved["device"])
        return 0
    import torch

    import pyhipattn
    from pyhipattn.tools.bench import host_times

    b, hq, hk, sq, sk, d = (int(x) for x in args.shape.split(","))
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn_like(k)
    sdpa_args = [t.transpose(1, 2) for t in (q, k, v)]
    F = torch.nn.functional
    rows: dict[str, dict] = {}
    sync = torch.cuda.synchronize
    rows["torch"] = host_times({
        "ours": lambda: pyhipattn.mha_fwd(q, k, v),
        "peer": lambda: F.scaled_dot_product_attention(*sdpa_args, enable_gqa=True),
        "floor": lambda: q + 1}, sync, args.rounds, args.calls)
    try:
        import cupy
    except ImportError:
        print("cupy not installed: no CuPy row", file=sys.stderr)
    else:
        cq, ck, cv = (cupy.from_dlpack(t) for t in (q, k, v))
        rows["cupy"] = host_times({"ours": lambda: pyhipattn.mha_fwd(cq, ck, cv), "floor": lambda: cq + 1},
                                  cupy.cuda.runtime.deviceSynchronize, args.rounds, args.calls)
    try:
        import jax
        import jax.numpy as jnp

        import pyhipattn.jax as pjax
    except ImportError:
        print("jax not installed: no JAX rows", file=sys.stderr)
    else:
        jq, jk, jv = (jax.dlpack.from_dlpack(t) for t in (q, k, v))
        last = [None]

        def keep(fn):
            def call():
                last[0] = fn()
            return call

        def jsync():
            jax.block_until_ready(last[0])

        dpa = lambda q, k, v: jax.nn.dot_product_attention(q, k, v)  # noqa: E731
        rows["jax eager"] = host_times({
            "ours": keep(lambda: pyhipattn.mha_fwd(jq, jk, jv)),
            "peer": keep(lambda: dpa(jq, jk, jv)),
            "floor": keep(lambda: jq + 1)}, jsync, args.rounds, args.calls)
        ours_j = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v))
        peer_j = jax.jit(dpa)
        floor_j = jax.jit(lambda q, k, v: q + 1)
        rows["jax jit"] = host_times({
            "ours": keep(lambda: ours_j(jq, jk, jv)),
            "peer": keep(lambda: peer_j(jq, jk, jv)),
            "floor": keep(lambda: floor_j(jq, jk, jv))}, jsync, args.rounds, args.calls)
        for name, fn in (("ours", ours_j), ("peer", peer_j), ("floor", floor_j)):
            rows["jax jit"][name]["per_step_us"] = per_step(lambda fn=fn: fn(jq, jk, jv), jax.block_until_ready)
        # a step of several kernels around the attention (two matmuls, fusions, a reduction), where
        # XLA's default command-buffer settings may record the step as a CUDA graph
        w = jax.dlpack.from_dlpack(torch.randn(d, d, device="cuda", dtype=torch.bfloat16, generator=g) / d ** 0.5)

        def make_step(attn):
            def step(q, k, v, w):
                x = jnp.tanh(q @ w)
                o = attn(x, k, v)
                return jax.nn.softmax((o @ w).astype(jnp.float32), axis=-1).sum()
            return jax.jit(step)

        steps = {"ours": make_step(lambda q, k, v: pjax.mha_fwd(q, k, v)), "peer": make_step(dpa),
                 "floor": make_step(lambda q, k, v: q)}
        rows["jax jit step"] = host_times({n: keep(lambda f=f: f(jq, jk, jv, w)) for n, f in steps.items()},
                                          jsync, args.rounds, args.calls)
        handler = pjax._HANDLERS.get("CUDA") or pjax._HANDLERS.get("ROCM")
        for name, fn in steps.items():
            before = handler.calls
            rows["jax jit step"][name]["per_step_us"] = per_step(lambda fn=fn: fn(jq, jk, jv, w), jax.block_until_ready)
            rows["jax jit step"][name]["handler_calls_per_step"] = (handler.calls - before) / (7 * 300)
        ref = pyhipattn.mha_fwd(q, k, v)
        torch.cuda.synchronize()
        same = bool(torch.equal(torch.from_dlpack(ours_j(jq, jk, jv)), ref))
        print(f"jax jit output equals the torch call bitwise: {same}")
    torch_ours = rows["torch"]["ours"]["p50_us"]
    dev = torch.cuda.get_device_name()
    print(f"\nhost time per call, p50 us (GPU idle before each call); {dev}; q {tuple(q.shape)} k/v {tuple(k.shape)} bf16")
    print(f"{'caller':10s} {'mha_fwd':>8s} {'peer':>8s} {'floor':>8s} {'/torch':>7s} {'/peer':>6s} {'/floor':>7s}")
    for caller, r in rows.items():
        ours, peer, floor = r["ours"]["p50_us"], r.get("peer", {}).get("p50_us"), r["floor"]["p50_us"]
        ps = f"{peer:8.1f}" if peer else f"{'-':>8s}"
        rp = f"{ours / peer:6.2f}" if peer else f"{'-':>6s}"
        print(f"{caller:10s} {ours:8.1f} {ps} {floor:8.1f} {ours / torch_ours:7.2f} {rp} {ours / floor:7.2f}")
    for name in ("jax jit", "jax jit step"):
        if name in rows:
            j = rows[name]
            print(f"{name}, per step of 300 back-to-back steps: mha_fwd {j['ours']['per_step_us']:.1f} us, "
                  f"jax.nn.dot_product_attention {j['peer']['per_step_us']:.1f} us, floor {j['floor']['per_step_us']:.1f} us"
                  + (f"; handler runs per step: {j['ours']['handler_calls_per_step']:.2f}" if "handler_calls_per_step"
                     in j["ours"] else ""))
    result = {"device": dev, "shape": dict(b=b, hq=hq, hk=hk, sq=sq, sk=sk, d=d), "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.png:
        _plot(rows, args.png, dev)
    return 0


def _plot(rows: dict, path: str, device: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no PNG", file=sys.stderr)
        return
    names = list(rows)
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, (label, key) in enumerate((("pyhipattn.mha_fwd", "ours"), ("framework peer", "peer"), ("do-nothing floor", "floor"))):
        vals = [rows[n].get(key, {}).get("p50_us", 0.0) for n in names]
        bars = ax.bar([x + 0.27 * (i - 1) for x in range(len(names))], vals, width=0.27, label=label)
        ax.bar_label(bars, labels=[f"{x:.0f}" if x else "" for x in vals], fontsize=7)
    ax.set_xticks(range(len(names)), names)
    ax.set_yscale("log")      # JAX's eager dot_product_attention is ~100x the others
    ax.set_ylabel("host time per call, p50 (us, log scale)")
    ax.set_title(f"host time per call by framework ({device})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
