"""Check and time the hopper family's ``_varlen`` kernels on an H100 (issue 11, varlen; branch issue11h).

    python3 bench/hopper_varlen_dev.py check   # tests/gpu/test_hopper_varlen_gpu.py's cases, plan grid and 5 CTAs
    python3 bench/hopper_varlen_dev.py time    # TFLOP/s: hopper forced vs the portable family forced, same inputs

``time`` rows: n sequences of random lengths in [lo, hi] (seeded; q and k lengths equal), packed; TFLOP/s count each
sequence's own FLOPs (causal as half).  ``HOPPER_VARLEN_ROWS="n,lo,hi,hq,hk,d,causal;..."`` replaces the rows.  The
"portable" column is ``mha_varlen_fwd`` with hopper's dispatch preference switched off.  Prints a table last; with
``OUT`` set writes hopper_varlen_time.json there.
"""

from __future__ import annotations

import json
import os
import sys
import time

import torch

import pyhipattn
from pyhipattn.families import hopper
from pyhipattn.tools import bench

ROWS = [  # (n, lo, hi, hq, hk, d, causal)
    (16, 128, 4096, 16, 16, 128, False), (16, 128, 4096, 16, 16, 128, True),
    (16, 128, 4096, 32, 32, 64, False), (16, 128, 4096, 32, 32, 64, True),
    (16, 128, 4096, 32, 32, 96, False), (16, 128, 4096, 32, 32, 96, True),
    (16, 128, 4096, 16, 16, 256, False), (16, 128, 4096, 16, 16, 256, True),
    (16, 128, 4096, 32, 8, 128, True),
    (32, 128, 1024, 16, 16, 128, True), (32, 128, 1024, 16, 16, 128, False),
    (32, 128, 1024, 32, 32, 64, False), (32, 128, 1024, 32, 32, 64, True),
]


def _tests():
    import gpu_tests   # bench/gpu_tests.py (this script's folder is on sys.path)

    return gpu_tests.load("test_hopper_varlen_gpu")


def check(name: str = "hopper") -> int:
    """Every case of the GPU test on the plan's grid, the causal ones also on 5 CTAs; the number of failures."""
    mod = _tests()
    bad = 0
    for c in mod.CASES:
        for cap in (None, 5) if c[6].get("causal") else (None,):
            t0 = time.time()
            try:
                why = mod.check_varlen_case(*c, grid_cap=cap, seed=11)
            except Exception as e:  # noqa: BLE001 -- reported as a failure
                why = f"{type(e).__name__}: {e}"
            bad += why is not None
            print(f"{name:10s} varlen {mod.case_id(c):60s} grid {cap or 'plan':4} "
                  f"{'ok' if why is None else 'FAIL ' + why} ({time.time() - t0:.1f}s)", flush=True)
    print(f"varlen check: {bad} failures", flush=True)
    return bad


def _prepared(qkv, cu, mx: int, causal: bool):
    """The forced hopper plan of a packed bf16 problem, prepared (pointers bound per launch)."""
    from pyhipattn import validate
    from pyhipattn.dlpack import view
    from pyhipattn.prepared import prepare

    vs = [view(x, argname=n) for x, n in zip(qkv, "qkv")]
    p = validate.varlen_problem(*vs, view(cu, argname="cu_seqlens_q"), view(cu, argname="cu_seqlens_k"), mx, mx,
                                softmax_scale=None, causal=causal, window_size=(-1, -1), softcap=0.0,
                                return_lse=False, num_splits=0)
    cus = torch.cuda.get_device_properties(0).multi_processor_count
    return prepare(hopper.plan(p, "sm_90a", cus, 1), 0)


def time_rows(rows: list[tuple]) -> list[dict]:
    mod = _tests()
    hopper.preferred = lambda p: "bench/hopper_varlen_dev.py: the portable family, forced"
    out_rows = []
    for n, lo, hi, hq, hk, d, causal in rows:
        g = torch.Generator().manual_seed(1000 * n + hi + d + causal)
        lens = torch.randint(lo, hi + 1, (n,), generator=g).tolist()
        cu = mod._cu(lens)
        tot, mx = sum(lens), max(lens)
        flops = sum(bench.attn_flops(1, hq, s, s, d, causal) for s in lens)
        sets = [tuple(torch.randn(tot, h, d, device="cuda", dtype=torch.bfloat16) for h in (hq, hk, hk)) for _ in range(2)]
        outs = [torch.empty_like(s[0]) for s in sets]
        prep = _prepared(sets[0], cu, mx, causal)          # planned once: the launch alone is timed

        def run_hopper(i):
            q, k, v = sets[i]
            prep.launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": outs[i].data_ptr(),
                         "cu_seqlens_q": cu.data_ptr(), "cu_seqlens_k": cu.data_ptr()},
                        torch.cuda.current_stream().cuda_stream)
        impls = {
            "hopper": run_hopper,
            "portable": lambda i: pyhipattn.mha_varlen_fwd(*sets[i], cu, cu, mx, mx, out=outs[i], causal=causal),
        }
        row = {"row": [n, lo, hi, hq, hk, d, causal], "tokens": tot, "max": mx}
        for name, f in impls.items():
            try:
                t = bench.gpu_time(f, 2, rep_ms=60.0, max_warmup=50)
                row[name] = flops / (t["ms"] * 1e-3) / 1e12
            except Exception as e:  # noqa: BLE001 -- reported in the row
                row[name] = None
                print(f"  {name} failed on {row['row']}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        out_rows.append(row)
        print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    return out_rows


def table(rows: list[dict]) -> str:
    lines = ["| n, lens, hq/hk, d, causal | tokens (max) | hopper TFLOP/s | portable TFLOP/s | hopper / portable |",
             "|---|---|---|---|---|"]
    for r in rows:
        n, lo, hi, hq, hk, d, causal = r["row"]
        h, p = r.get("hopper"), r.get("portable")
        lines.append(f"| {n}, {lo}-{hi}, {hq}/{hk}, d{d}, {'causal' if causal else 'non-causal'} | {r['tokens']} ({r['max']}) | "
                     f"{h or 0:.0f} | {p or 0:.0f} | {h / p if h and p else float('nan'):.2f} |")
    return "\n".join(lines)


def main() -> int:
    mode = sys.argv[1]
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    if mode == "check":
        return 1 if check() else 0
    rows = ROWS
    if os.environ.get("HOPPER_VARLEN_ROWS"):
        rows = [tuple(int(x) for x in r.split(",")[:6]) + (r.split(",")[6] == "1",)
                for r in os.environ["HOPPER_VARLEN_ROWS"].split(";") if r]
    res = time_rows(rows)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "hopper_varlen_time.json"), "w") as fh:
            json.dump(res, fh, indent=1)
    print(table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
