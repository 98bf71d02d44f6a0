"""The planner refuses nonsense at the door (issue 10): every bad argument raises ValueError /
TypeError naming it, and no input yields a plan with a negative grid or an undocumented error."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyhipattn
from pyhipattn.errors import PyhipattnError

OK = ((1, 128, 8, 64), (1, 128, 8, 64), (1, 128, 8, 64))


@pytest.mark.parametrize("shapes,kw,error,match", [
    (((-1, 128, 8, 64), (-1, 128, 8, 64), (-1, 128, 8, 64)), {}, ValueError, r"q_shape is \(-1, 128, 8, 64\); dimension 0 is -1"),
    (((1, -5, 8, 64), OK[1], OK[2]), {}, ValueError, "dimension 1 is -5"),
    (((1, 128, 8, 0), (1, 128, 8, 0), (1, 128, 8, 0)), {}, ValueError, "dimension 3 is 0"),      # was ZeroDivisionError
    (((1, 128, 8, 128), (1, 128, 8, 64), (1, 128, 8, 64)), {}, ValueError, "q has head dim 128 and k 64"),  # was planned
    (((1, 128, 8, 300), (1, 128, 8, 300), (1, 128, 8, 300)), {}, ValueError, "head dim is 300; accepted: 1..256"),  # said 304
    (((1, 128.0, 8, 64), OK[1], OK[2]), {}, TypeError, r"dimension 1 \(128.0\) is not an int"),
    (((1, True, 8, 64), OK[1], OK[2]), {}, TypeError, "is not an int"),
    (((1, 128, 8), OK[1], OK[2]), {}, ValueError, "accepted: 4 dimensions"),
    ((7, OK[1], OK[2]), {}, TypeError, "q_shape is 7"),
    (OK, dict(compute_units=0), ValueError, "compute_units is 0"),
    (OK, dict(compute_units=-1), ValueError, "compute_units is -1"),
    (OK, dict(compute_units=2.5), ValueError, "compute_units is 2.5"),
    (OK, dict(dtype="float32"), TypeError, "dtype is 'float32'; accepted: bf16, fp16"),
    (OK, dict(arch="gfx9000x"), ValueError, "arch"),
    (((100, 8, 64), (100, 8, 64), (100, 8, 64)), dict(cu_seqlens_len=3), ValueError, "max_seqlen_q is None"),
    (((100, 8, 64), (100, 8, 64), (100, 8, 64)), dict(cu_seqlens_len=3, max_seqlen_q=-1, max_seqlen_k=5), ValueError,
     "max_seqlen_q is -1"),
])
def test_bad_planning_arguments_name_themselves(shapes, kw, error, match):
    kw = {"arch": "gfx942", **kw}
    with pytest.raises(error, match=match):
        pyhipattn.plan_mha_fwd(*shapes, **kw)


@pytest.mark.parametrize("dtype,want", [("bf16", "bf16"), ("bfloat16", "bf16"), ("fp16", "fp16"), ("float16", "fp16"),
                                        ("half", "fp16"), (np.float16, "fp16"), (np.dtype("float16"), "fp16"),
                                        (ml_dtypes.bfloat16, "bf16")])
def test_dtype_spellings_users_type(dtype, want):
    d = pyhipattn.plan_mha_fwd(*OK, arch="sm_90a", dtype=dtype, explain=True)
    assert f"_{want}_" in d.plans[0].code_object      # the object built for that dtype


def test_torch_dtypes_are_accepted():
    torch = pytest.importorskip("torch")
    for dt in (torch.bfloat16, torch.float16):
        assert pyhipattn.plan_mha_fwd(*OK, arch="gfx942", dtype=dt)


def test_kvcache_planning_checks_too():
    with pytest.raises(ValueError, match="k_cache_shape is"):
        pyhipattn.plan_mha_fwd_kvcache((1, 1, 8, 64), (4, -16, 2, 64), (4, 16, 2, 64), arch="gfx942",
                                       block_table_shape=(1, 4))
    with pytest.raises(ValueError, match="seqlen_new is -2"):
        pyhipattn.plan_mha_fwd_kvcache((1, 1, 8, 64), (1, 64, 2, 64), (1, 64, 2, 64), arch="gfx942", seqlen_new=-2)
    with pytest.raises(TypeError, match="dtype is 'int8'"):
        pyhipattn.plan_mha_fwd_kvcache((1, 1, 8, 64), (1, 64, 2, 64), (1, 64, 2, 64), arch="gfx942", dtype="int8")


ARCHES = ["gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201", "sm_90a", "sm_80"]
dim = st.one_of(st.integers(-3, 3), st.integers(1, 4096), st.sampled_from([0, 1, 7, 64, 127, 128, 255, 256, 257, 1 << 20]),
                st.floats(-2, 300), st.booleans(), st.none())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(b=dim, sq=dim, sk=dim, hq=dim, hk=dim, d=dim, dv=dim, arch=st.sampled_from(ARCHES),
       dtype=st.sampled_from(["bf16", "fp16", "float16", "fp32", 3, None]), causal=st.booleans(),
       window=st.sampled_from([(-1, -1), (16, 0), (-5, 3), (0, 0), (1.5, 2)]), splits=st.sampled_from([0, 1, 4, -1, 300]),
       cus=st.sampled_from([None, 1, 80, 304, 0, -4]), varlen=st.booleans())
def test_planner_returns_sane_plans_or_documented_errors(b, sq, sk, hq, hk, d, dv, arch, dtype, causal, window, splits,
                                                         cus, varlen):
    try:
        if varlen:
            plans = pyhipattn.plan_mha_fwd((sq, hq, d), (sk, hk, d), (sk, hk, dv), arch=arch, dtype=dtype,
                                           causal=causal, window_size=window, num_splits=splits, compute_units=cus,
                                           cu_seqlens_len=b, max_seqlen_q=sq, max_seqlen_k=sk)
        else:
            plans = pyhipattn.plan_mha_fwd((b, sq, hq, d), (b, sk, hk, d), (b, sk, hk, dv), arch=arch, dtype=dtype,
                                           causal=causal, window_size=window, num_splits=splits, compute_units=cus)
    except (ValueError, TypeError, PyhipattnError):
        return                                    # documented refusals (UnsupportedError is a ValueError too)
    empty = (sq == 0) or (not varlen and b == 0) or (varlen and b == 1)
    for p in plans:
        assert all(isinstance(g, int) and g >= 0 for g in p.grid), p.grid
        assert empty or all(g >= 1 for g in p.grid), (p.grid, b, sq, sk)
        assert all(x >= 1 for x in p.block)
