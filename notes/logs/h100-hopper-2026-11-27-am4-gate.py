"""Planner-only gate check (the lead, session 8, call am4): bench/hopper_dev.py where a variant directory named noc2 (a
copy of the lzA cubin + manifest) plans d64 with the _c2 siblings off (C2_SIBLING_D64 empty, C2_FEW_ROUNDS_D64 0): the
d64 kernel, or its _static / _s4 siblings, on the rows _c2 runs; every other directory goes through the planner unchanged."""
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from pyhipattn.families import hopper  # noqa: E402

sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

_orig = hopper_dev.plan_with_manifest
seen = set()


def plan_with_manifest(family, man, problem, arch, cu, streams, code_object):
    d = os.path.basename(os.path.dirname(code_object))
    saved = (dict(hopper.C2_SIBLING_D64), hopper.C2_FEW_ROUNDS_D64)
    if d == "noc2":
        hopper.C2_SIBLING_D64 = {}
        hopper.C2_FEW_ROUNDS_D64 = 0.0
    try:
        plans = _orig(family, man, problem, arch, cu, streams, code_object)
    finally:
        hopper.C2_SIBLING_D64, hopper.C2_FEW_ROUNDS_D64 = saved
    key = (d, problem.batch, problem.seqlen_k, problem.heads_q, problem.heads_k, problem.causal, problem.head_dim)
    if key not in seen:
        seen.add(key)
        print(f"  plan {d}: {problem.batch}x{problem.seqlen_k} h{problem.heads_q}/{problem.heads_k} causal={problem.causal}"
              f" d{problem.head_dim} -> {plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
