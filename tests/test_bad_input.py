"""Bad input to mha_fwd / mha_varlen_fwd, checked without a GPU.

Each refusal must be a clear exception that names the argument.  These tests drive the same
checks the API runs (``pyhipattn.validate``, ``plan_mha_fwd``) with array stand-ins that carry
only shape, strides, dtype and device; tests/gpu/test_bad_input_gpu.py makes the real calls and
checks that nothing was written to ``out``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyhipattn
from pyhipattn import validate
from pyhipattn.errors import UnsupportedError

CUDA = 2


class Fake:
    """An array's facts: what validate reads of a TensorView."""

    def __init__(self, shape, dtype="bf16", strides=None, device_type=CUDA, device_id=0):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.strides = tuple(strides) if strides is not None else validate._compact(self.shape)
        self.device_type, self.device_id, self.ptr = device_type, device_id, 0


def batch(q, k, v, **kw):
    args = dict(softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, return_lse=False,
                num_splits=0)
    args.update(kw)
    return validate.batch_problem(q, k, v, **args)


def varlen(q, k, v, cu_q, cu_k, max_q=8, max_k=8, **kw):
    args = dict(softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, return_lse=False,
                num_splits=0)
    args.update(kw)
    return validate.varlen_problem(q, k, v, cu_q, cu_k, max_q, max_k, **args)


def qkv(b=2, sq=5, sk=7, hq=8, hk=2, d=64, dv=64, dtype="bf16"):
    return Fake((b, sq, hq, d), dtype), Fake((b, sk, hk, d), dtype), Fake((b, sk, hk, dv), dtype)


def test_valid_input_is_accepted():
    p = batch(*qkv())
    assert (p.batch, p.seqlen_q, p.seqlen_k, p.heads_q, p.heads_k, p.head_dim) == (2, 5, 7, 8, 2, 64)


# -- dtypes ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_unsupported_dtype_names_the_array(name):
    arrays = dict(zip("qkv", qkv()))
    for n in "qkv":
        arrays[n].dtype = "fp32" if name == "q" else "bf16"
    arrays[name].dtype = "fp32"
    with pytest.raises(TypeError, match=rf"^{name} has dtype fp32; accepted: bf16, fp16"):
        batch(arrays["q"], arrays["k"], arrays["v"])


@pytest.mark.parametrize("name", ["k", "v"])
def test_mixed_dtypes_name_the_array(name):
    arrays = dict(zip("qkv", qkv()))
    arrays[name].dtype = "fp16"
    with pytest.raises(TypeError, match=rf"^{name} has dtype fp16 but q has bf16"):
        batch(arrays["q"], arrays["k"], arrays["v"])


# -- shapes ------------------------------------------------------------------------------

def test_mismatched_batch_names_the_arrays():
    q, k, v = qkv()
    with pytest.raises(ValueError, match=r"batch sizes differ: q 2, k 3, v 2"):
        batch(q, Fake((3, 7, 2, 64)), v)


def test_mismatched_kv_heads():
    q, k, _ = qkv()
    with pytest.raises(ValueError, match=r"k has 2 heads and v 4"):
        batch(q, k, Fake((2, 7, 4, 64)))


def test_mismatched_kv_tokens():
    q, k, _ = qkv()
    with pytest.raises(ValueError, match=r"k has 7 tokens and v 9"):
        batch(q, k, Fake((2, 9, 2, 64)))


def test_heads_q_not_a_multiple_of_heads_k():
    with pytest.raises(ValueError, match=r"k has 3 heads, which does not divide q's 8 heads \(GQA needs hq % hk == 0\)"):
        batch(*qkv(hk=3))


def test_zero_kv_heads():
    with pytest.raises(ValueError, match=r"k has 0 heads"):
        batch(*qkv(hk=0))


def test_mismatched_head_dims():
    q, _, v = qkv()
    with pytest.raises(ValueError, match=r"q has head dim 64 and k 128"):
        batch(q, Fake((2, 7, 2, 128)), v)


