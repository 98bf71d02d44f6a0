"""pyhipattn.jax and pyhipattn.xla_ffi on JAX's CPU platform.

The custom call, its attribute, the ctypes handler, the frame decoding, vmap and eval_shape
run for real under ``jax.jit`` on the CPU; only the GPU kernels are replaced by a NumPy
executor (``pyhipattn.jax.cpu_executor``) that reads the buffers XLA hands the handler and
writes the float64 reference into the result buffers.  A wrong pointer, shape, operand order
or attribute shows up as a wrong result.  The GPU path is tests/gpu/test_jax_gpu.py.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not installed (pip install jax): the JAX path is untested here")
jnp = jax.numpy
ml_dtypes = pytest.importorskip("ml_dtypes")

import pyhipattn.jax as pjax  # noqa: E402
from pyhipattn import reference  # noqa: E402

_NP = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}


def _array(ptr: int, shape, dtype) -> np.ndarray:
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = (ctypes.c_char * max(n, 1)).from_address(ptr)
    return np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


SEEN = []


def numpy_executor(problem, call):
    """Compute the call with the reference, from and into XLA's own buffers."""
    SEEN.append((problem, list(call.dims), len(call.rets)))
    p, dt = problem, _NP[problem.dtype]
    if p.kv_layout != "dense":
        return kvcache_executor(p, call, dt)
    q, k, v = (_array(call.args[i], call.dims[i], dt).astype(np.float64) for i in range(3))
    i = 5 if p.varlen else 3
    kw = dict(softmax_scale=p.softmax_scale, window=p.window, softcap=p.softcap)
    if p.sinks:
        kw["sinks"] = _array(call.args[i], call.dims[i], np.float32).astype(np.float64)
        i += 1
    if p.alibi:
        kw["alibi_slopes"] = _array(call.args[i], call.dims[i], np.float32).astype(np.float64)
    if p.varlen:
        cu_q, cu_k = (_array(call.args[j], call.dims[j], np.int32) for j in (3, 4))
        o, lse = reference.attention_varlen_ref(q, k, v, cu_q, cu_k, **kw)
        lse_shape = (p.heads_q, p.total_q)
    else:
        o, lse = reference.attention_ref(q, k, v, **kw)
        lse_shape = (p.batch, p.heads_q, p.seqlen_q)
    out = _array(call.rets[0], o.shape, dt)
    out.setflags(write=True) if out.flags.writeable else None
    np.copyto(out, o.astype(dt))
    if p.return_lse:
        np.copyto(_array(call.rets[1], lse_shape, np.float32), lse.astype(np.float32))


def kvcache_executor(p, call, dt):
    """The kvcache custom call with the reference: reads every operand by its position, writes
    out [, lse] and, when appending, the updated caches into XLA's result buffers."""
    values, extra = pjax.kvcache_pointers(p, call.args, call.rets)
    dims = call.dims
    q = _array(values[0], dims[0], dt).astype(np.float64)
    kc, vc = (_array(a, d, dt).astype(np.float64) for a, d in ((call.args[1], dims[1]), (call.args[2], dims[2])))
    it = iter(dims[3:])
    names = ("cache_seqlens", "block_table", "k_new", "v_new", "sinks", "alibi_slopes")
    types = (np.int32, np.int32, dt, dt, np.float32, np.float32)
    got = {n: _array(ptr, next(it), t) for n, ptr, t in zip(names, extra, types) if ptr}
    f64 = {n: x.astype(np.float64) for n, x in got.items() if n not in ("cache_seqlens", "block_table")}
    lens = got.get("cache_seqlens", np.full(p.batch, p.seqlen_k, np.int32))
    o, lse, k2, v2 = reference.attention_kvcache_ref(
        q, kc, vc, lens, block_table=got.get("block_table"), k_new=f64.get("k_new"), v_new=f64.get("v_new"),
        alibi_slopes=f64.get("alibi_slopes"), sinks=f64.get("sinks"), softmax_scale=p.softmax_scale, window=p.window,
        softcap=p.softcap)
    np.copyto(_array(values[3], o.shape, dt), o.astype(dt))
    if p.return_lse:
        np.copyto(_array(values[4], lse.shape, np.float32), lse.astype(np.float32))
    if p.kv_append:
        np.copyto(_array(values[1], k2.shape, dt), k2.astype(dt))
        np.copyto(_array(values[2], v2.shape, dt), v2.astype(dt))


