"""Planner-only gate check (the lead, session 7, call g1): bench/hopper_dev.py with kernel choices forced by the variant
directory's name (each a copy of the shipped cubin + manifest):
  fkall_d128 -- d128 problems run the _fk sibling at every length (FK_SIBLING_D128 opened, the _bn176 rule off);
  c2all_d64  -- d64 problems run the _c2 sibling at every length (C2_SIBLING_D64 opened; _c2q3 keeps its causal <= 1024);
every other column (hopper, base_*) goes through the planner unchanged."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from pyhipattn.families import hopper  # noqa: E402

sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

_orig = hopper_dev.plan_with_manifest
ALL = {False: (0, 1 << 30), True: (0, 1 << 30)}
seen = set()


def plan_with_manifest(family, man, problem, arch, cu, streams, code_object):
    d = os.path.basename(os.path.dirname(code_object))
    saved = (dict(hopper.FK_SIBLING_D128), hopper.WIDE_BLOCK_NONCAUSAL, dict(hopper.C2_SIBLING_D64))
    if d == "fkall_d128":
        hopper.FK_SIBLING_D128, hopper.WIDE_BLOCK_NONCAUSAL = dict(ALL), (0, -1)
    elif d == "c2all_d64":
        hopper.C2_SIBLING_D64 = dict(ALL)
    try:
        plans = _orig(family, man, problem, arch, cu, streams, code_object)
    finally:
        hopper.FK_SIBLING_D128, hopper.WIDE_BLOCK_NONCAUSAL, hopper.C2_SIBLING_D64 = saved
    key = (d, problem.batch, problem.seqlen_k, problem.heads_q, problem.heads_k, problem.causal, problem.head_dim)
    if key not in seen:
        seen.add(key)
        print(f"  plan {d}: {problem.batch}x{problem.seqlen_k} h{problem.heads_q}/{problem.heads_k} causal={problem.causal}"
              f" d{problem.head_dim} -> {plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
