"""JAX under jit, eager JAX and CuPy (fast path, graph capture) on a GPU.

- ``jax.jit(pyhipattn.jax.mha_fwd)`` equals ``pyhipattn.mha_fwd`` on torch tensors of the same
  data bitwise, over the mha sweep (batch; varlen; split-K forced and heuristic);
- jit + vmap equals the per-element calls bitwise; a jitted function called from 8 threads
  equals the serial results bitwise; eager ``pyhipattn.mha_fwd`` on JAX arrays equals jit;
- XLA with command buffers forced on custom calls (a CUDA graph replayed with new inputs)
  gives the eager bits;
- CuPy: the second call with the same facts hits the fast path, one with different strides
  misses; a ``cupy.cuda.Graph`` capture of a split-K call replays to the eager bits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import pyhipattn  # noqa: E402
from pyhipattn import fastpath  # noqa: E402
from pyhipattn.tools import sweep  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip(f"JAX sees no GPU (devices: {jax.devices()})")
    return jax


def _to_jax(jax, t):
    return jax.dlpack.from_dlpack(t.contiguous())


def _torch_of(x):
    import torch

    return torch.from_dlpack(x)


def _inputs(torch, c):
    dt = getattr(torch, {"bf16": "bfloat16", "fp16": "float16"}[c["dtype"]])
    g = torch.Generator(device="cuda").manual_seed(c["seed"])
    mk = lambda *s: torch.randn(*s, device="cuda", dtype=dt, generator=g)  # noqa: E731
    return mk(c["b"], c["sq"], c["hq"], c["d"]), mk(c["b"], c["sk"], c["hk"], c["d"]), mk(c["b"], c["sk"], c["hk"], c["dv"])


CASES = sweep.make_cases(int(os.environ.get("PYHIPATTN_JAX_CASES", "40")), seed=77)


@pytest.mark.parametrize("splits", [0, 3])
@pytest.mark.parametrize("c", CASES, ids=sweep.case_id)
def test_jit_equals_the_torch_call_bitwise(jax, torch, c, splits):
    import pyhipattn.jax as pjax

    q, k, v = sweep.case_inputs(c)
    kw = dict(sweep.case_kwargs(c), num_splits=splits)
    want_o, want_l = pyhipattn.mha_fwd(q, k, v, **kw)
    jq, jk, jv = (_to_jax(jax, t) for t in (q, k, v))
    got_o, got_l = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v, **kw))(jq, jk, jv)
    jax.block_until_ready(got_o)
    torch.cuda.synchronize()
    assert torch.equal(_torch_of(got_o), want_o)
    assert torch.equal(_torch_of(got_l), want_l)


def test_varlen_jit_equals_the_torch_call_bitwise(jax, torch):
    import pyhipattn.jax as pjax

    lq, lk = [5, 0, 129, 1, 700], [7, 3, 300, 1, 2000]
    cu_q = torch.tensor([0] + list(torch.tensor(lq).cumsum(0)), dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0] + list(torch.tensor(lk).cumsum(0)), dtype=torch.int32, device="cuda")
    q = torch.randn(sum(lq), 8, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(sum(lk), 2, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    for splits in (0, 1, 4):
        kw = dict(causal=True, return_lse=True, num_splits=splits)
        want = pyhipattn.mha_varlen_fwd(q, k, v, cu_q, cu_k, max(lq), max(lk), **kw)
        f = jax.jit(lambda *a: pjax.mha_varlen_fwd(*a, max(lq), max(lk), **kw))
        got = f(*(_to_jax(jax, t) for t in (q, k, v, cu_q, cu_k)))
        jax.block_until_ready(got)
        torch.cuda.synchronize()
        assert all(torch.equal(_torch_of(g), w) for g, w in zip(got, want)), splits


def test_jit_vmap_folds_the_axis_into_the_batch(jax, torch):
    """vmap over an extra axis runs the call on the folded batch: bitwise the torch call on the
    reshaped tensors; with num_splits=1 (no batch-dependent split heuristic) also bitwise each
    element's own call."""
    import pyhipattn.jax as pjax

    jnp = jax.numpy
    c = dict(b=2, sq=33, sk=1000, hq=8, hk=2, d=128, dv=128, dtype="bf16", seed=3)
    elems = [_inputs(torch, dict(c, seed=s)) for s in range(3)]
    stacked = [jnp.stack([_to_jax(jax, e[i]) for e in elems]) for i in range(3)]
    for splits in (0, 1):
        f = jax.jit(jax.vmap(lambda q, k, v: pjax.mha_fwd(q, k, v, causal=True, num_splits=splits)))
        got = _torch_of(jax.block_until_ready(f(*stacked)))
        assert got.shape == (3, 2, 33, 8, 128)
        folded = [torch.cat([e[i] for e in elems]) for i in range(3)]
        assert torch.equal(got.reshape(6, 33, 8, 128), pyhipattn.mha_fwd(*folded, causal=True, num_splits=splits))
        if splits == 1:
            for i, (q, k, v) in enumerate(elems):
                assert torch.equal(got[i], pyhipattn.mha_fwd(q, k, v, causal=True, num_splits=1))


