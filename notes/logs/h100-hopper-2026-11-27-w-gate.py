"""(issue11w: kernel_name takes compute_units since call st, passed through)
bench/hopper_dev.py with the d128 kernel forced by the variant directory's name (helper r, gate timing):
a variant dir named k_<sfx>_d128 (a copy of the shipped cubin + manifest) runs fwd_<dt>_d128<_sfx> on every d128 row
(sfx: fk, base = the d128 kernel itself, bn176 (non-causal rows only), static); other problems (d64, softcap, varlen,
windows, the hopper column) go through the planner unchanged."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from pyhipattn.families import hopper  # noqa: E402

_orig_kernel_name = hopper.kernel_name
FORCE = [None]


def kernel_name(p, names, compute_units=None):
    name = _orig_kernel_name(p, names, compute_units)
    sfx = FORCE[0]
    if sfx is None or p.head_dim != 128 or p.varlen or p.softcap > 0 or p.has_window:
        return name
    if sfx == "bn176" and p.causal:
        return name
    base = hopper.variant_name(p.dtype, p.head_dim)
    forced = base + ("" if sfx == "base" else "_" + sfx)
    assert forced in names, forced
    return forced


hopper.kernel_name = kernel_name
sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

_orig_plan = hopper_dev.plan_with_manifest


def plan_with_manifest(family, man, problem, arch, cu, streams, code_object):
    m = re.search(r"(?:^|/)k_([a-z0-9]+)_d128$", os.path.dirname(code_object))
    FORCE[0] = m[1] if m else None
    try:
        plans = _orig_plan(family, man, problem, arch, cu, streams, code_object)
    finally:
        FORCE[0] = None
    if m:
        print(f"  gate {m[1]}: {problem.batch}x{problem.seqlen_k} causal={problem.causal} d{problem.head_dim} -> "
              f"{plans[0].kernel} grid {plans[0].grid}", flush=True)
    return plans


hopper_dev.plan_with_manifest = plan_with_manifest
sys.exit(hopper_dev.main())