@pytest.fixture(autouse=True)
def executor(monkeypatch):
    monkeypatch.setattr(pjax, "cpu_executor", numpy_executor)
    SEEN.clear()


def _qkv(b=2, sq=5, sk=7, hq=4, hk=2, d=16, dv=None, dtype=jnp.bfloat16, seed=0):
    r = np.random.default_rng(seed)
    mk = lambda *s: jnp.asarray(r.standard_normal(s).astype(np.float32)).astype(dtype)  # noqa: E731
    return mk(b, sq, hq, d), mk(b, sk, hk, d), mk(b, sk, hk, dv or d)


def _ref(q, k, v, **kw):
    f = lambda x: np.asarray(x.astype(jnp.float32), dtype=np.float64)  # noqa: E731
    kw = {("window" if n == "window_size" else n): v_ for n, v_ in kw.items()}
    extra = {n: np.asarray(kw.pop(n), np.float64) for n in ("sinks", "alibi_slopes") if n in kw}
    return reference.attention_ref(f(q), f(k), f(v), **kw, **extra)


def _close(x, ref, tol=2e-2):
    x = np.asarray(jnp.asarray(x).astype(jnp.float32), np.float64)
    assert x.shape == ref.shape
    assert np.max(np.abs(x - ref)) <= tol * max(1.0, np.max(np.abs(ref))), np.max(np.abs(x - ref))


@pytest.mark.parametrize("kw", [{}, {"causal": True}, {"window_size": (2, 1)}, {"softcap": 5.0},
                                {"softmax_scale": 0.3, "causal": True}])
def test_jit_runs_the_handler_with_xla_buffers(kw):
    q, k, v = _qkv()
    out, lse = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v, return_lse=True, **kw))(q, k, v)
    ro, rl = _ref(q, k, v, **{n: x for n, x in kw.items() if n != "causal"},
                  **({"window": (-1, 0)} if kw.get("causal") else {}))
    _close(out, ro)
    assert lse.dtype == jnp.float32 and lse.shape == (2, 4, 5)
    np.testing.assert_allclose(np.asarray(lse), rl, rtol=1e-5, atol=1e-5)
    (problem, dims, nrets), = SEEN
    assert dims == [(2, 5, 4, 16), (2, 7, 2, 16), (2, 7, 2, 16)] and nrets == 2
    assert problem.causal == bool(kw.get("causal")) and problem.return_lse


def test_composes_with_other_jax_ops_and_fp16():
    q, k, v = _qkv(dtype=jnp.float16, seed=1)

    @jax.jit
    def step(q, k, v):
        o = pjax.mha_fwd(q * 2, k, v, causal=True)
        return (o.astype(jnp.float32) + 1.0).sum(axis=-1)

    ref = _ref(q * 2, k, v, window=(-1, 0))[0].sum(axis=-1) + v.shape[-1]
    _close(step(q, k, v), ref, tol=5e-2)


def test_sinks_alibi_and_gqa_operands_reach_the_handler_in_order():
    q, k, v = _qkv(hq=6, hk=3, seed=2)
    sinks = jnp.asarray(np.linspace(-1, 1, 6), jnp.float32)
    slopes = jnp.asarray(np.linspace(0.1, 0.6, 6), jnp.float32)
    out = jax.jit(lambda *a: pjax.mha_fwd(*a[:3], sinks=a[3], alibi_slopes=a[4]))(q, k, v, sinks, slopes)
    _close(out, _ref(q, k, v, sinks=sinks, alibi_slopes=slopes)[0])
    assert SEEN[0][0].sinks and SEEN[0][0].alibi == 1


def test_vmap_folds_extra_axes_into_the_batch():
    qs, ks, vs = zip(*[_qkv(b=2, seed=s) for s in range(3)])
    q, k, v = jnp.stack(qs), jnp.stack(ks), jnp.stack(vs)
    out = jax.jit(jax.vmap(lambda q, k, v: pjax.mha_fwd(q, k, v, causal=True)))(q, k, v)
    assert out.shape == (3, 2, 5, 4, 16)
    for i in range(3):
        _close(out[i], _ref(qs[i], ks[i], vs[i], window=(-1, 0))[0])
    (problem, dims, _), = SEEN           # one custom call over the folded batch
    assert problem.batch == 6 and dims[0] == (6, 5, 4, 16)


