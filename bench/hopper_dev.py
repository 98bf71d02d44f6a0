"""Check and time the hopper family on an H100 (issue 11's development script).

    python3 bench/hopper_dev.py check [VARIANT_DIR ...]    # numerics vs the float64 reference
    python3 bench/hopper_dev.py check-only VARIANT_DIR ... # the same, without the shipped object
    python3 bench/hopper_dev.py time  [VARIANT_DIR ...]    # TFLOP/s: hopper variants, portable, cuDNN, flash

``HOPPER_DEV_D=128`` (or ``96,256``) times the shapes of those head dims only; ``HOPPER_DEV_SHAPES=short`` /
``causal`` time the lists of those names instead of the full table (``"b,hq,hk,sq,sk,d,causal;..."``: those rows; a row may
add ``,left,right`` (a sliding window) and ``,softcap``: such rows time no torch SDPA peers); ``HOPPER_DEV_PGRID=none`` drops the
persistent-grid column of causal rows (``all``: one per variant); ``HOPPER_DEV_PORTABLE=0`` drops the portable column.  The "portable" column is the portable
family forced (hopper's dispatch preference switched off).
A VARIANT_DIR holds a ``hopper_fwd.cubin`` built with other options (same kernel names) and its
``hopper_manifest.json``, whose block_m / threads / shared the plans then take (a cubin whose kernels take fewer
kernarg bytes than hopper_args.h's struct, built before fields were added at its end, gets the plan's bytes cut to its size); the shipped object
(kernels/co/sm_90a) is the first variant, named "hopper".  A variant dir named ``*_d<D>`` (``*_d64``,
``*_d96``, ...) is timed on the shapes of head dim D only (its other kernels are the shipped bytes).  ``HOPPER_DEV_PEERS`` (default
"cudnn,flash") names the torch SDPA backends timed beside them.
Timing uses pyhipattn.tools.bench's gpu_time (median of event-timed calls over rotated input sets,
the same method as ``pyhipattn bench``); TFLOP/s count causal as half.  ``HOPPER_DEV_ROUNDS=N`` times every column N
times (``HOPPER_DEV_REP_MS`` each, default 25 ms), the columns alternating call by call within a round as ``pyhipattn
bench --timing paired`` does (``HOPPER_DEV_TIMING=rounds``: each column alone, the order rotating), and reports the
medians, with each column's max / min over its rounds in the row's ``_spread`` (the JSON lines).  Prints a table last.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import sys
import time

import torch

from pyhipattn import validate

from pyhipattn.tools import bench, sweep
from pyhipattn.api import mha_fwd
from pyhipattn.tools.bench import Shape
from pyhipattn.dlpack import view
from pyhipattn.families import hopper
from pyhipattn.prepared import prepare

from dev_plan import plan_with_manifest   # bench/dev_plan.py (this script's folder is on sys.path)

ARCH = "sm_90a"
ISSUE_SHAPES = [  # (b, hq, hk, sq, sk, d, causal) of issue 11's table
    (1, 32, 8, 8192, 8192, 128, True), (2, 64, 8, 4096, 4096, 128, True), (1, 16, 16, 16384, 16384, 128, False),
    (32, 16, 16, 512, 512, 64, False), (16, 12, 12, 1024, 1024, 64, False),
    (1, 16, 8, 4096, 4096, 256, True), (4, 32, 32, 2048, 2048, 96, True),
]
#: HOPPER_DEV_SHAPES=short: the short causal d128 (512-2048) and short d64 (512 / 1024) rows, then long rows
SHORT_SHAPES = [
    (32, 16, 16, 512, 512, 128, True), (16, 16, 16, 1024, 1024, 128, True), (8, 16, 16, 2048, 2048, 128, True),
    (4, 32, 8, 2048, 2048, 128, True),
    (32, 16, 16, 512, 512, 64, False), (16, 12, 12, 1024, 1024, 64, False), (32, 32, 32, 512, 512, 64, False),
    (32, 32, 32, 512, 512, 64, True), (16, 32, 32, 1024, 1024, 64, False), (16, 32, 32, 1024, 1024, 64, True),
    (32, 16, 16, 512, 512, 128, False), (8, 16, 16, 2048, 2048, 128, False),
    (1, 16, 16, 16384, 16384, 128, False), (1, 32, 8, 8192, 8192, 128, True), (2, 64, 8, 4096, 4096, 128, True),
    (4, 16, 16, 4096, 4096, 128, True), (1, 16, 16, 16384, 16384, 128, True), (8, 32, 32, 2048, 2048, 64, True),
    (1, 32, 32, 16384, 16384, 64, True),
]
#: HOPPER_DEV_SHAPES=causal: the d64 rows (short non-causal / causal, causal 2048-16384) and the causal d128 rows
#: whose L2 sections the section sizing sets (GQA 32/8 and 64/8, h16 512-16384), issue11e (2026-11-26)
CAUSAL_SHAPES = [
    (32, 16, 16, 512, 512, 64, False), (16, 12, 12, 1024, 1024, 64, False), (32, 32, 32, 512, 512, 64, False),
    (32, 32, 32, 512, 512, 64, True), (16, 32, 32, 1024, 1024, 64, False), (16, 32, 32, 1024, 1024, 64, True),
    (8, 32, 32, 2048, 2048, 64, False), (8, 32, 32, 2048, 2048, 64, True), (4, 32, 32, 4096, 4096, 64, True),
    (2, 32, 32, 8192, 8192, 64, True), (1, 32, 32, 16384, 16384, 64, False), (1, 32, 32, 16384, 16384, 64, True),
    (4, 32, 8, 4096, 4096, 128, True), (1, 32, 8, 8192, 8192, 128, True), (2, 64, 8, 4096, 4096, 128, True),
    (4, 32, 8, 2048, 2048, 128, True), (32, 16, 16, 512, 512, 128, True), (16, 16, 16, 1024, 1024, 128, True),
    (8, 16, 16, 2048, 2048, 128, True), (4, 16, 16, 4096, 4096, 128, True), (2, 16, 16, 8192, 8192, 128, True),
    (1, 16, 16, 16384, 16384, 128, True), (4, 32, 32, 4096, 4096, 64, False), (2, 32, 32, 8192, 8192, 64, False),
]
_PREP: dict = {}


def _kernarg_size(cubin: str, kernel: str) -> int:
    from pyhipattn import codeobj

    (co,) = codeobj.read(open(cubin, "rb").read())
    return -(-co.kernels[kernel].explicit_kernarg_size // 8) * 8


def hopper_prepared(q, k, v, causal: bool, lse: bool, cubin: str | None, persistent: bool = False,
                    window: tuple[int, int] = (-1, -1), softcap: float = 0.0):
    key = (tuple(q.shape), tuple(q.stride()), tuple(k.shape), tuple(k.stride()), tuple(v.stride()), q.dtype,
           causal, lse, cubin, persistent, tuple(window), softcap)
    if key not in _PREP:
        p = validate.batch_problem(view(q, argname="q"), view(k, argname="k"), view(v, argname="v"),
                                   softmax_scale=None, causal=causal, window_size=window, softcap=softcap,
                                   return_lse=lse, num_splits=1)
        if cubin:
            # plan with the variant's own manifest (block_m, threads, shared), then point at its cubin
            man = json.load(open(os.path.join(os.path.dirname(cubin), "hopper_manifest.json")))
            man["by_name"] = {o["name"]: o for o in man["objects"]}
            plans = plan_with_manifest(hopper, man, p, ARCH, 132, 1, cubin)
            plans = [dataclasses.replace(pl, kernargs=pl.kernargs[:_kernarg_size(cubin, pl.kernel)]) for pl in plans]
        else:
            plans = hopper.plan(p, ARCH, 132, 1)
        if persistent:   # True: one CTA per SM; an int: that many CTAs
            cap = 132 if persistent is True else int(persistent)
            plans = [dataclasses.replace(pl, grid=(min(pl.grid[0], cap), 1, 1)) for pl in plans]
        _PREP[key] = prepare(plans, q.device.index)
    return _PREP[key]


def hopper_fwd(cubin: str | None = None, grid_cap: int | None = None):
    """``mha_fwd(q, k, v, out=, causal=, return_lse=, ...) -> (out, lse)`` through the hopper kernels;
    ``grid_cap`` caps the grid (a persistent grid of that many CTAs, whatever the plan chose)."""

    def run(q, k, v, *, out=None, causal=False, window_size=(-1, -1), softcap=0.0, return_lse=True):
        b, sq, hq, d = q.shape
        if out is None:
            out = torch.empty_like(q)
        lse = torch.full((b, hq, sq), float("nan"), device=q.device, dtype=torch.float32)
        prep = hopper_prepared(q, k, v, causal, return_lse, cubin, grid_cap or False, tuple(window_size), softcap)
        prep.launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": out.data_ptr(),
                     "lse": lse.data_ptr()}, torch.cuda.current_stream().cuda_stream)
        return out, lse

    return run


def check(variants: list[str | None]) -> int:
    import gpu_tests   # bench/gpu_tests.py (this script's folder is on sys.path)

    mod = gpu_tests.load("test_hopper_gpu")
    cases = mod._TARGETED          # the GPU test's targeted cases
    bad = 0
    # every case on the plan's grid, then the causal ones on persistent grids of 132 and 5 CTAs
    # (several tiles per CTA: the cross-tile paths)
    runs = [(c, None) for c in cases] + [(c, cap) for cap in (132, 5) for c in cases
                                         if "causal" in c["feature"] or "window" in c["feature"]]
    for cubin in variants:
        name = cubin or "hopper"
        for c, cap in runs:
            t0 = time.time()
            try:
                why = sweep.check_case(c, mha_fwd=hopper_fwd(cubin, cap))
            except Exception as e:
                why = f"{type(e).__name__}: {e}"
            torch.cuda.synchronize()
            bad += why is not None
            print(f"{name:28s} {sweep.case_id(c):44s} grid {cap or 'plan':4} "
                  f"{'ok' if why is None else 'FAIL ' + why} ({time.time() - t0:.1f}s)",
                  flush=True)
        # strided inputs: q, k, v slices of one packed (b, s, 3, h, d) tensor
        for d, causal in ((128, True), (64, False), (96, True), (256, False)):
            qkv = torch.randn(2, 777, 3, 8, d, device="cuda", dtype=torch.bfloat16)
            q, k, v = qkv.unbind(2)
            out, lse = hopper_fwd(cubin)(q, k, v, causal=causal)
            from pyhipattn.reference import attention_ref, rel_error
            ref, ref_lse = attention_ref(q, k, v, causal=causal)
            err = rel_error(out, ref)
            lerr = float((lse.double() - ref_lse).abs().max())
            ok = err < 1e-2 and lerr < 2e-3
            bad += not ok
            print(f"{name:28s} packed-qkv d{d} causal={causal}: rel err {err:.2e} lse err {lerr:.2e} "
                  f"{'ok' if ok else 'FAIL'}", flush=True)
    if None in variants:   # varlen (issue11h): the shipped object's _varlen kernels (bench/hopper_varlen_dev.py)
        from hopper_varlen_dev import check as check_varlen

        bad += check_varlen()
    print(f"check: {bad} failures", flush=True)
    return bad


def time_shapes(variants: list[str | None], shapes: list[tuple], dtype: str = "bf16") -> list[dict]:
    rows = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for dims in shapes:
        b, hq, hk, sq, sk, d, causal = dims[:7]
        window = tuple(dims[7:9]) if len(dims) >= 9 else (-1, -1)
        softcap = float(dims[9]) if len(dims) >= 10 else 0.0
        extra = window != (-1, -1) or softcap > 0
        s = Shape(b, hq, hk, sq, sk, d, causal, "prefill")
        flops = bench.attn_flops(b, hq, sq, sk, d, causal)
        in_bytes = bench.attn_bytes(b, hq, hk, sq, sk, d) - 2 * b * sq * hq * d
        n_sets = bench.rotation_sets(in_bytes, l2)
        sets = bench.make_inputs(s, dtype, n_sets, seed=7)
        outs = [torch.empty_like(x[0]) for x in sets]
        impls = {}
        if d in hopper.HEAD_DIMS:
            for cubin in variants:
                only = re.search(r"_d(\d+)$", os.path.dirname(cubin)) if cubin else None
                if only and int(only[1]) != d:
                    continue
                def f(i, cubin=cubin):
                    q, k, v = sets[i]
                    prep = hopper_prepared(q, k, v, causal, False, cubin, False, window, softcap)
                    prep.launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": outs[i].data_ptr()},
                                torch.cuda.current_stream().cuda_stream)
                impls[os.path.basename(os.path.dirname(cubin)) if cubin else "hopper"] = f
            # causal: the default cubin (HOPPER_DEV_PGRID=all: every variant) on a persistent grid (one
            # CTA per SM), for comparison
            pg = {"all": variants, "none": []}.get(os.environ.get("HOPPER_DEV_PGRID", ""), [None])
            for cubin in (pg if causal and not extra else []):
                if cubin and os.path.dirname(cubin).endswith(("_d64", "_d128")) and not os.path.dirname(cubin).endswith(f"_d{d}"):
                    continue
                def g(i, cubin=cubin):
                    q, k, v = sets[i]
                    prep = hopper_prepared(q, k, v, causal, False, cubin, persistent=True)
                    prep.launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": outs[i].data_ptr()},
                                torch.cuda.current_stream().cuda_stream)
                impls[(os.path.basename(os.path.dirname(cubin)) if cubin else "hopper") + "_pgrid"] = g
        if os.environ.get("HOPPER_DEV_PORTABLE", "1") != "0":
            impls["portable"] = lambda i: mha_fwd(*sets[i], causal=causal, window_size=window,  # hopper.preferred is
                                                  softcap=softcap)                              # off in time mode
        for peer in ([] if extra else [x for x in os.environ.get("HOPPER_DEV_PEERS", "cudnn,flash").split(",") if x]):
            call = bench._sdpa_call(peer, s)
            impls[peer] = lambda i, call=call: call(*sets[i])
        rounds = int(os.environ.get("HOPPER_DEV_ROUNDS", "1"))
        rep_ms = 60.0 if rounds == 1 else float(os.environ.get("HOPPER_DEV_REP_MS", "25"))
        paired = os.environ.get("HOPPER_DEV_TIMING", "paired") == "paired"
        row = {"shape": list(dims)}
        row.update(interleaved(impls, rounds, flops, n_sets, rep_ms, where=str(dims), paired=paired,
                               timer=functools.partial(bench.gpu_time, max_warmup=100),
                               paired_timer=functools.partial(bench.gpu_time_paired, max_warmup=100)))
        rows.append(row)
        print(json.dumps(row), flush=True)
        del sets, outs
        torch.cuda.empty_cache()
    return rows


def interleaved(impls: dict, rounds: int, flops: float, n_sets: int, rep_ms: float, where: str = "",
                paired: bool = True, **timers) -> dict:
    """Time every implementation (``fn(i)``, i the input set) in ``rounds`` rounds with pyhipattn.tools.bench's
    ``gpu_times``: ``paired`` (HOPPER_DEV_TIMING=paired, the default) alternates them call by call within a round, so
    they run under the same clocks; else each is timed alone, the order rotating by one each round.  ``timers``:
    ``timer`` / ``paired_timer`` for ``gpu_times`` (tests).

    Returns {name: median TFLOP/s over the rounds (None if it raised)} and, with several rounds, ``"_spread"``: {name:
    max / min over its rounds} (how far a column moved; with ``paired`` the columns move together).  An implementation
    that raises is reported once and not timed again."""
    res = bench.gpu_times(impls, n_sets, max(1, rounds), rep_ms=rep_ms, paired=paired, **timers)
    out: dict = {}
    for n, t in res.items():
        if "err" in t:
            print(f"  {n} failed on {where}: {t['err'].removeprefix('timing failed: ')[:200]}", flush=True)
            out[n] = None
            continue
        out[n] = flops / (t["ms"] * 1e-3) / 1e12
    if rounds > 1:
        out["_spread"] = {n: t["spread"] for n, t in res.items() if "err" not in t}
    return out


def table(rows: list[dict]) -> str:
    names = list(dict.fromkeys(k for r in rows for k in r if k != "shape" and not k.startswith("_")))
    lines = ["| shape (b,hq,hk,sq,sk,d,causal[,left,right[,softcap]]) | " + " | ".join(names)
             + " | best hopper / cuDNN | hopper / portable |",
             "|---|" + "---|" * (len(names) + 2)]
    for r in rows:
        hop = [r[n] for n in names if n.startswith(("hopper", "v_")) and r.get(n)]
        ratio = f"{max(hop) / r['cudnn']:.2f}" if hop and r.get("cudnn") else "-"
        vs_portable = f"{r['hopper'] / r['portable']:.2f}" if r.get("hopper") and r.get("portable") else "-"
        lines.append(f"| {r['shape']} | " + " | ".join(f"{r[n]:.0f}" if r.get(n) else "-" for n in names)
                     + f" | {ratio} | {vs_portable} |")
    return "\n".join(lines)


def main() -> int:
    mode = sys.argv[1]
    variants: list[str | None] = [None] + [os.path.join(p, "hopper_fwd.cubin") for p in sys.argv[2:]]
    if mode == "check-only":      # the variants alone, not the shipped object
        mode, variants = "check", variants[1:]
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    if mode == "check":
        return 1 if check(variants) else 0
    shapes = list(ISSUE_SHAPES)
    for d, h in ((64, 32), (128, 16), (96, 32), (256, 16)):
        for sq in (512, 1024, 2048, 4096, 8192, 16384):
            for causal in (False, True):
                shapes.append((16384 // sq, h, h, sq, sq, d, causal))
    if os.environ.get("HOPPER_DEV_SHAPES") == "short":     # issue 11's short rows and a few long ones
        shapes = SHORT_SHAPES
    if os.environ.get("HOPPER_DEV_SHAPES") == "causal":    # d64 and the causal d128 rows of issue11e
        shapes = CAUSAL_SHAPES
    elif ";" in os.environ.get("HOPPER_DEV_SHAPES", ""):    # "b,hq,hk,sq,sk,d,causal;..." (causal 0 / 1)
        shapes = [tuple(int(x) for x in r.split(",")[:6]) + (r.split(",")[6] == "1",)
                  + tuple(int(x) for x in r.split(",")[7:9]) + tuple(float(x) for x in r.split(",")[9:10])
                  for r in os.environ["HOPPER_DEV_SHAPES"].split(";") if r]
    if mode == "time-quick":
        shapes = shapes[:5] + [(4, 32, 32, 4096, 4096, 64, False), (4, 16, 16, 4096, 4096, 128, True)]
    if os.environ.get("HOPPER_DEV_D"):          # only the shapes of one head dim
        dims = {int(x) for x in os.environ["HOPPER_DEV_D"].split(",")}
        shapes = [s for s in shapes if s[5] in dims]
    # "portable" is the portable family itself: dispatch's preference for hopper is switched off here
    # (before 2026-11-26 the column was mha_fwd as dispatched, i.e. hopper where hopper.PREFERRED says so)
    hopper.preferred = lambda p: "bench/hopper_dev.py: the portable family, forced"
    rows = time_shapes(variants, shapes)
    out = os.environ.get("OUT")
    if out:                                     # (the folder made here: call l3 lost its JSON to a missing one)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "hopper_time.json"), "w") as fh:
            json.dump(rows, fh, indent=1)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
