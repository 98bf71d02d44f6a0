"""Frameworks on a GPU: torch custom ops (torch.compile, CUDA graphs), streams, CuPy, JAX.

- torch.compile(fullgraph=True) of code calling torch.ops.pyhipattn.* equals eager, bitwise;
- CUDA graph capture (capture_error_mode "global": any sync or unsafe call from any thread
  fails the capture) and replay with new inputs copied into the static tensors equals eager,
  bitwise, split-K included; the captured graph holds kernel nodes only (no allocation, free,
  host or copy node), and pyhipattn's own per-stream workspaces did not grow or appear;
- capture without warm-up raises GraphCaptureError before any code object is loaded;
- work is queued on torch's current stream: a side stream that is still busy (a long
  ``torch.cuda._sleep``) when its inputs are written gives the right result read on that stream;
- CuPy arrays on CuPy's current (non-blocking) stream in and out, the same way;
- JAX eager arrays in and out zero-copy: the input pointers are the ones JAX sees, and the
  output's ``unsafe_buffer_pointer()`` is the buffer pyhipattn exported.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)

import pyhipattn  # noqa: E402
import pyhipattn.torch_ops as tops  # noqa: E402
from pyhipattn.reference import attention_ref, rel_error  # noqa: E402
from pyhipattn.runtime import memory  # noqa: E402

pytestmark = pytest.mark.gpu
REPO = Path(__file__).resolve().parents[2]
SLEEP_CYCLES = 200_000_000          # ~0.1 s on a 1.7-2 GHz GPU: the side stream is busy when we launch


def rand(*shape, seed=0, dtype=torch.bfloat16, device="cuda"):
    g = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(*shape, generator=g, device=device, dtype=dtype)


def qkv(b=2, sq=37, sk=300, hq=8, hk=2, d=64, seed=0, dtype=torch.bfloat16):
    return (rand(b, sq, hq, d, seed=seed, dtype=dtype), rand(b, sk, hk, d, seed=seed + 1, dtype=dtype),
            rand(b, sk, hk, d, seed=seed + 2, dtype=dtype))


def ragged(lens_q, lens_k, hq=8, hk=2, d=64, seed=0):
    cq = torch.tensor([0] + torch.tensor(lens_q).cumsum(0).tolist(), dtype=torch.int32, device="cuda")
    ck = torch.tensor([0] + torch.tensor(lens_k).cumsum(0).tolist(), dtype=torch.int32, device="cuda")
    q = rand(sum(lens_q), hq, d, seed=seed)
    k, v = rand(sum(lens_k), hk, d, seed=seed + 1), rand(sum(lens_k), hk, d, seed=seed + 2)
    return q, k, v, cq, ck


def workspace_state():
    return {key: (ws.nbytes, ws.grows) for key, ws in memory._workspaces.items()}


# -- torch.compile ------------------------------------------------------------------------

@pytest.mark.parametrize("splits", [1, 0, 4])
def test_torch_compile_fullgraph_equals_eager(splits):
    def attend(q, k, v):
        o, lse = torch.ops.pyhipattn.mha_fwd(q * 1.0, k, v, causal=True, return_lse=True, num_splits=splits)
        return o.float() * 2.0, lse + 1.0

    q, k, v = qkv(b=1, sq=3, sk=2000, seed=splits)
    eager = attend(q, k, v)
    compiled = torch.compile(attend, fullgraph=True)(q, k, v)
    torch.cuda.synchronize()
    for e, c in zip(eager, compiled):
        assert torch.equal(e, c)
    ref, _ = attention_ref(q, k, v, causal=True)
    assert rel_error(eager[0] / 2, ref) <= 1e-2


def test_torch_compile_of_a_module_with_varlen_equals_eager():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(64, 64, dtype=torch.bfloat16, device="cuda")

        def forward(self, q, k, v, cq, ck):
            o = tops.mha_varlen_fwd(q, k, v, cq, ck, 129, 300, causal=True)
            return self.proj(o)

    q, k, v, cq, ck = ragged([5, 0, 129, 1], [7, 3, 300, 1])
    m = Block()
    with torch.no_grad():
        eager = m(q, k, v, cq, ck)
        compiled = torch.compile(m, fullgraph=True)(q, k, v, cq, ck)
    torch.cuda.synchronize()
    torch.testing.assert_close(compiled, eager, rtol=1e-2, atol=1e-2)   # the Linear may differ by kernel choice


def test_custom_op_returns_an_empty_lse_unless_asked():
    q, k, v = qkv()
    out, lse = torch.ops.pyhipattn.mha_fwd(q, k, v)
    assert lse.shape == (0,) and lse.dtype == torch.float32 and lse.device == q.device
    out2, lse2 = torch.ops.pyhipattn.mha_fwd(q, k, v, return_lse=True)
    assert torch.equal(out, out2) and lse2.shape == (2, 8, 37)


def test_custom_op_opcheck():
    q, k, v = qkv(sq=5, sk=40)
    torch.library.opcheck(torch.ops.pyhipattn.mha_fwd.default, (q, k, v), {"causal": True, "return_lse": True})


# -- CUDA graphs --------------------------------------------------------------------------

def _graph_node_types(g) -> list[int] | None:
    """Node types of a captured torch CUDAGraph (kept with keep_graph=True), or None when this
    torch cannot give the raw graph."""
    try:
        raw = g.raw_cuda_graph()
    except Exception:
        return None
    from cuda.bindings import driver as d

    graph = d.CUgraph(raw)
    err, _, n = d.cuGraphGetNodes(graph, 0)      # cuda-bindings: (hGraph, numNodes)
    assert not err
    err, nodes, n = d.cuGraphGetNodes(graph, n)
    assert not err
    types = []
    for node in nodes[:n]:
        err, t = d.cuGraphNodeGetType(node)
        assert not err
        types.append(int(t))
    return types


def _new_graph():
    try:
        return torch.cuda.CUDAGraph(keep_graph=True)
    except TypeError:   # older torch
        return torch.cuda.CUDAGraph()


@pytest.mark.parametrize("mode", ["global", "thread_local"])
@pytest.mark.parametrize("case", [
    dict(b=2, sq=37, sk=300, splits=1),          # one kernel
    dict(b=1, sq=1, sk=4097, splits=4),          # split-K: producer + combine with graph-owned scratch
    dict(b=1, sq=1, sk=8000, splits=0),          # whatever the heuristic picks
], ids=["nosplit", "split4", "heuristic"])
def test_cuda_graph_capture_and_replay_equal_eager(case, mode):
    splits = case["splits"]
    static = list(qkv(b=case["b"], sq=case["sq"], sk=case["sk"], hq=8, hk=1, d=128, seed=10))

    def step():
        return tops.mha_fwd(*static, causal=True, return_lse=True, num_splits=splits)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):                # warm-up: loads the code objects
        step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    before = workspace_state()
    g = _new_graph()
    with torch.cuda.graph(g, capture_error_mode=mode):
        out, lse = step()
    assert workspace_state() == before, "capture used or grew pyhipattn's shared workspace"
    types = _graph_node_types(g)
    if types is not None:   # CUgraphNodeType: 0 kernel, 5 empty; 1 memcpy 2 memset 3 host 10 alloc 11 free
        assert types.count(0) >= 1 and set(types) <= {0, 5}, f"graph nodes besides kernels: {types}"
    for trial in range(3):
        fresh = qkv(b=case["b"], sq=case["sq"], sk=case["sk"], hq=8, hk=1, d=128, seed=100 + trial)
        for s, f in zip(static, fresh):
            s.copy_(f)
        g.replay()
        want_out, want_lse = tops.mha_fwd(*fresh, causal=True, return_lse=True, num_splits=splits)
        torch.cuda.synchronize()
        assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
        ref, _ = attention_ref(*fresh, causal=True)
        assert rel_error(out, ref) <= 1e-2
    assert workspace_state() == before


def test_cuda_graph_capture_of_varlen_equals_eager():
    q, k, v, cq, ck = ragged([5, 0, 129, 1], [7, 3, 300, 1])
    static = [q, k, v]

    def step():
        return tops.mha_varlen_fwd(*static, cq, ck, 129, 300, causal=True)

    step()
    torch.cuda.synchronize()
    g = _new_graph()
    with torch.cuda.graph(g):
        out = step()
    fresh = ragged([5, 0, 129, 1], [7, 3, 300, 1], seed=5)
    for s, f in zip(static, fresh[:3]):
        s.copy_(f)
    g.replay()
    want = step()
    torch.cuda.synchronize()
    assert torch.equal(out, want)


def test_capture_without_warm_up_raises_before_loading():
    # A fresh process, so that nothing is loaded yet.
    code = textwrap.dedent("""
        import torch, pyhipattn, pyhipattn.torch_ops as tops
        from pyhipattn.runtime import modules
        q = torch.randn(1, 16, 8, 64, device="cuda", dtype=torch.float16)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g):
                tops.mha_fwd(q, q, q, causal=True)
        except pyhipattn.GraphCaptureError as e:
            assert "warm" in str(e), e
            assert modules.stats()["loads"] == {}, modules.stats()
            print("REFUSED")
        tops.mha_fwd(q, q, q, causal=True)          # the process is still usable
        torch.cuda.synchronize()
        print("OK")
    """)
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "REFUSED" in res.stdout and "OK" in res.stdout, res.stdout + res.stderr


# -- streams ------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", ["api", "custom_op"])
def test_runs_on_torchs_current_stream(entry):
    src = qkv(b=2, sq=64, sk=500, seed=3)
    q, k, v = (torch.zeros_like(t) for t in src)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)          # the inputs are written only after this
        for dst, s in zip((q, k, v), src):
            dst.copy_(s)
        out = pyhipattn.mha_fwd(q, k, v, causal=True) if entry == "api" else tops.mha_fwd(q, k, v, causal=True)
        got = out.float().cpu()                  # read on the side stream (cpu() syncs it)
    ref, _ = attention_ref(*src, causal=True)
    assert rel_error(got.cuda(), ref) <= 1e-2


def test_explicit_stream_argument_is_used():
    src = qkv(b=1, sq=16, sk=300, seed=4)
    q, k, v = (torch.zeros_like(t) for t in src)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
        for dst, s in zip((q, k, v), src):
            dst.copy_(s)
    out = torch.empty_like(q)
    pyhipattn.mha_fwd(q, k, v, out=out, stream=side)
    side.synchronize()
    ref, _ = attention_ref(*src)
    assert rel_error(out, ref) <= 1e-2


# -- CuPy ---------------------------------------------------------------------------------

def test_cupy_arrays_on_cupys_current_stream():
    cupy = pytest.importorskip("cupy")
    src = qkv(b=2, sq=33, sk=257, seed=6, dtype=torch.float16)
    torch.cuda.synchronize()
    host = [cupy.asarray(t.cpu().numpy()) for t in src]          # fp16 on the GPU, via numpy
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        q, k, v = (cupy.zeros_like(h) for h in host)
        with torch.cuda.stream(torch.cuda.ExternalStream(stream.ptr)):
            torch.cuda._sleep(SLEEP_CYCLES)      # keep CuPy's stream busy
        for dst, h in zip((q, k, v), host):
            dst[...] = h                         # queued on `stream`, after the sleep
        out = pyhipattn.mha_fwd(q, k, v, causal=True)
        assert isinstance(out, cupy.ndarray) and out.shape == (2, 33, 8, 64) and out.dtype == cupy.float16
        got = cupy.asnumpy(out, stream=stream)
        stream.synchronize()
    ref, _ = attention_ref(*src, causal=True)
    assert rel_error(torch.from_numpy(got).cuda(), ref) <= 2e-3


def test_cupy_out_argument_on_a_cupy_stream():
    cupy = pytest.importorskip("cupy")
    src = qkv(b=1, sq=8, sk=100, seed=7, dtype=torch.float16)
    torch.cuda.synchronize()
    q, k, v = (cupy.asarray(t.cpu().numpy()) for t in src)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        out = cupy.full((1, 8, 8, 64), cupy.nan, dtype=cupy.float16)
        res = pyhipattn.mha_fwd(q, k, v, out=out)
        assert res is out
        got = cupy.asnumpy(out, stream=stream)
        stream.synchronize()
    ref, _ = attention_ref(*src)
    assert rel_error(torch.from_numpy(got).cuda(), ref) <= 2e-3


# -- JAX ----------------------------------------------------------------------------------

def test_jax_arrays_in_and_out_zero_copy():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    import jax.dlpack
    import jax.numpy as jnp

    from pyhipattn.dlpack import live_exports, view
    from pyhipattn.dlpack import produce

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    src = qkv(b=2, sq=31, sk=200, seed=8)
    torch.cuda.synchronize()
    q, k, v = (jax.dlpack.from_dlpack(t) for t in src)
    for a in (q, k, v):
        assert view(a, argname="a").ptr == a.unsafe_buffer_pointer()   # inputs: zero copy
    base = live_exports()
    ref, _ = attention_ref(*src, causal=True)
    # default: a jitted custom call (fastpath.py): XLA owns the output, nothing is exported
    eager = pyhipattn.mha_fwd(q, k, v, causal=True)
    assert isinstance(eager, jax.Array) and eager.shape == (2, 31, 8, 64) and live_exports() == base
    assert rel_error(torch.from_dlpack(eager), ref) <= 1e-2
    # an explicit stream takes the DLPack path: the output is a pyhipattn buffer JAX holds
    stream = torch.cuda.current_stream().cuda_stream
    out = pyhipattn.mha_fwd(q, k, v, causal=True, stream=stream)
    torch.cuda.current_stream().synchronize()
    assert isinstance(out, jax.Array) and out.dtype == jnp.bfloat16 and out.shape == (2, 31, 8, 64)
    exported = {entry[3].ptr for entry in produce._LIVE.values()}
    assert out.unsafe_buffer_pointer() in exported              # output: JAX holds our buffer
    assert live_exports() == base + 1
    got = torch.from_dlpack(out)
    assert rel_error(got, ref) <= 1e-2
    assert float(jnp.abs(out.astype(jnp.float32)).sum()) > 0    # JAX computes on it
    del got, out
    gc.collect()
    assert live_exports() == base                               # JAX released it: the deleter ran
