"""Memory: many calls leave device memory flat; every DLPack export is released exactly once.

- ``PYHIPATTN_MEMORY_CALLS`` (default 100,000) mha_fwd calls on a small decode shape, half of
  them split-K (the shared workspace), leave the device's free memory (cuMemGetInfo, through
  torch.cuda.mem_get_info, after a synchronize and gc) flat: the samples taken along the way
  show no growth beyond a small tolerance, and torch's allocated bytes return to the baseline;
- inputs that only speak DLPack (a fresh torch tensor per call, exported by torch) are released
  by pyhipattn: torch's allocated bytes return to the baseline, so torch's deleter ran;
- outputs handed to DLPack consumers (torch.from_dlpack, JAX) are released when the consumer
  drops them: ``pyhipattn.dlpack.live_exports()`` returns to its baseline, and not before (an
  output kept alive stays exported and correct);
- a capsule made and dropped unused releases its export and its memory.
"""

from __future__ import annotations

import gc
import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)

import pyhipattn  # noqa: E402
from pyhipattn.dlpack import DLPackArray, live_exports  # noqa: E402
from pyhipattn.reference import attention_ref, rel_error  # noqa: E402

pytestmark = pytest.mark.gpu
CALLS = int(os.environ.get("PYHIPATTN_MEMORY_CALLS", "100000"))
DLPACK_CALLS = int(os.environ.get("PYHIPATTN_MEMORY_DLPACK_CALLS", str(max(CALLS // 20, 100))))
TOLERANCE = 32 << 20      # bytes of free-memory wobble allowed (driver bookkeeping, pools)


class DLPackOnly:
    """Only the DLPack protocol, so that pyhipattn takes its general (capsule) path."""

    def __init__(self, t):
        self.t = t

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)


def settle() -> tuple[int, int]:
    """(free device bytes, torch-allocated bytes) once nothing is pending."""
    gc.collect()
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0], torch.cuda.memory_allocated()


def decode_inputs(seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g, device="cuda", dtype=torch.bfloat16)  # noqa: E731
    return mk(1, 1, 8, 64), mk(1, 256, 1, 64), mk(1, 256, 1, 64)


def assert_flat(samples: list[int], what: str) -> None:
    drop = samples[0] - min(samples[1:])
    assert drop <= TOLERANCE, f"{what}: free device memory fell by {drop >> 20} MiB over the run: {samples}"


def test_many_calls_leave_device_memory_flat():
    q, k, v = decode_inputs()
    for splits in (1, 4):                       # warm up both paths (workspace grown once)
        pyhipattn.mha_fwd(q, k, v, num_splits=splits, return_lse=True)
    free0, alloc0 = settle()
    samples = [free0]
    step = max(CALLS // 5, 1)
    for i in range(CALLS):
        pyhipattn.mha_fwd(q, k, v, num_splits=1 + 3 * (i & 1), return_lse=bool(i & 2))
        if (i + 1) % step == 0:
            free, alloc = settle()
            samples.append(free)
            assert alloc == alloc0, f"torch-allocated bytes grew from {alloc0} to {alloc} after {i + 1} calls"
    assert_flat(samples, f"{CALLS} calls")
    out = pyhipattn.mha_fwd(q, k, v)
    ref, _ = attention_ref(q, k, v)
    assert rel_error(out, ref) <= 1e-2


def test_dlpack_inputs_and_outputs_are_released_exactly_once():
    base_exports = live_exports()
    q, k, v = decode_inputs(1)
    ref, _ = attention_ref(q, k, v)
    first = pyhipattn.mha_fwd(DLPackOnly(q.clone()), DLPackOnly(k.clone()), DLPackOnly(v.clone()))
    assert isinstance(first, DLPackArray)
    del first
    free0, alloc0 = settle()
    samples = [free0]
    for i in range(DLPACK_CALLS):
        out = pyhipattn.mha_fwd(DLPackOnly(q.clone()), DLPackOnly(k.clone()), DLPackOnly(v.clone()))
        t = torch.from_dlpack(out)               # a consumer takes the output ...
        assert live_exports() == base_exports + 1
        if i % 997 == 0:
            assert rel_error(t, ref) <= 1e-2
        del out, t                               # ... and drops it: the deleter runs
        if (i + 1) % max(DLPACK_CALLS // 4, 1) == 0:
            free, alloc = settle()
            samples.append(free)
            assert alloc == alloc0, "torch tensors exported to pyhipattn were not released (deleter not run)"
            assert live_exports() == base_exports
    assert_flat(samples, f"{DLPACK_CALLS} DLPack calls")


def test_an_output_stays_exported_while_its_consumer_holds_it():
    base = live_exports()
    q, k, v = decode_inputs(2)
    out = pyhipattn.mha_fwd(DLPackOnly(q), DLPackOnly(k), DLPackOnly(v))
    t = torch.from_dlpack(out)
    del out
    gc.collect()
    assert live_exports() == base + 1            # the consumer's tensor keeps the buffer
    torch.empty(1 << 26, dtype=torch.uint8, device="cuda").fill_(0xFF)   # reuse pressure
    ref, _ = attention_ref(q, k, v)
    assert rel_error(t, ref) <= 1e-2
    del t
    gc.collect()
    assert live_exports() == base


@pytest.mark.parametrize("route", ["jit", "dlpack"])
def test_jax_outputs_are_released_when_jax_drops_them(route):
    """Eager JAX calls run as a jitted custom call (XLA owns the outputs: nothing exported);
    with an explicit stream they take the DLPack path (our buffer, released when JAX drops it).
    Either way device memory stays flat."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    import jax.dlpack

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    import torch

    q, k, v = (jax.dlpack.from_dlpack(t) for t in decode_inputs(3))
    base = live_exports()
    kw = {} if route == "jit" else {"stream": torch.cuda.current_stream().cuda_stream}
    pyhipattn.mha_fwd(q, k, v, **kw).block_until_ready()
    gc.collect()
    free0, _ = settle()
    samples = [free0]
    for i in range(DLPACK_CALLS):
        out = pyhipattn.mha_fwd(q, k, v, **kw)
        assert live_exports() == base + (route == "dlpack")
        del out
        if (i + 1) % max(DLPACK_CALLS // 4, 1) == 0:
            free, _ = settle()
            samples.append(free)
            assert live_exports() == base
    assert_flat(samples, f"{DLPACK_CALLS} JAX calls")


def test_capsules_dropped_unused_release_everything():
    base = live_exports()
    q, k, v = decode_inputs(4)
    free0, _ = settle()
    samples = [free0]
    n = max(DLPACK_CALLS, 100)
    for i in range(n):
        out = pyhipattn.mha_fwd(DLPackOnly(q), DLPackOnly(k), DLPackOnly(v))
        cap = out.__dlpack__(stream=None, max_version=(1, 0) if i & 1 else None)
        assert live_exports() == base + 1
        del cap                                  # never consumed: its destructor releases the export
        assert live_exports() == base
        del out                                  # and the buffer goes with the array
        if (i + 1) % max(n // 4, 1) == 0:
            samples.append(settle()[0])
    assert_flat(samples, f"{n} unused capsules")
