"""Planner-only gate check (the lead, session 7, call g3): bench/hopper_dev.py with kernel choices forced by the variant
directory's name (each a copy of the shipped cubin + manifest):
  nostatic_d128 / nostatic_d64 -- STATIC_SIBLING_CAUSAL off for that head dim (causal problems the _static sibling runs
                                  get the dynamic kernel or, d128, its _fk sibling);
  nodyn_d96 -- DYN_SIBLING_CAUSAL off (causal d96 on the d96 kernel instead of _dyn);
every other column (hopper, base_*) goes through the planner unchanged."""
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
    saved = (dict(hopper.STATIC_SIBLING_CAUSAL), dict(hopper.DYN_SIBLING_CAUSAL))
    if d == "nostatic_d128":
        hopper.STATIC_SIBLING_CAUSAL = {k: v for k, v in saved[0].items() if k != 128}
    elif d == "nostatic_d64":
        hopper.STATIC_SIBLING_CAUSAL = {k: v for k, v in saved[0].items() if k != 64}
    elif d == "nodyn_d96":
        hopper.DYN_SIBLING_CAUSAL = {}
    try:
        plans = _orig(family, man, problem, arch, cu, streams, code_object)
    finally:
        hopper.STATIC_SIBLING_CAUSAL, hopper.DYN_SIBLING_CAUSAL = saved
    key = (d, problem.batch, problem.seqlen_k, problem.heads_q, problem.heads_k, problem.causal, problem.head_dim)
    if key not in seen:
        seen.add(key)
        print(f"  plan {d}: {problem.batch}x{problem.seqlen_k} h{problem.heads_q}/{problem.heads_k} causal={problem.causal}"
              f" d{problem.head_dim} -> {plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
