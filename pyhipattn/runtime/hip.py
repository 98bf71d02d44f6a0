"""AMD backend: the HIP runtime's module API through hip-python (``from hip import hip``).

NEVER RUN ON HARDWARE.  No AMD GPU was available anywhere while this was written; it follows
hip-python's generated sources (release 6.2: ``hip/hip.pyx``, ``hip/_util/types.pyx``) and the
HIP API reference, and shares every platform-independent piece (status checking, the
``extra`` array, both launchers) with the CUDA backend, which was exercised against a stub
driver.  Expect the first run on an MI300 to find something.

Facts it relies on:
- hip-python functions return ``(hipError_t, *values)``; handle parameters accept plain ints
  (``Pointer.init_from_pyobj``), and handle results convert back with ``int()``.
- ``hipModuleLaunchKernel(f, grid, block, shmem, stream, kernelParams, extra)`` takes
  ``extra = {HIP_LAUNCH_PARAM_BUFFER_POINTER (1), &buf, HIP_LAUNCH_PARAM_BUFFER_SIZE (2), &size,
  HIP_LAUNCH_PARAM_END (3)}``; we pass the address of our own array as an int, so hip-python's
  ``HipModuleLaunchKernel_extra`` helper (which re-aligns entries to min(size, 8)) is bypassed.
  The buffer carries the explicit kernargs only; HIP fills the hidden (code object v5) ones.
- Devices, not contexts: ``hipSetDevice`` is per thread, so ``make_current`` compares
  ``hipGetDevice()`` with the wanted device and sets it when they differ.
- No dynamic-LDS opt-in exists on AMD (a launch may use up to the arch's LDS size), so
  ``set_max_dynamic_shared`` is a no-op.
- Architecture from ``hipDeviceProp_t.gcnArchName`` (``"gfx942:sramecc+:xnack-"``), never a
  subprocess.
"""

from __future__ import annotations

from typing import Any

from pyhipattn.arch import canonical_arch
from pyhipattn.errors import PlatformError
from pyhipattn.runtime._driver import DriverBackend, text
from pyhipattn.runtime.base import DeviceInfo

LIBAMDHIP = "libamdhip64.so"
HIP_ERROR_DEINITIALIZED = 4


def import_hip() -> Any:
    try:
        from hip import hip
    except ImportError as e:
        raise ImportError("hip-python is not installed (pip install hip-python, matching your ROCm)") from e
    return hip


def _identity(handle: int) -> int:
    return handle


