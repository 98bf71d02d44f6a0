"""The fast paths' cache keys (pyhipattn/fastpath.py): a change in any shape, stride, dtype,
device or option gives another key, so a call never runs a plan made for different facts;
capture scratch for non-torch callers; eager JAX calls route through the jitted custom call."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pyhipattn import fastpath, outputs, percall
from pyhipattn.runtime.memory import COUNTER_BYTES

OPTIONS = (None, False, (-1, -1), 0.0, False, 0)
VARIANTS = [(0.5, False, (-1, -1), 0.0, False, 0), (None, True, (-1, -1), 0.0, False, 0),
            (None, False, (4, 0), 0.0, False, 0), (None, False, (-1, -1), 3.0, False, 0),
            (None, False, (-1, -1), 0.0, True, 0), (None, False, (-1, -1), 0.0, False, 2)]


def _distinct(keys: list) -> None:
    for a, b in itertools.combinations(range(len(keys)), 2):
        assert keys[a] != keys[b], (a, b)
    assert len(set(keys)) == len(keys)


def test_torch_key_changes_with_every_fact():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    q = torch.zeros(2, 5, 8, 64, dtype=torch.bfloat16)
    k = torch.zeros(2, 7, 2, 64, dtype=torch.bfloat16)
    v = torch.zeros(2, 7, 2, 64, dtype=torch.bfloat16)
    kt = torch.zeros(2, 2, 7, 64, dtype=torch.bfloat16).transpose(1, 2)      # same shape, other strides
    keys = [fastpath.torch_key(q, k, v, OPTIONS),
            fastpath.torch_key(q[:, :4], k, v, OPTIONS),                   # q shape
            fastpath.torch_key(q, kt, v, OPTIONS),                         # k strides
            fastpath.torch_key(q, k, kt, OPTIONS),                         # v strides
            fastpath.torch_key(q.half(), k.half(), v.half(), OPTIONS),      # dtype
            fastpath.torch_key(q, k, v[..., :32], OPTIONS)]                # v head dim
    keys += [fastpath.torch_key(q, k, v, o) for o in VARIANTS]
    _distinct(keys)
    # device: the key holds each tensor's get_device() (cuda:0 -> 0, cuda:1 -> 1, cpu -> -1)
    assert fastpath.torch_key(q, k, v, OPTIONS)[3] == q.get_device() == -1


class _Mem:
    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class FakeCupyArray:
    """The attributes CuPy's ndarray gives the fast path (no CuPy on a CPU machine)."""

    __module__ = "cupy"

    def __init__(self, shape, strides, dtype="bfloat16", device=0, ptr=0x1000):
        self.shape, self.strides, self.dtype = shape, strides, np.dtype(np.float16) if dtype == "float16" else dtype
        self.data = _Mem(ptr, device)


def test_cupy_key_changes_with_every_fact(monkeypatch):
    current = [0]
    monkeypatch.setattr(fastpath._Cupy, "get_device", lambda: current[0])
    q = FakeCupyArray((2, 5, 8, 64), (5120, 1024, 128, 2))
    k = FakeCupyArray((2, 7, 2, 64), (1792, 256, 128, 2))
    base = fastpath.cupy_key(q, k, k, OPTIONS)
    keys = [base,
            fastpath.cupy_key(FakeCupyArray((2, 4, 8, 64), (4096, 1024, 128, 2)), k, k, OPTIONS),
            fastpath.cupy_key(q, FakeCupyArray((2, 7, 2, 64), (1792, 128, 896, 2)), k, OPTIONS),
            fastpath.cupy_key(q, k, FakeCupyArray((2, 7, 2, 64), (1792, 128, 896, 2)), OPTIONS),
            fastpath.cupy_key(FakeCupyArray((2, 5, 8, 64), (5120, 1024, 128, 2), "float16"), k, k, OPTIONS),
            fastpath.cupy_key(FakeCupyArray((2, 5, 8, 64), (5120, 1024, 128, 2), device=1), k, k, OPTIONS),
            fastpath.cupy_key(q, FakeCupyArray((2, 7, 2, 64), (1792, 256, 128, 2), device=1), k, OPTIONS)]
    keys += [fastpath.cupy_key(q, k, k, o) for o in VARIANTS]
    current[0] = 1
    keys.append(fastpath.cupy_key(q, k, k, OPTIONS))               # CuPy's current device
    _distinct(keys)
    # a call on an array of another device than the current one never takes the fast path
    assert fastpath.cupy_call(q, k, k, OPTIONS, False) == (None, None)