@pytest.mark.parametrize("d,dv,which", [(264, 264, "q/k head dim is 264"), (64, 320, "v head dim is 320"),
                                        (0, 0, "q/k head dim is 0")])
def test_head_dim_out_of_range(d, dv, which):
    with pytest.raises(ValueError, match=rf"{which}; accepted: 1\.\.256"):
        batch(*qkv(d=d, dv=dv))


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_wrong_rank_names_the_array(name):
    arrays = dict(zip("qkv", qkv()))
    arrays[name] = Fake((2, 7, 64))
    with pytest.raises(ValueError, match=rf"^{name} has shape \(2, 7, 64\); expected 4 dims"):
        batch(arrays["q"], arrays["k"], arrays["v"])


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_non_contiguous_head_dim_names_the_array(name):
    arrays = dict(zip("qkv", qkv()))
    a = arrays[name]
    arrays[name] = Fake(a.shape, strides=a.strides[:3] + (2,))
    with pytest.raises(ValueError, match=rf"^{name} has stride 2 in its last dim; the head dim must be contiguous"):
        batch(arrays["q"], arrays["k"], arrays["v"])


# -- devices -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("device_type", [1, 3])      # CPU, pinned host
def test_host_arrays_are_refused_by_name(name, device_type):
    views = dict(zip("qkv", qkv()))
    views[name].device_type = device_type
    with pytest.raises(ValueError, match=rf"^{name} is on the CPU; pyhipattn needs GPU arrays"):
        validate.check_devices(views, (CUDA,))


def test_rocm_array_on_a_cuda_process_is_refused():
    views = dict(zip("qkv", qkv()))
    views["v"].device_type = 10
    with pytest.raises(ValueError, match=r"^v is on device type 10"):
        validate.check_devices(views, (CUDA,))


@pytest.mark.parametrize("name", ["k", "v"])
def test_arrays_on_different_gpus_are_refused_by_name(name):
    views = dict(zip("qkv", qkv()))
    views[name].device_id = 1
    with pytest.raises(ValueError, match=rf"^{name} is on GPU 1 but q is on GPU 0; all arrays must be on one GPU"):
        validate.check_devices(views, (CUDA,))


# -- out= --------------------------------------------------------------------------------

OUT_SHAPE = (2, 5, 8, 64)


def test_out_of_the_right_shape_is_accepted():
    validate.check_out(Fake(OUT_SHAPE), OUT_SHAPE, "bf16", 0, (CUDA,))


def test_out_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"^out has shape \(2, 5, 8, 32\); expected \(2, 5, 8, 64\)"):
        validate.check_out(Fake((2, 5, 8, 32)), OUT_SHAPE, "bf16", 0, (CUDA,))


def test_out_of_the_wrong_dtype():
    with pytest.raises(TypeError, match=r"^out has dtype fp16; expected bf16"):
        validate.check_out(Fake(OUT_SHAPE, "fp16"), OUT_SHAPE, "bf16", 0, (CUDA,))


def test_out_on_the_cpu():
    with pytest.raises(ValueError, match=r"^out is on the CPU"):
        validate.check_out(Fake(OUT_SHAPE, device_type=1), OUT_SHAPE, "bf16", 0, (CUDA,))


def test_out_on_another_gpu():
    with pytest.raises(ValueError, match=r"^out is on GPU 1 but q is on GPU 0"):
        validate.check_out(Fake(OUT_SHAPE, device_id=1), OUT_SHAPE, "bf16", 0, (CUDA,))


def test_out_not_contiguous():
    strided = Fake(OUT_SHAPE, strides=(5 * 16 * 64, 16 * 64, 64, 1))
    with pytest.raises(ValueError, match=r"^out has strides .*; expected a contiguous array"):
        validate.check_out(strided, OUT_SHAPE, "bf16", 0, (CUDA,))


# -- scalars -----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [-1, -8])
def test_negative_num_splits(n):
    with pytest.raises(ValueError, match=rf"^num_splits is {n}; accepted: 0 \(heuristic\)"):
        batch(*qkv(), num_splits=n)