class HipBackend(DriverBackend):
    """The Backend protocol (``runtime/base.py``) on HIP (AMD)."""

    platform = "amd"
    dlpack_device_type = 10  # kDLROCM
    default_stream = 0       # HIP's null stream
    deinitialized_status = HIP_ERROR_DEINITIALIZED
    end_marker = 3           # HIP_LAUNCH_PARAM_END

    def __init__(self) -> None:
        self._api = h = import_hip()
        self._h = h
        self.call("hipInit", 0)
        self._count = int(self.call("hipGetDeviceCount"))
        if self._count < 1:
            raise PlatformError("hip: the HIP runtime reports no devices")
        self._infos: dict[int, DeviceInfo] = {}
        # hip-python accepts ints for hipFunction_t / hipStream_t, so no handle objects are cached.
        self._init_launch(h.hipModuleLaunchKernel, _identity, _identity, LIBAMDHIP, "hipModuleLaunchKernel")

    def describe(self, status: Any) -> str:
        code = self._h.hipError_t(int(status))
        name = self._h.hipGetErrorName(code)[1]
        msg = self._h.hipGetErrorString(code)[1]
        name_s = text(name) if name is not None else f"hipError_t {int(status)}"
        return f"{name_s}: {text(msg)}" if msg is not None else name_s

    # ---- devices -------------------------------------------------------------------
    def device_count(self) -> int:
        return self._count

    def _check_index(self, index: int) -> int:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self._count:
            raise ValueError(f"device {index!r} does not exist; this machine has HIP devices 0..{self._count - 1}")
        return index

    def current_device(self) -> int:
        return int(self.call("hipGetDevice"))

    def make_current(self, device: int) -> None:
        self.enter(device)

    def enter(self, device: int) -> int | None:
        """Make ``device`` current for a call into pyhipattn; returns the caller's device for
        ``leave`` (None when ``device`` already was current)."""
        previous = self.current_device()
        if previous == device:
            return None
        self.call("hipSetDevice", self._check_index(device))
        return previous

    def leave(self, previous: int) -> None:
        """Make ``previous`` (what ``enter`` returned, not None) this thread's device again."""
        self.call("hipSetDevice", previous)

    def device_info(self, index: int) -> DeviceInfo:
        info = self._infos.get(index)
        if info is not None:
            return info
        props = self._h.hipDeviceProp_t()
        self.call("hipGetDeviceProperties", props, self._check_index(index))
        raw = text(props.gcnArchName)
        shared = getattr(props, "sharedMemPerBlockOptin", 0) or props.sharedMemPerBlock
        info = DeviceInfo(
            index=index,
            name=text(props.name),
            arch=canonical_arch(raw),
            raw_arch=raw,
            compute_units=int(props.multiProcessorCount),
            total_memory=int(props.totalGlobalMem),
            max_shared_per_block=int(shared),
        )
        self._infos[index] = info
        return info

    # ---- modules and functions -----------------------------------------------------
    def module_load(self, device: int, image: bytes) -> int:
        self.make_current(device)
        return int(self.call("hipModuleLoadData", image))

    def module_unload(self, device: int, module: int) -> None:
        self.make_current(device)
        self.call("hipModuleUnload", module)

    def get_function(self, module: int, name: str) -> int:
        return int(self.call("hipModuleGetFunction", module, name.encode()))

    def set_max_dynamic_shared(self, function: int, nbytes: int) -> None:
        """No-op: AMD has no dynamic-LDS opt-in; the launch itself is checked against the LDS size."""

    # ---- streams and events --------------------------------------------------------
    def stream_create(self, device: int) -> int:
        self.make_current(device)
        return int(self.call("hipStreamCreateWithFlags", int(self._h.hipStreamNonBlocking)))

    def stream_destroy(self, stream: int) -> None:
        self.call("hipStreamDestroy", stream)

    def stream_synchronize(self, stream: int) -> None:
        self.call("hipStreamSynchronize", stream)

    def event_create(self, device: int) -> int:
        self.make_current(device)
        return int(self.call("hipEventCreateWithFlags", int(self._h.hipEventDisableTiming)))

    def event_record(self, event: int, stream: int) -> None:
        self.call("hipEventRecord", event, stream)

    def stream_wait_event(self, stream: int, event: int) -> None:
        self.call("hipStreamWaitEvent", stream, event, 0)

    def event_destroy(self, event: int) -> None:
        self.call("hipEventDestroy", event)

    # ---- stream-ordered memory -----------------------------------------------------
    def malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        """``nbytes`` from the device's default memory pool, ordered on ``stream``."""
        self.make_current(device)
        pool = self.call("hipDeviceGetDefaultMemPool", device)
        return int(self.call("hipMallocFromPoolAsync", int(nbytes), pool, stream))

    def graph_malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        """``nbytes`` ordered on ``stream`` (``hipMallocAsync``): on a capturing stream, a graph
        memory-allocation node."""
        self.make_current(device)
        return int(self.call("hipMallocAsync", int(nbytes), stream))

    def free_async(self, ptr: int, stream: int, device: int) -> None:
        self.make_current(device)
        self.call("hipFreeAsync", ptr, stream)

    def memset_async(self, ptr: int, byte: int, nbytes: int, stream: int, device: int) -> None:
        """Set ``nbytes`` at ``ptr`` to ``byte``, ordered on ``stream`` (no host wait)."""
        self.make_current(device)
        self.call("hipMemsetD8Async", ptr, int(byte), int(nbytes), stream)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("hipMemcpyDtoHAsync", dst, src, int(nbytes), stream)

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("hipMemcpyHtoDAsync", dst, src, int(nbytes), stream)

    def stream_is_capturing(self, stream: int, device: int) -> bool:
        """True while ``stream`` (of ``device``) is being captured into a HIP graph."""
        h = self._h
        self.make_current(device)
        state = self.call("hipStreamIsCapturing", stream)
        return int(state) != int(h.hipStreamCaptureStatus.hipStreamCaptureStatusNone)

    def stream_device(self, stream: int) -> int | None:
        """Device a stream belongs to (hipStreamGetDevice); None for the null stream."""
        if stream == 0:
            return None
        return int(self.call("hipStreamGetDevice", stream))

    def pointer_device(self, ptr: int) -> int | None:
        """Device of device (or managed) memory at ``ptr``; None for host or unknown memory."""
        h = self._h
        attrs = h.hipPointerAttribute_t()
        status = h.hipPointerGetAttributes(attrs, ptr)[0]
        if status:  # ROCm < 6 reports unregistered host memory as hipErrorInvalidValue
            if int(status) == int(h.hipError_t.hipErrorInvalidValue):
                return None
            raise self.error("hipPointerGetAttributes", status)
        kinds = (h.hipMemoryType.hipMemoryTypeDevice, h.hipMemoryType.hipMemoryTypeManaged)
        return int(attrs.device) if attrs.type in kinds else None