def test_jit_from_8_threads_equals_serial(jax, torch):
    import pyhipattn.jax as pjax

    f = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v, causal=True, return_lse=True))
    data = [[_to_jax(jax, t) for t in _inputs(torch, dict(b=1, sq=1, sk=4096 + 97 * s, hq=32, hk=8, d=128, dv=128,
                                                                   dtype="bf16", seed=s))] for s in range(8)]
    serial = [jax.block_until_ready(f(*d)) for d in data]
    results, errors = {}, []

    def work(i):
        try:
            for _ in range(50):
                results[i] = jax.block_until_ready(f(*data[i]))
        except Exception as e:   # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(8):
        for a, b in zip(results[i], serial[i]):
            assert bool((a == b).all())


def test_eager_jax_arrays_take_the_jit_path_and_give_its_bits(jax, torch):
    import pyhipattn.jax as pjax

    q, k, v = (_to_jax(jax, t) for t in _inputs(torch, dict(b=1, sq=1, sk=5000, hq=32, hk=8, d=128, dv=128,
                                                             dtype="bf16", seed=11)))
    eager = pyhipattn.mha_fwd(q, k, v)
    assert isinstance(eager, jax.Array)
    jit = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v))(q, k, v)
    assert bool((eager == jit).all())
    n = len(fastpath._JAX_FNS)
    pyhipattn.mha_fwd(q, k, v)
    assert len(fastpath._JAX_FNS) == n


def test_xla_command_buffers_replay_the_custom_call(jax):
    """In a fresh process with XLA told to put custom calls into command buffers (CUDA graphs)
    from one command on: repeated steps on the same buffers are replayed from the recorded
    graph (the handler runs fewer times than the steps), and every step's result, and those of
    steps on new inputs (re-recorded), equal the torch call on the same data, split-K included."""
    code = textwrap.dedent("""
        import jax, jax.numpy as jnp, torch
        import pyhipattn, pyhipattn.jax as pjax
        def step(q, k, v):
            q2 = q * 1.5
            o = pjax.mha_fwd(q2, k, v, causal=True, num_splits=4)
            return jnp.tanh(o.astype(jnp.float32)).sum(-1), o, q2
        f = jax.jit(step)
        pjax._ensure_registered()
        for i in range(3):
            ks = jax.random.split(jax.random.PRNGKey(i), 3)
            q = jax.random.normal(ks[0], (2, 3, 16, 128), jnp.bfloat16)
            k = jax.random.normal(ks[1], (2, 4000, 4, 128), jnp.bfloat16)
            v = jax.random.normal(ks[2], (2, 4000, 4, 128), jnp.bfloat16)
            t = [torch.from_dlpack(x) for x in (q * 1.5, k, v)]
            want = pyhipattn.mha_fwd(*t, causal=True, num_splits=4)
            torch.cuda.synchronize()
            before = pjax._HANDLERS["CUDA"].calls
            for _ in range(20):
                s, o, q2 = jax.block_until_ready(f(q, k, v))
                assert torch.equal(torch.from_dlpack(o), want), i
            print("HANDLER_CALLS", pjax._HANDLERS["CUDA"].calls - before)
        print("OK")
    """)
    env = dict(os.environ, XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    if "Unknown flag" in res.stderr or "unknown command line flag" in res.stderr.lower():
        pytest.skip(f"this jaxlib does not know the command-buffer flags: {res.stderr[-300:]}")
    assert res.returncode == 0 and "OK" in res.stdout, res.stdout[-2000:] + res.stderr[-4000:]
    calls = [int(line.split()[1]) for line in res.stdout.splitlines() if line.startswith("HANDLER_CALLS")]
    print("handler executions per 20 steps:", calls)
    assert len(calls) == 3 and all(c < 20 for c in calls), f"XLA ran the handler on every step: {calls}"


@pytest.mark.parametrize("paged", [False, True])
def test_kvcache_jit_with_donated_caches_equals_the_torch_call(jax, torch, paged):
    """mha_fwd_kvcache under jit, the caches donated: out, lse and the appended caches equal the
    torch call's bitwise, and the append happened in the donated buffers (no copy)."""
    import pyhipattn.jax as pjax

    g = torch.Generator(device="cuda").manual_seed(21)
    b, hq, hk, d = 4, 32, 8, 128
    mk = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=g)  # noqa: E731
    lens = torch.tensor([0, 15, 1000, 4000], dtype=torch.int32, device="cuda")
    q, k_new, v_new = mk(b, 3, hq, d), mk(b, 3, hk, d), mk(b, 3, hk, d)
    sinks = torch.linspace(-1, 1, hq, device="cuda")
    if paged:
        kc, vc = mk(300, 64, hk, d), mk(300, 64, hk, d)
        table = torch.randperm(300, device="cuda", generator=g)[:4 * 64].reshape(4, 64).to(torch.int32)
        extra = {"block_table": table}
    else:
        kc, vc = mk(b, 4096, hk, d), mk(b, 4096, hk, d)
        extra = {}
    jx = lambda t: jax.dlpack.from_dlpack(t.clone())  # noqa: E731
    jargs = [jx(t) for t in (q, kc, vc, lens, k_new, v_new, sinks)]
    jextra = {n: jx(t) for n, t in extra.items()}
    kw = dict(causal=True, return_lse=True)
    tk, tv = kc.clone(), vc.clone()
    want_o, want_l = pyhipattn.mha_fwd_kvcache(q, tk, tv, cache_seqlens=lens, k_new=k_new, v_new=v_new, sinks=sinks,
                                               **extra, **kw)
    k_ptr = jargs[1].unsafe_buffer_pointer()

    def step(q, kc, vc, lens, k_new, v_new, sinks, extra):
        return pjax.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens, k_new=k_new, v_new=v_new, sinks=sinks, **extra, **kw)

    out, lse, k2, v2 = jax.block_until_ready(jax.jit(step, donate_argnums=(1, 2))(*jargs, jextra))
    torch.cuda.synchronize()
    assert torch.equal(torch.from_dlpack(out), want_o) and torch.equal(torch.from_dlpack(lse), want_l)
    assert torch.equal(torch.from_dlpack(k2), tk) and torch.equal(torch.from_dlpack(v2), tv)
    assert k2.unsafe_buffer_pointer() == k_ptr           # donated: appended in place


