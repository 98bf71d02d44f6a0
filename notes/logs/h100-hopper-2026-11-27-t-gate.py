"""bench/hopper_dev.py with the d64 _c2 sibling forced by the variant directory's name (helper-40, issue11t; after
helper r's r-gate.py and the lead's c2q.sh): a variant dir named k_c2_d64 (a copy of the shipped cubin + manifest) runs
fwd_<dt>_d64_c2 on every d64 row (hopper.C2_SIBLING_D64 opened to every length while that dir's plan is made); every
other column (the hopper column, other variants) goes through the planner unchanged."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from pyhipattn.families import hopper  # noqa: E402

sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

_orig_plan = hopper_dev.plan_with_manifest
_gate = dict(hopper.C2_SIBLING_D64)


def plan_with_manifest(family, man, problem, arch, cu, streams, code_object):
    forced = re.search(r"(?:^|/)k_c2_d64$", os.path.dirname(code_object)) is not None
    if forced:
        hopper.C2_SIBLING_D64 = {False: (0, 1 << 30), True: (0, 1 << 30)}
    try:
        plans = _orig_plan(family, man, problem, arch, cu, streams, code_object)
    finally:
        hopper.C2_SIBLING_D64 = dict(_gate)
    if forced:
        print(f"  gate c2: {problem.batch}x{problem.seqlen_k} h{problem.heads_q}/{problem.heads_k} causal={problem.causal}"
              f" d{problem.head_dim} -> {plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
