"""Bad input through the real calls: a clear exception naming the argument, nothing written to
``out`` (it holds a sentinel before the call and still does after a synchronize).  Also the
defined results of empty problems, and the 32-bit-offset shape of AITER issue #1957.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)

import pyhipattn  # noqa: E402
from pyhipattn.errors import UnsupportedError  # noqa: E402
from pyhipattn.reference import attention_ref, rel_error  # noqa: E402

pytestmark = pytest.mark.gpu
BF16, FP16 = torch.bfloat16, torch.float16
SENTINEL = 7.0


def rand(*shape, dtype=BF16, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).to(device)


def inputs(b=2, sq=5, sk=7, hq=8, hk=2, d=64, dv=64, dtype=BF16):
    return rand(b, sq, hq, d, dtype=dtype), rand(b, sk, hk, d, dtype=dtype, seed=1), rand(b, sk, hk, dv, dtype=dtype, seed=2)


def sentinel(shape, dtype=BF16, device="cuda"):
    return torch.full(shape, SENTINEL, dtype=dtype, device=device)


def refused(exc, match, out, call):
    """``call()`` raises ``exc`` matching ``match`` and leaves ``out`` untouched."""
    before = out.clone()
    with pytest.raises(exc, match=match):
        call()
    torch.cuda.synchronize()
    assert torch.equal(out, before), "out was written by a call that failed"


OUT = (2, 5, 8, 64)


def test_valid_call_writes_out():
    q, k, v = inputs()
    out = sentinel(OUT)
    assert pyhipattn.mha_fwd(q, k, v, out=out) is out
    ref, _ = attention_ref(q, k, v)
    assert rel_error(out, ref) <= 1e-2


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_unsupported_dtype(name):
    a = dict(zip("qkv", inputs()))
    a[name] = a[name].float()
    out = sentinel(OUT)
    refused(TypeError, rf"^{name} has dtype fp32", out, lambda: pyhipattn.mha_fwd(a["q"], a["k"], a["v"], out=out))


@pytest.mark.parametrize("name", ["k", "v"])
def test_mixed_dtypes(name):
    a = dict(zip("qkv", inputs()))
    a[name] = a[name].half()
    out = sentinel(OUT)
    refused(TypeError, rf"^{name} has dtype fp16 but q has bf16", out,
            lambda: pyhipattn.mha_fwd(a["q"], a["k"], a["v"], out=out))


@pytest.mark.parametrize("kw,match", [
    (dict(kb=3), r"batch sizes differ: q 2, k 3"),
    (dict(vh=4), r"k has 2 heads and v 4"),
    (dict(hk=3), r"k has 3 heads, which does not divide q's 8 heads"),
    (dict(kd=128), r"q has head dim 64 and k 128"),
    (dict(vs=9), r"k has 7 tokens and v 9"),
])
def test_mismatched_shapes(kw, match):
    q, k, v = inputs(hk=kw.get("hk", 2))
    if "kb" in kw:
        k = rand(3, 7, 2, 64)
    if "vh" in kw:
        v = rand(2, 7, 4, 64)
    if "kd" in kw:
        k = rand(2, 7, 2, 128)
    if "vs" in kw:
        v = rand(2, 9, 2, 64)
    out = sentinel(OUT)
    refused(ValueError, match, out, lambda: pyhipattn.mha_fwd(q, k, v, out=out))


@pytest.mark.parametrize("d,dv,match", [(264, 264, r"q/k head dim is 264"), (64, 320, r"v head dim is 320")])
def test_head_dim_over_256(d, dv, match):
    q, k, v = inputs(d=d, dv=dv)
    out = sentinel((2, 5, 8, dv))
    refused(ValueError, match, out, lambda: pyhipattn.mha_fwd(q, k, v, out=out))


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_non_contiguous_head_dim(name):
    a = dict(zip("qkv", inputs()))
    wide = torch.cat([a[name], a[name]], dim=-1)
    a[name] = wide[..., ::2]
    out = sentinel(OUT)
    refused(ValueError, rf"^{name} has stride 2 in its last dim", out,
            lambda: pyhipattn.mha_fwd(a["q"], a["k"], a["v"], out=out))


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_cpu_array(name):
    a = dict(zip("qkv", inputs()))
    a[name] = a[name].cpu()
    out = sentinel(OUT)
    refused(ValueError, rf"^{name} is on the CPU", out, lambda: pyhipattn.mha_fwd(a["q"], a["k"], a["v"], out=out))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 GPUs")
@pytest.mark.parametrize("name", ["k", "v", "out"])
def test_arrays_on_different_gpus(name):
    a = dict(zip("qkv", inputs()))
    out = sentinel(OUT)
    if name == "out":
        out = out.to("cuda:1")
    else:
        a[name] = a[name].to("cuda:1")
    refused(ValueError, rf"^{name} is on GPU 1 but q is on GPU 0", out,
            lambda: pyhipattn.mha_fwd(a["q"], a["k"], a["v"], out=out))


@pytest.mark.parametrize("out_kind,exc,match", [
    ("shape", ValueError, r"^out has shape \(2, 5, 8, 32\); expected \(2, 5, 8, 64\)"),
    ("dtype", TypeError, r"^out has dtype fp16; expected bf16"),
    ("cpu", ValueError, r"^out is on the CPU"),
    ("strided", ValueError, r"^out has strides"),
])
def test_bad_out(out_kind, exc, match):
    q, k, v = inputs()
    out = {"shape": lambda: sentinel((2, 5, 8, 32)), "dtype": lambda: sentinel(OUT, FP16),
           "cpu": lambda: sentinel(OUT, device="cpu"),
           "strided": lambda: sentinel((2, 5, 16, 64))[:, :, ::2]}[out_kind]()
    refused(exc, match, out, lambda: pyhipattn.mha_fwd(q, k, v, out=out))


@pytest.mark.parametrize("kw,exc,match", [
    (dict(num_splits=-1), ValueError, r"^num_splits is -1"),
    (dict(softmax_scale=math.nan), ValueError, r"^softmax_scale is nan"),
    (dict(softmax_scale=-0.5), ValueError, r"^softmax_scale is -0.5"),
    (dict(softcap=-1.0), ValueError, r"^softcap is -1.0"),
    (dict(window_size=(-3, 0)), ValueError, r"^window_size is"),
])
def test_bad_scalars(kw, exc, match):
    q, k, v = inputs()
    out = sentinel(OUT)
    refused(exc, match, out, lambda: pyhipattn.mha_fwd(q, k, v, out=out, **kw))


# -- varlen -------------------------------------------------------------------------------

def packed(lens_q=(5, 0, 6), lens_k=(7, 3, 3)):
    q = rand(sum(lens_q), 8, 64)
    k, v = rand(sum(lens_k), 2, 64, seed=1), rand(sum(lens_k), 2, 64, seed=2)
    return q, k, v


def cu(values):
    return torch.tensor(values, dtype=torch.int32, device="cuda")


@pytest.mark.parametrize("cq,ck,match", [
    ([0, 5, 3, 11], [0, 7, 10, 13], r"cu_seqlens_q\[2\] = 3 is less than cu_seqlens_q\[1\] = 5"),
    ([0, 5, 5, 11], [0, 7, 10, 14], r"cu_seqlens_k\[-1\] is 14 but the packed array has 13 tokens"),
    ([0, 5, 5, 12], [0, 7, 10, 13], r"cu_seqlens_q\[-1\] is 12 but the packed array has 11 tokens"),
    ([0, 2, 2, 11], [0, 7, 10, 13], r"sequence 2 of cu_seqlens_q has 9 tokens, more than max_seqlen 6"),
])
def test_bad_cu_seqlens_with_check_inputs(cq, ck, match):
    q, k, v = packed()
    out = sentinel((11, 8, 64))
    refused(ValueError, match, out,
            lambda: pyhipattn.mha_varlen_fwd(q, k, v, cu(cq), cu(ck), 6, 7, out=out, check_inputs=True))
    with pytest.raises(ValueError, match=match):
        pyhipattn.validate_cu_seqlens(cu(cq), cu(ck), 11, 13, max_seqlen_q=6, max_seqlen_k=7)


def test_good_cu_seqlens_pass_check_inputs():
    q, k, v = packed()
    cq, ck = cu([0, 5, 5, 11]), cu([0, 7, 10, 13])
    out = pyhipattn.mha_varlen_fwd(q, k, v, cq, ck, 6, 7, check_inputs=True)
    pyhipattn.validate_cu_seqlens(cq, ck, 11, 13, max_seqlen_q=6, max_seqlen_k=7)
    assert out.shape == (11, 8, 64)


def test_cu_seqlens_of_the_wrong_dtype():
    q, k, v = packed()
    out = sentinel((11, 8, 64))
    refused(TypeError, r"^cu_seqlens_q has dtype int64", out,
            lambda: pyhipattn.mha_varlen_fwd(q, k, v, cu([0, 5, 5, 11]).long(), cu([0, 7, 10, 13]), 6, 7, out=out))


# -- empty problems -------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 5, 7), (2, 0, 7)], ids=["batch0", "seqlen_q0"])
def test_empty_batch_or_queries_give_empty_results(shape):
    b, sq, sk = shape
    q, k, v = inputs(b=b, sq=sq, sk=sk)
    out, lse = pyhipattn.mha_fwd(q, k, v, causal=True, return_lse=True)
    torch.cuda.synchronize()
    assert out.shape == (b, sq, 8, 64) and out.dtype == BF16
    assert lse.shape == (b, 8, sq) and lse.dtype == torch.float32


@pytest.mark.parametrize("kw", [dict(), dict(causal=True), dict(num_splits=4), dict(window_size=(3, 2))])
def test_no_keys_give_zeros_and_lse_minus_inf(kw):
    q, k, v = inputs(sk=0)
    out = torch.full(OUT, float("nan"), dtype=BF16, device="cuda")
    _, lse = pyhipattn.mha_fwd(q, k, v, out=out, return_lse=True, **kw)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.zeros_like(out))
    assert bool(torch.isneginf(lse).all())


def test_varlen_with_no_sequences_and_empty_sequences():
    q, k, v = packed((0,), (0,))
    out = pyhipattn.mha_varlen_fwd(q, k, v, cu([0]), cu([0]), 0, 0)
    assert out.shape == (0, 8, 64)
    q, k, v = packed((3, 0, 2), (0, 4, 0))
    out = torch.full((5, 8, 64), float("nan"), dtype=BF16, device="cuda")
    _, lse = pyhipattn.mha_varlen_fwd(q, k, v, cu([0, 3, 3, 5]), cu([0, 0, 4, 4]), 3, 4, out=out, return_lse=True)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.zeros_like(out)) and bool(torch.isneginf(lse).all())


# -- offsets beyond 32 bits (AITER issue #1957) --------------------------------------------

AITER_1957 = (8, 75600, 40, 128)     # q, k, v, out: 3.1e9 elements each


def test_32bit_overflow_shape_is_refused_before_launch_or_computed_correctly():
    b, s, h, d = AITER_1957
    from pyhipattn.runtime import get_backend

    info = get_backend().device_info(torch.cuda.current_device())
    shape = (b, s, h, d)
    try:
        pyhipattn.plan_mha_fwd(shape, shape, shape, arch=info.arch, compute_units=info.compute_units, causal=True)
    except UnsupportedError as e:
        assert "32-bit" in str(e) or "32 bits" in str(e), e
        # the real call refuses the same way, before allocating or launching anything (a
        # stride-0 view has the shape without the memory)
        q = torch.zeros(1, 1, h, d, dtype=BF16, device="cuda").expand(shape)
        with pytest.raises(UnsupportedError, match=r"32-bit|32 bits"):
            pyhipattn.mha_fwd(q, q, q, causal=True)
        return
    need = 4 * math.prod(shape) * 2
    free = torch.cuda.mem_get_info()[0]
    if free < need + (4 << 30):
        pytest.skip(f"accepted by the planner; computing it needs {need >> 30} GiB, {free >> 30} GiB free")
    _run_aiter_1957_shape()


def _run_aiter_1957_shape():
    b, s, h, d = AITER_1957
    g = torch.Generator(device="cuda").manual_seed(1957)
    q, k, v = (torch.randn(b, s, h, d, generator=g, device="cuda", dtype=BF16) for _ in range(3))
    out = torch.full((b, s, h, d), float("nan"), dtype=BF16, device="cuda")
    pyhipattn.mha_fwd(q, k, v, causal=True, out=out)
    torch.cuda.synchronize()
    # rows whose offsets are far beyond 2^31 elements, and the first ones
    for bi, hi, rows in ((b - 1, h - 1, slice(s - 4, s)), (b - 1, 0, slice(0, 3)), (0, 0, slice(0, 3)),
                         (b // 2, h // 2, slice(s // 2, s // 2 + 2))):
        qq = q[bi:bi + 1, rows, hi:hi + 1]
        kk, vv = k[bi:bi + 1, :, hi:hi + 1], v[bi:bi + 1, :, hi:hi + 1]
        # causal, bottom-right: query i of the slice is query rows.start + i of s
        ref, _ = attention_ref(qq, kk[:, :rows.stop], vv[:, :rows.stop], causal=True)
        got = out[bi:bi + 1, rows, hi:hi + 1]
        assert not torch.isnan(got).any(), f"rows {rows} of batch {bi} head {hi} were not written"
        assert rel_error(got, ref) <= 1e-2, (bi, hi, rows)