@pytest.mark.parametrize("n", [1.5, "2", True, None])
def test_num_splits_not_an_int(n):
    with pytest.raises(TypeError, match=r"^num_splits is .*; accepted: an int"):
        batch(*qkv(), num_splits=n)


@pytest.mark.parametrize("scale", [math.nan, -0.125, math.inf, -math.inf])
def test_bad_softmax_scale(scale):
    with pytest.raises(ValueError, match=r"^softmax_scale is .*; accepted: None \(1/sqrt\(head_dim\)\) or a finite float >= 0"):
        batch(*qkv(), softmax_scale=scale)


def test_softmax_scale_not_a_number():
    with pytest.raises(TypeError, match=r"^softmax_scale is 'big'"):
        batch(*qkv(), softmax_scale="big")


@pytest.mark.parametrize("softcap", [-1.0, math.nan, math.inf])
def test_bad_softcap(softcap):
    with pytest.raises(ValueError, match=r"^softcap is"):
        batch(*qkv(), softcap=softcap)


@pytest.mark.parametrize("window", [(-2, 0), (0, -5), (1,), "ab", None])
def test_bad_window(window):
    with pytest.raises((ValueError, TypeError), match=r"^window_size is"):
        batch(*qkv(), window_size=window)


# -- varlen ------------------------------------------------------------------------------

def packed(tq=11, tk=13, hq=8, hk=2, d=64, dtype="bf16"):
    return Fake((tq, hq, d), dtype), Fake((tk, hk, d), dtype), Fake((tk, hk, d), dtype)


def test_varlen_cu_seqlens_must_be_int32():
    with pytest.raises(TypeError, match=r"^cu_seqlens_q has dtype int64; accepted: int32"):
        varlen(*packed(), Fake((3,), "int64"), Fake((3,), "int32"))


def test_varlen_cu_seqlens_must_have_equal_lengths():
    with pytest.raises(ValueError, match=r"^cu_seqlens_q has 3 entries and cu_seqlens_k 4"):
        varlen(*packed(), Fake((3,), "int32"), Fake((4,), "int32"))


def test_varlen_cu_seqlens_must_be_1d_and_contiguous():
    with pytest.raises(ValueError, match=r"^cu_seqlens_k has shape \(3, 1\)"):
        varlen(*packed(), Fake((3,), "int32"), Fake((3, 1), "int32"))
    with pytest.raises(ValueError, match=r"^cu_seqlens_q must be contiguous"):
        varlen(*packed(), Fake((3,), "int32", strides=(2,)), Fake((3,), "int32"))


@pytest.mark.parametrize("name,value", [("max_seqlen_q", -1), ("max_seqlen_k", 2.5), ("max_seqlen_q", None)])
def test_varlen_max_seqlen_must_be_a_non_negative_int(name, value):
    kw = {"max_q": 8, "max_k": 8}
    kw["max_q" if name == "max_seqlen_q" else "max_k"] = value
    with pytest.raises(ValueError, match=rf"^{name} is"):
        varlen(*packed(), Fake((3,), "int32"), Fake((3,), "int32"), **kw)


def test_varlen_more_tokens_than_int32_cu_seqlens_can_address():
    q, k, v = packed(tq=2**31)
    with pytest.raises(ValueError, match=r"^q has 2147483648 tokens; int32 cu_seqlens address at most"):
        varlen(q, k, v, Fake((3,), "int32"), Fake((3,), "int32"))


def test_cu_seqlens_values_that_are_fine():
    validate.validate_cu_seqlens([0, 5, 5, 11], [0, 7, 7, 13], 11, 13, max_seqlen_q=6, max_seqlen_k=7)


