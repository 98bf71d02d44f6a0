"""NVIDIA backend: the CUDA driver API through NVIDIA's ``cuda-bindings`` (``cuda.bindings.driver``).

Contexts: we use each device's *primary* context (``cuDevicePrimaryCtxRetain``), the one
PyTorch, CuPy and JAX use, so modules we load, streams they create and memory both allocate
all live in one context.  ``make_current(device)`` reads the thread's current context and sets
the device's primary context only when it differs (a framework may have switched devices on
this thread since our last call, so a cached "already current" flag would be wrong).

Launch: ``cuLaunchKernel(f, grid, block, shmem, stream, NULL, extra)`` with ``extra`` the
address of ``{CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
CU_LAUNCH_PARAM_END}``, through cuda-bindings or through cffi into ``libcuda.so.1``
(``_driver.py`` holds both; ``PYHIPATTN_LAUNCHER`` picks).  The context check costs one
``cuCtxGetCurrent`` through the bindings (about 0.15 us; cheaper than cffi or ctypes, measured
against a stub driver).

Versions: written against cuda-bindings 13.5 (signatures checked against the installed
package); the GPU machine has 13.3 with driver 580 (CUDA 13.0).  cuda-python 12.x is accepted
(``cuda.bindings.driver`` since 12.6, ``from cuda import cuda`` before); the calls used here
have the same Python signatures in 12.x and 13.x.

Run on hardware: not by the author (no GPU on the development machine); the argument
conversions were exercised against a stub ``libcuda.so.1`` (``tests/test_runtime_cuda_stub.py``),
and ``tests/gpu/test_runtime_gpu.py`` is the on-device test.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from pyhipattn.arch import canonical_arch
from pyhipattn.errors import PlatformError
from pyhipattn.runtime._driver import DriverBackend, text
from pyhipattn.runtime.base import DeviceInfo

LIBCUDA = "libcuda.so.1"
CU_STREAM_LEGACY = 1
CUDA_ERROR_DEINITIALIZED = 4
#: Dynamic shared memory a kernel may use without cuFuncSetAttribute.
DEFAULT_DYNAMIC_SHARED_LIMIT = 48 * 1024


def import_driver() -> Any:
    """The cuda-bindings driver module (13.x / 12.6+ name first, then cuda-python <= 12.5's)."""
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver  # cuda-python <= 12.5
        except ImportError as e:
            raise ImportError(
                "cuda.bindings is not installed (pip install cuda-bindings, or cuda-python)"
            ) from e
    return driver


class CudaBackend(DriverBackend):
    """The Backend protocol (``runtime/base.py``) on the CUDA driver API."""

    platform = "nvidia"
    dlpack_device_type = 2
    default_stream = CU_STREAM_LEGACY
    deinitialized_status = CUDA_ERROR_DEINITIALIZED
    end_marker = 0  # CU_LAUNCH_PARAM_END

    def __init__(self) -> None:
        self._api = d = import_driver()
        self._d = d
        self.call("cuInit", 0)
        self._count = int(self.call("cuDeviceGetCount"))
        if self._count < 1:
            raise PlatformError("cuda.bindings: the CUDA driver reports no devices")
        self.driver_version = int(self.call("cuDriverGetVersion"))
        self._lock = threading.Lock()
        self._devices: dict[int, Any] = {}
        self._ctx_obj: dict[int, Any] = {}     # device -> CUcontext (keeps the retain alive)
        self._ctx_int: dict[int, int] = {}     # device -> context address
        self._ctx_device: dict[int, int] = {}  # context address -> device
        self._pools: dict[int, Any] = {}
        self._infos: dict[int, DeviceInfo] = {}
        self._ctypes_fns: dict[str, Any] = {}    # name -> ctypes function (_ctypes)
        self._ctx_get = d.cuCtxGetCurrent  # about 0.15 us through the bindings: checked on every launch
        self._init_launch(d.cuLaunchKernel, d.CUfunction, d.CUstream, LIBCUDA, "cuLaunchKernel")

    # ---- errors --------------------------------------------------------------------
    def describe(self, status: Any) -> str:
        code = self._d.CUresult(int(status))
        err, name = self._d.cuGetErrorName(code)
        err2, msg = self._d.cuGetErrorString(code)
        name_s = text(name) if not err and name is not None else f"CUresult {int(status)}"
        msg_s = text(msg) if not err2 and msg is not None else ""
        return f"{name_s}: {msg_s}" if msg_s else name_s

    # ---- devices and contexts ------------------------------------------------------
    def device_count(self) -> int:
        return self._count

    def _check_index(self, index: int) -> int:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self._count:
            raise ValueError(f"device {index!r} does not exist; this machine has CUDA devices 0..{self._count - 1}")
        return index

    def _device(self, index: int) -> Any:
        dev = self._devices.get(index)
        if dev is None:
            dev = self._devices[self._check_index(index)] = self.call("cuDeviceGet", index)
        return dev

    def _retain(self, device: int) -> int:
        with self._lock:
            ctx_int = self._ctx_int.get(device)
            if ctx_int is None:
                ctx = self.call("cuDevicePrimaryCtxRetain", self._device(device))
                ctx_int = int(ctx)
                self._ctx_obj[device] = ctx
                self._ctx_device[ctx_int] = device
                self._ctx_int[device] = ctx_int
            return ctx_int

    def _current_context(self) -> int:
        status, ctx = self._ctx_get()
        if status:
            raise self.error("cuCtxGetCurrent", status)
        return int(ctx)

    def make_current(self, device: int) -> None:
        """Make ``device``'s primary context current on this thread (no-op when it is)."""
        self.enter(device)

    def enter(self, device: int) -> int | None:
        """Make ``device``'s primary context current for a call into pyhipattn and return what
        ``leave`` needs to give the caller its own context back: None when ``device``'s context
        already was current (the common case: no driver call), else the caller's context handle
        (0: none).  A framework's notion of the current device (torch, CuPy) follows the thread's
        current context, so a call on another GPU's arrays must not leave that GPU current."""
        ctx = self._ctx_int.get(device)
        if ctx is None:
            ctx = self._retain(self._check_index(device))
        previous = self._current_context()
        if previous == ctx:
            return None
        self.call("cuCtxSetCurrent", self._ctx_obj[device])
        return previous

    def leave(self, previous: int) -> None:
        """Make ``previous`` (what ``enter`` returned, not None) this thread's context again."""
        self.call("cuCtxSetCurrent", self._d.CUcontext(previous))

    def current_device(self) -> int:
        """The device of this thread's current context; 0 when no context is current."""
        ctx = self._current_context()
        if not ctx:
            return 0
        dev = self._ctx_device.get(ctx)
        if dev is None:  # someone else's context (a framework's non-primary one): ask the driver
            dev = int(self.call("cuCtxGetDevice"))
        return dev

    def device_info(self, index: int) -> DeviceInfo:
        info = self._infos.get(index)
        if info is not None:
            return info
        d, dev = self._d, self._device(index)
        attr = d.CUdevice_attribute

        def get(a: Any) -> int:
            return int(self.call("cuDeviceGetAttribute", a, dev))

        major = get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        minor = get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        raw = f"{major}.{minor}"
        info = DeviceInfo(
            index=index,
            name=text(self.call("cuDeviceGetName", 256, dev)),
            arch=canonical_arch(raw),
            raw_arch=raw,
            compute_units=get(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            total_memory=int(self.call("cuDeviceTotalMem", dev)),
            max_shared_per_block=get(attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
        )
        self._infos[index] = info
        return info

    # ---- modules and functions -----------------------------------------------------
    def module_load(self, device: int, image: bytes) -> int:
        self.make_current(device)
        return int(self.call("cuModuleLoadData", image))

    def module_unload(self, device: int, module: int) -> None:
        self.make_current(device)
        self.call("cuModuleUnload", self._d.CUmodule(module))

    def get_function(self, module: int, name: str) -> int:
        return int(self.call("cuModuleGetFunction", self._d.CUmodule(module), name.encode()))

    def set_max_dynamic_shared(self, function: int, nbytes: int) -> None:
        """Allow ``nbytes`` of dynamic shared memory (only needed above 48 KiB)."""
        if nbytes <= DEFAULT_DYNAMIC_SHARED_LIMIT:
            return
        self.call("cuFuncSetAttribute", self._d.CUfunction(function),
                  self._d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(nbytes))

    # ---- streams and events --------------------------------------------------------
    def stream_create(self, device: int) -> int:
        self.make_current(device)
        return int(self.call("cuStreamCreate", int(self._d.CUstream_flags.CU_STREAM_NON_BLOCKING)))

    def stream_destroy(self, stream: int) -> None:
        self.call("cuStreamDestroy", self._d.CUstream(stream))

    def stream_synchronize(self, stream: int) -> None:
        self.call("cuStreamSynchronize", self._d.CUstream(stream))

    def event_create(self, device: int) -> int:
        self.make_current(device)
        return int(self.call("cuEventCreate", int(self._d.CUevent_flags.CU_EVENT_DISABLE_TIMING)))

    def event_record(self, event: int, stream: int) -> None:
        self.call("cuEventRecord", self._d.CUevent(event), self._d.CUstream(stream))

    def stream_wait_event(self, stream: int, event: int) -> None:
        self.call("cuStreamWaitEvent", self._d.CUstream(stream), self._d.CUevent(event), 0)

    def event_destroy(self, event: int) -> None:
        self.call("cuEventDestroy", self._d.CUevent(event))

    # ---- stream-ordered memory -----------------------------------------------------
    def _pool(self, device: int) -> Any:
        pool = self._pools.get(device)
        if pool is None:
            pool = self._pools[device] = self.call("cuDeviceGetDefaultMemPool", self._device(device))
        return pool

    def malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        """``nbytes`` from the device's default memory pool, ordered on ``stream``."""
        self.make_current(device)
        return int(self.call("cuMemAllocFromPoolAsync", int(nbytes), self._pool(device), self._d.CUstream(stream)))

    def graph_malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        """``nbytes`` ordered on ``stream`` from the stream's device's current pool
        (``cuMemAllocAsync``): on a capturing stream, a graph memory-allocation node."""
        self.make_current(device)
        return int(self.call("cuMemAllocAsync", int(nbytes), self._d.CUstream(stream)))

    def free_async(self, ptr: int, stream: int, device: int) -> None:
        self.make_current(device)
        self.call("cuMemFreeAsync", self._d.CUdeviceptr(ptr), self._d.CUstream(stream))

    def memset_async(self, ptr: int, byte: int, nbytes: int, stream: int, device: int) -> None:
        """Set ``nbytes`` at ``ptr`` to ``byte``, ordered on ``stream`` (no host wait).  Straight
        into libcuda through ctypes (every argument an integer): about 1 us, where the bindings'
        handle objects cost about 10 us (measured on the H100; the JAX handler zeroes split-K
        counters with it on every call)."""
        self.make_current(device)
        fn = self._ctypes("cuMemsetD8Async", ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p)
        status = fn(ptr, byte, nbytes, stream)
        if status:
            raise self.error("cuMemsetD8Async", status)

    def _ctypes(self, name: str, *argtypes):
        """libcuda's ``name`` through ctypes (int status), bound once: for per-call driver calls
        whose bindings wrappers cost more than the call."""
        fn = self._ctypes_fns.get(name)
        if fn is None:
            fn = getattr(ctypes.CDLL(LIBCUDA), name)
            fn.argtypes, fn.restype = list(argtypes), ctypes.c_int
            self._ctypes_fns[name] = fn
        return fn

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("cuMemcpyDtoHAsync", dst, self._d.CUdeviceptr(src), int(nbytes), self._d.CUstream(stream))

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("cuMemcpyHtoDAsync", self._d.CUdeviceptr(dst), src, int(nbytes), self._d.CUstream(stream))

    def stream_is_capturing(self, stream: int, device: int) -> bool:
        """True while ``stream`` (of ``device``) is being captured into a CUDA graph
        (``cuStreamIsCapturing`` through ctypes: about 1 us, where the bindings' CUstream object
        costs several; asked on every split-K call of CuPy and of the JAX handler)."""
        self.make_current(device)   # a thread's first call may have no current context
        fn = self._ctypes("cuStreamIsCapturing", ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
        state = ctypes.c_int(0)
        status = fn(stream, ctypes.byref(state))
        if status:
            raise self.error("cuStreamIsCapturing", status)
        return state.value != 0     # CU_STREAM_CAPTURE_STATUS_NONE is 0

    def stream_device(self, stream: int) -> int | None:
        """Device ordinal a stream belongs to; None for the default streams (any device) or
        when the driver cannot say (cuStreamGetDevice needs CUDA 12.8+)."""
        if stream in (0, 1, 2) or not hasattr(self._d, "cuStreamGetDevice"):
            return None
        return int(self.call("cuStreamGetDevice", self._d.CUstream(stream)))

    def pointer_device(self, ptr: int) -> int | None:
        """Device ordinal of device memory at ``ptr``; None for host (or unknown) memory."""
        a = self._d.CUpointer_attribute
        values = self.call("cuPointerGetAttributes", 2,
                           [a.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL],
                           self._d.CUdeviceptr(ptr))
        mem_type, ordinal = values
        if int(mem_type) != int(self._d.CUmemorytype.CU_MEMORYTYPE_DEVICE):
            return None
        return int(ordinal)