# -- CuPy ---------------------------------------------------------------------------------------

def _cupy_inputs(cupy, torch, c):
    return tuple(cupy.from_dlpack(t) for t in _inputs(torch, c))


def test_cupy_fast_path_hits_and_misses(cupy, torch):
    c = dict(b=2, sq=1, sk=3000, hq=8, hk=2, d=128, dv=128, dtype="bf16", seed=5)
    q, k, v = _cupy_inputs(cupy, torch, c)
    first = pyhipattn.mha_fwd(q, k, v)
    n = len(fastpath.CACHE)
    again = pyhipattn.mha_fwd(q, k, v)               # a hit: nothing new remembered
    assert len(fastpath.CACHE) == n
    assert isinstance(again, cupy.ndarray) and bool((again == first).all())
    kt = cupy.ascontiguousarray(k.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)   # same values, other strides
    other = pyhipattn.mha_fwd(q, kt, v)
    assert len(fastpath.CACHE) == n + 1 and bool((other == first).all())
    tq, tk, tv = (torch.from_dlpack(x) for x in (q, k, v))
    assert torch.equal(torch.from_dlpack(again), pyhipattn.mha_fwd(tq, tk, tv))


@pytest.mark.parametrize("splits", [1, 6])
def test_cupy_graph_capture_replays_to_the_eager_bits(cupy, torch, splits):
    c = dict(b=2, sq=1, sk=7000, hq=16, hk=4, d=128, dv=128, dtype="bf16", seed=9)
    q, k, v = _cupy_inputs(cupy, torch, c)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        pyhipattn.mha_fwd(q, k, v, num_splits=splits, return_lse=True)     # warm up: modules loaded
        stream.synchronize()
        stream.begin_capture()
        out, lse = pyhipattn.mha_fwd(q, k, v, num_splits=splits, return_lse=True)
        graph = stream.end_capture()
        fresh = _cupy_inputs(cupy, torch, dict(c, seed=10))
        for dst, src in zip((q, k, v), fresh):
            dst[...] = src
        graph.launch(stream)
        want_o, want_l = pyhipattn.mha_fwd(*fresh, num_splits=splits, return_lse=True)
        stream.synchronize()
    assert bool((out == want_o).all()) and bool((lse == want_l).all())