def test_vmap_with_an_unbatched_kv_broadcasts_it():
    qs = [_qkv(seed=s)[0] for s in range(2)]
    _, k, v = _qkv(seed=9)
    out = jax.vmap(lambda q: pjax.mha_fwd(q, k, v))(jnp.stack(qs))
    for i in range(2):
        _close(out[i], _ref(qs[i], k, v)[0])


def test_unusual_head_dims_are_padded_inside_the_computation():
    q, k, v = _qkv(d=12, dv=20, seed=3)
    out = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v))(q, k, v)
    assert out.shape == (2, 5, 4, 20)
    _close(out, _ref(q, k, v)[0])
    assert SEEN[0][1][0] == (2, 5, 4, 16) and SEEN[0][1][2] == (2, 7, 2, 24)


def test_varlen_under_jit():
    r = np.random.default_rng(4)
    lq, lk = [3, 0, 5], [4, 2, 6]
    cu_q, cu_k = np.concatenate([[0], np.cumsum(lq)]), np.concatenate([[0], np.cumsum(lk)])
    q = jnp.asarray(r.standard_normal((8, 4, 16)), jnp.bfloat16)
    k = jnp.asarray(r.standard_normal((12, 2, 16)), jnp.bfloat16)
    v = jnp.asarray(r.standard_normal((12, 2, 16)), jnp.bfloat16)
    f = jax.jit(lambda *a: pjax.mha_varlen_fwd(*a, 5, 6, causal=True, return_lse=True))
    out, lse = f(q, k, v, jnp.asarray(cu_q, jnp.int32), jnp.asarray(cu_k, jnp.int32))
    f64 = lambda x: np.asarray(x.astype(jnp.float32), np.float64)  # noqa: E731
    ro, rl = reference.attention_varlen_ref(f64(q), f64(k), f64(v), cu_q, cu_k, window=(-1, 0))
    _close(out, ro)
    np.testing.assert_allclose(np.asarray(lse), rl, rtol=1e-5, atol=1e-5)
    assert lse.shape == (4, 8) and SEEN[0][0].varlen


def test_eval_shape_needs_no_device_and_no_handler_call():
    sds = jax.ShapeDtypeStruct
    out, lse = jax.eval_shape(lambda q, k, v: pjax.mha_fwd(q, k, v, return_lse=True),
                              sds((3, 9, 8, 64), jnp.bfloat16), sds((3, 11, 2, 64), jnp.bfloat16),
                              sds((3, 11, 2, 32), jnp.bfloat16))
    assert (out.shape, out.dtype, lse.shape, lse.dtype) == ((3, 9, 8, 32), jnp.bfloat16, (3, 8, 9), jnp.float32)
    assert SEEN == []


@pytest.mark.parametrize("args, err, msg", [
    (((2, 5, 4, 16), (2, 7, 3, 16), (2, 7, 3, 16)), ValueError, "does not divide"),
    (((2, 5, 4, 16), (2, 7, 2, 8), (2, 7, 2, 16)), ValueError, "head dim"),
    (((2, 5, 4), (2, 7, 2, 16), (2, 7, 2, 16)), ValueError, "q"),
])
def test_bad_shapes_fail_at_trace_time_with_the_projects_errors(args, err, msg):
    arrays = [jnp.zeros(s, jnp.bfloat16) for s in args]
    with pytest.raises(err, match=msg):
        jax.jit(pjax.mha_fwd)(*arrays)
    assert SEEN == []


def test_bad_dtypes_name_the_argument():
    q, k, v = _qkv()
    with pytest.raises(TypeError, match="q has dtype float32; accepted: bfloat16, float16"):
        pjax.mha_fwd(q.astype(jnp.float32), k, v)
    with pytest.raises(TypeError, match="sinks has dtype bfloat16"):
        pjax.mha_fwd(q, k, v, sinks=jnp.zeros(4, jnp.bfloat16))
    with pytest.raises(TypeError, match="max_seqlen_q is traced"):
        jax.jit(lambda m: pjax.mha_varlen_fwd(q[0], k[0], v[0], jnp.zeros(2, jnp.int32),
                                              jnp.zeros(2, jnp.int32), m, 7))(5)


def test_an_exception_in_the_handler_becomes_a_jax_error_not_a_crash(monkeypatch):
    def boom(problem, call):
        raise ValueError("executor refused")

    monkeypatch.setattr(pjax, "cpu_executor", boom)
    q, k, v = _qkv(seed=5)
    with pytest.raises(Exception, match="ValueError: executor refused"):
        jax.block_until_ready(jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v, causal=True))(q, k, v))
    monkeypatch.setattr(pjax, "cpu_executor", None)
    with pytest.raises(Exception, match="runs on CUDA and ROCm devices"):
        jax.block_until_ready(jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v, softcap=1.0))(q, k, v))