def test_cupy_and_torch_keys_never_collide():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    t = torch.zeros(1, 1, 1, 8, dtype=torch.bfloat16)
    assert fastpath.torch_key(t, t, t, OPTIONS)[0] != "cupy"


def test_a_hit_launches_the_remembered_plan_with_the_new_pointers(monkeypatch):
    monkeypatch.setattr(fastpath._Cupy, "get_device", lambda: 0)
    ran = []

    class Prep:
        workspace_bytes, device = 0, 0

        def run(self, values, stream, workspace, extra=()):
            ran.append((values, stream, workspace))

    class Out:
        def __init__(self, ptr):
            self.data = _Mem(ptr, 0)

    class Stream:
        ptr = 0xABC

    monkeypatch.setattr(fastpath._Cupy, "empty", lambda shape, dtype: Out(0x9000))
    monkeypatch.setattr(fastpath._Cupy, "current_stream", lambda: Stream)
    q = FakeCupyArray((1, 1, 8, 64), (512, 512, 64, 2), ptr=0x1000)
    k = FakeCupyArray((1, 9, 2, 64), (1152, 128, 64, 2), ptr=0x2000)
    key, res = fastpath.cupy_call(q, k, k, OPTIONS, False)
    assert res is None and key is not None                       # a miss: the general path runs
    fastpath.remember(key, Prep(), (1, 1, 8, 64), (1, 8, 1), False)
    try:
        key2, res = fastpath.cupy_call(q, k, k, OPTIONS, False)
        assert key2 == key and res.data.ptr == 0x9000
        assert ran == [((0x1000, 0x2000, 0x2000, 0x9000, 0, 0, 0), 0xABC, None)]
        assert fastpath.cupy_call(FakeCupyArray(q.shape, q.strides, ptr=0x1008), k, k, OPTIONS, False) == (None, None)
    finally:
        fastpath.forget()
    assert fastpath.CACHE == {}


class RecordingBackend:
    def __init__(self):
        self.calls = []

    def graph_malloc_async(self, nbytes, stream, device):
        self.calls.append(("alloc", nbytes, stream))
        return 0x10000

    def memset_async(self, ptr, byte, nbytes, stream, device):
        self.calls.append(("memset", ptr, byte, nbytes, stream))

    def free_async(self, ptr, stream, device):
        self.calls.append(("free", ptr, stream))


def test_capture_scratch_for_non_torch_callers_is_graph_owned_and_freed_in_stream_order():
    be = RecordingBackend()
    s = outputs.capture_scratch(FakeCupyArray((1,), (2,)), 5000, 0x77, 0, be)
    assert s.address == 0x10000 + COUNTER_BYTES
    s.release()
    s.release()                                                 # once only
    assert be.calls == [("alloc", COUNTER_BYTES + 5000, 0x77), ("memset", 0x10000, 0, COUNTER_BYTES, 0x77),
                        ("free", 0x10000, 0x77)]


def test_launch_under_capture_runs_on_the_scratch_then_frees_it():
    be = RecordingBackend()

    class Prep:
        workspace_bytes, device, backend = 4096, 0, be

        def run(self, values, stream, workspace, extra=()):
            be.calls.append(("run", workspace, stream))

    percall.launch(Prep(), (0,) * 7, 0x55, FakeCupyArray((1,), (2,)), True)
    assert [c[0] for c in be.calls] == ["alloc", "memset", "run", "free"]
    assert be.calls[2] == ("run", 0x10000 + COUNTER_BYTES, 0x55)


def test_eager_jax_arrays_route_through_the_jitted_custom_call(monkeypatch):
    jax = pytest.importorskip("jax", reason="jax is not installed")
    import pyhipattn
    import pyhipattn.jax as pjax

    seen = []
    monkeypatch.setattr(pjax, "cpu_executor", lambda problem, call: seen.append(problem))
    q = jax.numpy.zeros((1, 2, 4, 16), jax.numpy.bfloat16)
    out = pyhipattn.mha_fwd(q, q, q, causal=True)
    jax.block_until_ready(out)
    assert isinstance(out, jax.Array) and out.shape == (1, 2, 4, 16)
    assert len(seen) == 1 and seen[0].causal
    n = len(fastpath._JAX_FNS)
    jax.block_until_ready(pyhipattn.mha_fwd(q, q, q, causal=True))
    assert len(fastpath._JAX_FNS) == n and len(seen) == 2      # the same jitted function, run again
    jax.block_until_ready(pyhipattn.mha_fwd(q, q, q, causal=False))
    assert len(fastpath._JAX_FNS) == n + 1