@pytest.mark.parametrize("cu,total,maxlen,msg", [
    ([0, 5, 3, 11], 11, None, r"cu_seqlens_q\[2\] = 3 is less than cu_seqlens_q\[1\] = 5; cu_seqlens must be sorted"),
    ([1, 5, 11], 11, None, r"cu_seqlens_q\[0\] is 1; cu_seqlens are prefix sums starting at 0"),
    ([0, 5, 12], 11, None, r"cu_seqlens_q\[-1\] is 12 but the packed array has 11 tokens"),
    ([0, 5, 10], 11, None, r"cu_seqlens_q\[-1\] is 10 but the packed array has 11 tokens"),
    ([0, -2, 11], 11, None, r"cu_seqlens_q\[1\] = -2 is less than"),
    ([0, 2, 11], 11, 8, r"sequence 1 of cu_seqlens_q has 9 tokens, more than max_seqlen 8"),
    ([], 0, None, r"cu_seqlens_q is empty"),
])
def test_bad_cu_seqlens_values_are_named(cu, total, maxlen, msg):
    with pytest.raises(ValueError, match=msg):
        validate.check_cu_seqlens("cu_seqlens_q", cu, total, maxlen)


def test_validate_cu_seqlens_reads_host_arrays_through_dlpack():
    cu_q = np.array([0, 5, 3, 11], dtype=np.int32)
    cu_k = np.array([0, 7, 7, 13], dtype=np.int32)
    with pytest.raises(ValueError, match=r"cu_seqlens_q\[2\] = 3 is less than"):
        validate.validate_cu_seqlens(cu_q, cu_k, 11, 13)
    validate.validate_cu_seqlens(np.array([0, 5, 11], np.int32), np.array([0, 6, 13], np.int32), 11, 13)


def test_validate_cu_seqlens_checks_k_too():
    with pytest.raises(ValueError, match=r"cu_seqlens_k\[-1\] is 12 but the packed array has 13 tokens"):
        validate.validate_cu_seqlens([0, 5, 11], [0, 6, 12], 11, 13)


def test_validate_cu_seqlens_refuses_unequal_lengths_and_wrong_dtypes():
    with pytest.raises(ValueError, match=r"cu_seqlens_q has 3 entries and cu_seqlens_k 4"):
        validate.validate_cu_seqlens([0, 5, 11], [0, 6, 6, 13], 11, 13)
    with pytest.raises(TypeError, match=r"cu_seqlens_q has shape \(3,\) and dtype int64; expected a 1-D int32"):
        validate.validate_cu_seqlens(np.array([0, 5, 11]), [0, 6, 13], 11, 13)


def test_validate_cu_seqlens_is_exported():
    assert pyhipattn.validate_cu_seqlens is validate.validate_cu_seqlens


# -- empty problems and 32-bit offsets: what the planner decides --------------------------

@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
@pytest.mark.parametrize("shape", [(0, 5, 7), (2, 0, 7)])
def test_empty_batch_or_queries_launch_nothing(arch, shape):
    b, sq, sk = shape
    plans = pyhipattn.plan_mha_fwd((b, sq, 8, 64), (b, sk, 2, 64), (b, sk, 2, 64), arch=arch, return_lse=True)
    assert all(0 in p.grid for p in plans)     # the API drops launches with an empty grid


def test_no_keys_still_launches_to_write_zeros_and_minus_inf():
    # seqlen_k = 0: every row sees no key, so the kernel must still run to write out = 0 and
    # lse = -inf (checked on the GPU by tests/gpu/test_bad_input_gpu.py)
    plans = pyhipattn.plan_mha_fwd((2, 5, 8, 64), (2, 0, 2, 64), (2, 0, 2, 64), arch="sm_90a", return_lse=True)
    assert len(plans) == 1 and 0 not in plans[0].grid


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "gfx942", "gfx950", "gfx1100"])
def test_aiter_1957_shape_is_planned_or_refused_before_launch(arch):
    # AITER issue #1957: b=8, h=40, s=75600, d=128: q has 3.1e9 elements, beyond 32-bit offsets.
    # Planning must either succeed (the kernels use 64-bit offsets where products can exceed
    # 2^31; tests/gpu/test_bad_input_gpu.py checks the numbers) or refuse with the reason.
    shape = (8, 75600, 40, 128)
    try:
        plans = pyhipattn.plan_mha_fwd(shape, shape, shape, arch=arch)
    except UnsupportedError as e:
        assert "32-bit" in str(e) or "32 bits" in str(e)
    else:
        assert plans
