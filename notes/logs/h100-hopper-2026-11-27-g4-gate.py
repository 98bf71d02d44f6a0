"""Planner-only check (the lead, session 7, call g4): bench/hopper_dev.py where a variant folder named bal_d64 / bal_d128
(a copy of the shipped cubin + manifest) plans a persistent grid of ceil(tiles / rounds) CTAs, rounds = ceil(tiles / SMs):
as many rounds of tiles as the full grid, every CTA the same number of tiles (e.g. 4096 tiles: 128 CTAs x 32 instead of
132 CTAs, 4 of them 32 and 128 of them 31).  Every other column goes through the planner unchanged."""
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

_orig = hopper_dev.plan_with_manifest
seen = set()


def plan_with_manifest(family, man, problem, arch, cu, streams, code_object):
    d = os.path.basename(os.path.dirname(code_object))
    plans = _orig(family, man, problem, arch, cu, streams, code_object)
    if d.startswith("bal_"):
        obj = next(o for o in man["objects"] if o["kernel"] == plans[0].kernel)
        tiles = problem.batch * problem.heads_q * -(-problem.seqlen_q // obj["block_m"])
        if plans[0].grid[0] == min(tiles, cu) and tiles > cu:
            rounds = -(-tiles // cu)
            plans = _orig(family, man, problem, arch, -(-tiles // rounds), streams, code_object)
    key = (d, problem.batch, problem.seqlen_k, problem.heads_q, problem.causal, problem.head_dim)
    if key not in seen:
        seen.add(key)
        print(f"  plan {d}: {problem.batch}x{problem.seqlen_k} h{problem.heads_q}/{problem.heads_k} causal={problem.causal}"
              f" d{problem.head_dim} -> {plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
