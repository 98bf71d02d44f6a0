"""pyhipattn.dlpack on a GPU: torch / CuPy / JAX round trips (same pointer, exactly-once
release, stream handshake).  Skips where the framework or the GPU is missing."""

from __future__ import annotations

import gc
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyhipattn.dlpack import CUDA, ROCM, DLPackArray, live_exports, to_framework, view
from pyhipattn.dlpack.structs import ITEMSIZE

pytestmark = pytest.mark.gpu
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gpu_type(torch) -> int:
    return ROCM if torch.version.hip else CUDA


class TorchBuffer:
    """Device memory from torch's allocator, standing in for runtime.memory.DeviceBuffer."""

    def __init__(self, torch, nbytes: int, released: list[int]) -> None:
        self.storage = torch.zeros(nbytes, dtype=torch.uint8, device="cuda")
        self.ptr, self.nbytes, self.released = self.storage.data_ptr(), nbytes, released

    def __del__(self) -> None:
        self.released.append(self.ptr)


class Wrapper:
    """Only the DLPack protocol: forces view()'s general path."""

    def __init__(self, array) -> None:
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)


def facts(v):
    return (v.ptr, v.shape, v.strides, v.dtype, v.device_type, v.device_id)


def gpu_array(torch, gpu_type, shape, dtype="fp16", **kw):
    released: list[int] = []
    buf = TorchBuffer(torch, math.prod(shape) * ITEMSIZE[dtype], released)
    array = DLPackArray(buf, shape, dtype, device=(gpu_type, torch.cuda.current_device()), **kw)
    return array, buf, released


# -- consuming ----------------------------------------------------------------------------

def test_torch_gpu_fast_path_matches_dlpack_path(torch, gpu_type):
    t = torch.randn(2, 64, 4, 32, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    stream = torch.cuda.current_stream().cuda_stream
    fast = view(t, argname="q", platform_device_type=gpu_type)
    general = view(Wrapper(t), stream=stream, argname="q", platform_device_type=gpu_type)
    assert facts(fast) == facts(general)
    assert fast.device_type == gpu_type and fast.device_id == t.device.index


def test_default_stream_0_is_accepted_by_torch(torch, gpu_type):
    t = torch.ones(8, device="cuda")
    assert view(Wrapper(t), stream=0).ptr == t.data_ptr()     # sent as 1 on CUDA, 0 on ROCm


def test_cupy_fast_path_matches_dlpack_path(cupy):
    x = cupy.arange(2 * 3 * 4, dtype=cupy.float16).reshape(2, 3, 4).transpose(2, 0, 1)
    fast = view(x, argname="k")
    assert fast.framework == "cupy" and fast.ptr == x.data.ptr
    assert facts(fast) == facts(view(Wrapper(x), stream=cupy.cuda.get_current_stream().ptr))


def test_jax_gpu_array_view_has_its_buffer_pointer():
    jax = pytest.importorskip("jax")
    if not any(d.platform in ("gpu", "cuda", "rocm") for d in jax.devices()):
        pytest.skip("JAX has no GPU")
    x = jax.numpy.ones((4, 8), dtype=jax.numpy.bfloat16)
    v = view(x, argname="v")
    assert v.ptr == x.unsafe_buffer_pointer() and v.dtype == "bf16" and v.framework == "jax"


# -- producing ------------------------------------------------------------------------------

def test_torch_consumes_our_array_on_its_stream_zero_copy_released_once(torch, gpu_type):
    before = live_exports()
    seen: list[int] = []
    array, buf, released = gpu_array(torch, gpu_type, (16, 8), "bf16", sync=seen.append)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t = torch.from_dlpack(array)
    assert seen == [side.cuda_stream]                # the consumer's stream was made to wait
    assert t.data_ptr() == array.ptr and t.dtype == torch.bfloat16
    t.fill_(2.0)
    torch.cuda.synchronize()
    assert int(buf.storage[:2].view(torch.bfloat16).float().sum().item()) == 2   # same memory
    del array, buf
    gc.collect()
    assert released == []
    del t
    gc.collect()
    assert len(released) == 1 and live_exports() == before


def test_cupy_consumes_our_array_zero_copy_released_once(torch, gpu_type, cupy):
    before = live_exports()
    array, buf, released = gpu_array(torch, gpu_type, (32,), "fp32")
    x = to_framework(array, "cupy")
    assert x.data.ptr == array.ptr
    del array, buf
    gc.collect()
    assert released == []
    del x
    gc.collect()
    assert len(released) == 1 and live_exports() == before


def test_jax_consumes_our_array_zero_copy_released_once(torch, gpu_type):
    jax = pytest.importorskip("jax")
    if not any(d.platform in ("gpu", "cuda", "rocm") for d in jax.devices()):
        pytest.skip("JAX has no GPU")
    before = live_exports()
    array, buf, released = gpu_array(torch, gpu_type, (64, 32), "fp32")
    torch.cuda.synchronize()
    x = to_framework(array, "jax")
    assert x.unsafe_buffer_pointer() == array.ptr
    x.block_until_ready()
    del array, buf, x
    gc.collect()
    assert len(released) == 1 and live_exports() == before


def test_unused_gpu_capsule_releases(torch, gpu_type):
    before = live_exports()
    array, buf, released = gpu_array(torch, gpu_type, (8,), "fp32")
    cap = array.__dlpack__(stream=-1, max_version=(1, 0))
    del array, buf
    gc.collect()
    assert released == []
    del cap
    gc.collect()
    assert len(released) == 1 and live_exports() == before


GPU_EXIT_SCRIPT = """
import torch
from pyhipattn.dlpack import CUDA, ROCM, DLPackArray

class Buffer:
    def __init__(self):
        self.storage = torch.zeros(256, dtype=torch.uint8, device="cuda")
        self.ptr, self.nbytes = self.storage.data_ptr(), 256

gpu = ROCM if torch.version.hip else CUDA
kept = torch.from_dlpack(DLPackArray(Buffer(), (64,), "fp32", device=(gpu, 0)))
unused = DLPackArray(Buffer(), (64,), "fp32", device=(gpu, 0)).__dlpack__()
print("exiting", flush=True)
"""


def test_gpu_exports_survive_interpreter_exit(torch, tmp_path):
    script = tmp_path / "exit.py"
    script.write_text(GPU_EXIT_SCRIPT)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0 and proc.stdout.strip() == "exiting", proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