def test_problem_attribute_round_trips():
    q, k, v = _qkv()
    p = pjax._problem(q, k, v, None, (), False, False, dict(softmax_scale=None, causal=True, window_size=(-1, -1),
                                                            softcap=0.0, return_lse=False, num_splits=3))
    assert pjax._decode(pjax._encode(p, 4096).encode()) == (p, 4096)
    with pytest.raises(ValueError, match="unknown Problem fields"):
        pjax._decode(b'{"scratch":0,"nonsense":1}')


def test_counter_bytes_match_the_runtime():
    from pyhipattn.runtime.memory import COUNTER_BYTES

    assert pjax.COUNTER_BYTES == COUNTER_BYTES


@pytest.mark.parametrize("paged", [False, True])
def test_kvcache_under_jit_appends_and_returns_the_updated_caches(paged):
    r = np.random.default_rng(7)
    b, hq, hk, d, page = 3, 4, 2, 16, 16
    lens = np.array([5, 0, 17], np.int32)
    mk = lambda *s: jnp.asarray(r.standard_normal(s), jnp.bfloat16)  # noqa: E731
    q, k_new, v_new = mk(b, 2, hq, d), mk(b, 2, hk, d), mk(b, 2, hk, d)
    if paged:
        kc, vc = mk(8, page, hk, d), mk(8, page, hk, d)
        table = jnp.asarray(r.permutation(8)[:6].reshape(b, 2), jnp.int32)
        extra = {"block_table": table}
    else:
        kc, vc = mk(b, 32, hk, d), mk(b, 32, hk, d)
        extra = {}
    sinks = jnp.asarray(np.linspace(-1, 1, hq), jnp.float32)

    @jax.jit
    def step(q, kc, vc, lens, k_new, v_new, sinks, **extra):
        return pjax.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens, k_new=k_new, v_new=v_new, causal=True,
                                    sinks=sinks, return_lse=True, **extra)

    out, lse, k2, v2 = step(q, kc, vc, jnp.asarray(lens), k_new, v_new, sinks, **extra)
    f = lambda x: np.asarray(jnp.asarray(x).astype(jnp.float32), np.float64)  # noqa: E731
    ro, rl, rk, rv = reference.attention_kvcache_ref(
        f(q), f(kc), f(vc), lens, block_table=None if not paged else np.asarray(table), k_new=f(k_new),
        v_new=f(v_new), window=(-1, 0), sinks=f(sinks))
    _close(out, ro)
    np.testing.assert_allclose(np.asarray(lse), rl, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(f(k2), rk)
    np.testing.assert_array_equal(f(v2), rv)
    (problem, dims, nrets), = SEEN
    assert problem.kv_append == 2 and problem.kv_layout == ("paged" if paged else "cache") and nrets == 4
    assert np.asarray(kc).shape == np.asarray(k2).shape and not np.array_equal(f(kc), f(k2))   # the input is untouched


def test_kvcache_without_append_returns_out_only():
    q = jnp.ones((2, 1, 4, 16), jnp.bfloat16)
    kc = jnp.ones((2, 16, 2, 16), jnp.bfloat16)
    out = jax.jit(lambda q, kc, lens: pjax.mha_fwd_kvcache(q, kc, kc, cache_seqlens=lens))(
        q, kc, jnp.asarray([3, 16], jnp.int32))
    assert out.shape == (2, 1, 4, 16)
    _close(out, np.ones((2, 1, 4, 16)))
    with pytest.raises(ValueError, match="k_new / v_new need cache_seqlens"):
        pjax.mha_fwd_kvcache(q, kc, kc, k_new=kc[:, :1], v_new=kc[:, :1])


def test_unload_all_forgets_the_handlers_prepared_launches(monkeypatch):
    from pyhipattn.runtime import modules

    entry = pjax._Entry(None, 0)
    entry.prepared[0] = object()
    monkeypatch.setitem(pjax._PROBLEMS, b"test-entry", entry)
    assert pjax._forget_kernels in modules._unload_listeners
    for cb in modules._unload_listeners:      # what unload_all runs before unloading modules
        cb()
    assert entry.prepared == {}
