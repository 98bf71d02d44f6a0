"""The runtime on an NVIDIA GPU: load the smoke-test cubin, launch it on PyTorch, CuPy and JAX
arrays, 32 threads, consumer streams, > 48 KiB of dynamic shared memory, outputs handed back
zero-copy through pyhipattn.dlpack.

    python -m pytest -q tests/gpu/test_runtime_gpu.py -rs

Self-contained: it needs only the built kernels/co/<arch>/common_add.cubin (scripts/build/common.sh)
and cuda-bindings; each framework test skips when its framework is missing.  Never
synchronises the whole device in the checks (stream-level syncs only).
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import struct  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("cuda.bindings", reason="cuda-bindings is not installed (NVIDIA runtime tests)")

import pyhipattn  # noqa: E402
from pyhipattn import runtime  # noqa: E402
from pyhipattn.arch import compatible_arches  # noqa: E402
from pyhipattn.runtime import memory, modules  # noqa: E402
from pyhipattn.runtime.streams import sync_hook  # noqa: E402

try:
    BACKEND = runtime.get_backend()
except Exception as e:  # the reason is the point of the skip
    pytest.skip(f"no usable GPU platform: {e}", allow_module_level=True)
if BACKEND.platform != "nvidia":
    pytest.skip(f"NVIDIA-only tests; this process drives {BACKEND.platform}", allow_module_level=True)

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
DEVICE = 0
ARCH = BACKEND.device_info(DEVICE).arch
CUBIN = next((p for a in compatible_arches(ARCH) if (p := ROOT / f"kernels/co/{a}/common_add.cubin").exists()), None)
if CUBIN is None:
    pytest.skip(f"no kernels/co/<arch>/common_add.cubin for {ARCH}: run scripts/build/common.sh", allow_module_level=True)

N = (1 << 20) + 7       # not a multiple of the block size
BLOCK = 256
ALPHA = 0.75


def _grid(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK


def _inputs(n: int = N, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


def _expected(x: np.ndarray, y: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    # float64, then one rounding: what the GPU's fused multiply-add gives (up to 1 ulp)
    return (x.astype(np.float64) + np.float64(np.float32(alpha)) * y.astype(np.float64)).astype(np.float32)


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return bool(np.allclose(got, want, rtol=1e-6, atol=1e-6))


def _device_array(data: np.ndarray, stream: int) -> memory.DeviceBuffer:
    buf = memory.DeviceBuffer(data.nbytes, DEVICE, stream)
    memory.copy_from_host(buf.ptr, data.tobytes(), stream)
    return buf


def _host(buf: memory.DeviceBuffer, n: int, stream: int) -> np.ndarray:
    return np.frombuffer(memory.copy_to_host(buf.ptr, 4 * n, stream), dtype=np.float32)


@pytest.fixture(scope="module")
def add():
    return pyhipattn.load(CUBIN)["add_kernel"]


# ---- the kernel and its metadata ---------------------------------------------------

def test_add_kernel_metadata_matches_the_header_struct(add):
    from pyhipattn import kernargs

    layout = kernargs.layout_from_header(ROOT / "kernels/src/common/pyhipattn_kernargs.h", "add_args")
    kernargs.check_layout(layout, add.info)


def test_device_info_is_sane():
    info = BACKEND.device_info(DEVICE)
    assert info.arch.startswith("sm_") and info.compute_units > 0 and info.total_memory > 1 << 30
    assert info.max_shared_per_block >= 48 * 1024


# ---- frameworks in, framework math out ---------------------------------------------

def test_add_on_torch_arrays_uses_torchs_current_stream(torch, add):
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(N, device="cuda", generator=g)
    y = torch.randn(N, device="cuda", generator=g)
    out = torch.empty_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # stream=None must pick this stream up
        add.launch(_grid(N), BLOCK, x, y, out, N, ALPHA)
        ref = x + ALPHA * y
    side.synchronize()
    torch.testing.assert_close(out, ref)


def test_add_on_cupy_arrays(cupy, add):
    rng = cupy.random.default_rng(1)
    x = rng.standard_normal(N, dtype=cupy.float32)
    y = rng.standard_normal(N, dtype=cupy.float32)
    out = cupy.empty_like(x)
    add.launch(_grid(N), BLOCK, x, y, out, N, ALPHA)   # cupy's current stream
    cupy.cuda.get_current_stream().synchronize()
    cupy.testing.assert_allclose(out, x + ALPHA * y, rtol=1e-6, atol=1e-6)


def test_add_on_jax_arrays(add):
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    jnp = jax.numpy
    hx, hy = _inputs(seed=2)
    x = jax.device_put(hx, jax.devices("gpu")[0])
    y = jax.device_put(hy, jax.devices("gpu")[0])
    x.block_until_ready(), y.block_until_ready()
    out = memory.DeviceBuffer(4 * N, DEVICE, BACKEND.default_stream)
    add.launch(_grid(N), BLOCK, x, y, out.ptr, N, ALPHA)   # JAX exposes no current stream: default stream
    got = _host(out, N, BACKEND.default_stream)
    np.testing.assert_allclose(got, np.asarray(x + ALPHA * y), rtol=1e-6, atol=1e-6)
    del jnp


def test_cpu_arrays_are_refused(add):
    x = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match=r"is on the CPU \(device type 1\); the kernel needs GPU memory"):
        add.launch(1, 16, x, x, x, 16, 1.0)


def test_torch_cpu_tensors_are_refused(torch, add):
    x = torch.zeros(16)
    with pytest.raises(ValueError, match=r"is on the CPU \(device type 1\)"):
        add.launch(1, 16, x, x, x, 16, 1.0)


# ---- runtime.launch, threads, streams ---------------------------------------------

def test_runtime_launch_of_a_plan():
    hx, hy = _inputs(4096, seed=3)
    s = BACKEND.stream_create(DEVICE)
    try:
        x, y = _device_array(hx, s), _device_array(hy, s)
        out = memory.DeviceBuffer(hx.nbytes, DEVICE, s)
        args = struct.pack("<QQQIf", x.ptr, y.ptr, out.ptr, 4096, ALPHA)
        plan = pyhipattn.LaunchPlan(str(CUBIN), "add_kernel", (_grid(4096), 1, 1), (BLOCK, 1, 1), 0, args)
        runtime.launch(plan, stream=s, device=DEVICE)
        got = _host(out, 4096, s)
        for b in (x, y, out):
            b.free()
        BACKEND.stream_synchronize(s)
        assert _close(got, _expected(hx, hy))
    finally:
        BACKEND.stream_destroy(s)


def test_32_threads_launching_the_same_kernel_load_it_once():
    modules.unload_all()
    n, results, errors = 4096, {}, []
    barrier = threading.Barrier(32)

    def worker(i: int) -> None:
        try:
            hx, hy = _inputs(n, seed=100 + i)
            s = BACKEND.stream_create(DEVICE)   # also: a fresh thread has no current context
            x, y = _device_array(hx, s), _device_array(hy, s)
            out = memory.DeviceBuffer(4 * n, DEVICE, s)
            barrier.wait()
            pyhipattn.load(CUBIN)["add_kernel"].launch(_grid(n), BLOCK, x.ptr, y.ptr, out.ptr, n, ALPHA,
                                                       stream=s, device=DEVICE)
            results[i] = _close(_host(out, n, s), _expected(hx, hy))
            for b in (x, y, out):
                b.free()
            BACKEND.stream_synchronize(s)
            BACKEND.stream_destroy(s)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(results.values()) and len(results) == 32
    co = pyhipattn.load(CUBIN).entry_for(ARCH)
    assert modules.load_count(DEVICE, co) == 1


def test_result_read_on_a_consumer_stream_after_an_event_wait(torch, add):
    n = 1 << 26  # big enough that the consumer would overtake the kernel without the wait
    g = torch.Generator(device="cuda").manual_seed(4)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    out = torch.empty_like(x)
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    a.wait_stream(torch.cuda.current_stream())
    b.wait_stream(torch.cuda.current_stream())
    add.launch(_grid(n), BLOCK, x, y, out, n, ALPHA, stream=a)
    event = BACKEND.event_create(DEVICE)
    BACKEND.event_record(event, a.cuda_stream)
    BACKEND.stream_wait_event(b.cuda_stream, event)
    with torch.cuda.stream(b):
        seen = out.clone()
        ref = x + ALPHA * y
    b.synchronize()
    BACKEND.event_destroy(event)
    torch.testing.assert_close(seen, ref)


def test_result_read_on_a_cupy_consumer_stream(cupy, add):
    n = 1 << 26
    x = cupy.random.default_rng(5).standard_normal(n, dtype=cupy.float32)
    y = cupy.ones(n, dtype=cupy.float32)
    out = cupy.empty_like(x)
    cupy.cuda.get_current_stream().synchronize()   # setup only
    a, b = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    add.launch(_grid(n), BLOCK, x, y, out, n, ALPHA, stream=a)
    sync_hook(a.ptr, DEVICE)(b.ptr)
    with b:
        seen = out.copy()
        ref = x + ALPHA * y
    b.synchronize()
    cupy.testing.assert_allclose(seen, ref, rtol=1e-6, atol=1e-6)


# ---- dynamic shared memory ----------------------------------------------------------

def test_dynamic_shared_memory_over_48k():
    mod = pyhipattn.load(CUBIN)
    hx, hy = _inputs(N, seed=6)
    s = BACKEND.stream_create(DEVICE)
    try:
        x, y = _device_array(hx, s), _device_array(hy, s)
        out = memory.DeviceBuffer(hx.nbytes, DEVICE, s)
        shared = 100 * 1024
        mod["add_shared_kernel"].launch(_grid(N), BLOCK, x.ptr, y.ptr, out.ptr, N, ALPHA, shared // 4,
                                        shared_mem=shared, stream=s, device=DEVICE)
        got = _host(out, N, s)
        for b in (x, y, out):
            b.free()
        BACKEND.stream_synchronize(s)
        assert _close(got, _expected(hx, hy))
    finally:
        BACKEND.stream_destroy(s)


# ---- outputs handed to frameworks zero-copy (pyhipattn.dlpack) ----------------------

@pytest.mark.parametrize("framework", ["torch", "cupy", "jax"])
def test_output_goes_back_to_the_framework_zero_copy(framework):
    dl = pytest.importorskip("pyhipattn.dlpack", reason="FOR THE LEAD: pyhipattn.dlpack is missing")
    fw = pytest.importorskip(framework)
    if framework == "jax" and not any(d.platform == "gpu" for d in fw.devices()):
        pytest.skip("JAX sees no GPU")
    hx, hy = _inputs(4096, seed=7)
    s = BACKEND.stream_create(DEVICE)
    x, y = _device_array(hx, s), _device_array(hy, s)
    out = memory.DeviceBuffer(hx.nbytes, DEVICE, s)
    pyhipattn.load(CUBIN)["add_kernel"].launch(_grid(4096), BLOCK, x.ptr, y.ptr, out.ptr, 4096, ALPHA,
                                               stream=s, device=DEVICE)
    array = dl.DLPackArray(out, (4096,), "fp32", device=(2, DEVICE), sync=sync_hook(s, DEVICE))
    result = dl.to_framework(array, framework)
    if framework == "torch":
        ptr, host = result.data_ptr(), result.cpu().numpy()
    elif framework == "cupy":
        ptr, host = result.data.ptr, result.get()
    else:
        ptr, host = result.unsafe_buffer_pointer(), np.asarray(result)
    assert ptr == out.ptr
    assert _close(host, _expected(hx, hy))
    del result, array
    for b in (x, y):
        b.free()
    BACKEND.stream_synchronize(s)


def test_arrays_on_another_device_than_the_stream_are_refused(torch, add):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    x = torch.ones(256, device="cuda:0")
    side = torch.cuda.Stream(device="cuda:1")
    with pytest.raises(ValueError, match="stream belongs to device 1"):
        add.launch(1, 256, x, x, x, 256, 1.0, stream=side)
