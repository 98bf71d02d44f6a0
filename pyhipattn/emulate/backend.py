"""``PYHIPATTN_PLATFORM=emulate``: the runtime Backend protocol over the emulator.

An emulated AMD GPU whose memory is this process's memory: arrays are numpy arrays (bf16
through ml_dtypes), a "device pointer" is a host address inside a registered buffer, and a
launch runs the kernel to completion on the CPU before returning (streams and events are
bookkeeping only).  Everything above the backend (api -> dispatch -> family -> kernargs ->
module cache) is the normal path.

Environment:
- ``PYHIPATTN_EMULATE_ARCH``: the AMD arch to emulate (default gfx942; any shipped AMD arch);
- ``PYHIPATTN_EMULATE_CUS``: compute units the planner sees (default: the arch's reference part).
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from typing import Any, Callable

import numpy as np

from ..arch import arch_info, canonical_arch, known_arches
from ..errors import PlatformError
from .executor import launch as run_kernel
from .memory import host_view, regions

ARCH_ENV = "PYHIPATTN_EMULATE_ARCH"
CUS_ENV = "PYHIPATTN_EMULATE_CUS"
_ALIGN = 256


def emulated_arch() -> str:
    """The arch named by PYHIPATTN_EMULATE_ARCH (default gfx942); ValueError for non-AMD arches."""
    raw = os.environ.get(ARCH_ENV, "").strip() or "gfx942"
    arch = canonical_arch(raw)
    amd = [a for a in known_arches() if arch_info(a).platform == "amd"]
    if arch not in amd:
        raise ValueError(f"{ARCH_ENV}={raw!r}: the emulator runs AMD arches: {', '.join(amd)}")
    return arch


def emulated_cus(arch: str) -> int:
    raw = os.environ.get(CUS_ENV, "").strip()
    if not raw:
        return arch_info(arch).default_cus
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{CUS_ENV}={raw!r}: give a positive number of compute units")
    return n


class EmulateBackend:
    """The Backend protocol (``runtime/base.py``) on the emulator.  One device, index 0."""

    platform = "amd"               # it runs AMD code objects
    emulated = True
    dlpack_device_type = 1         # kDLCPU: arrays live in host memory
    default_stream = 0
    deinitialized_status = -1
    launcher_name = "emulator"

    def __init__(self) -> None:
        from ..runtime.base import DeviceInfo

        from .decoder import disassembler

        disassembler()             # fail now, with what to install, if LLVM is missing
        self.arch = emulated_arch()
        info = arch_info(self.arch)
        self._info = DeviceInfo(index=0, name=f"emulated {self.arch} (pyhipattn.emulate, CPU)", arch=self.arch,
                                raw_arch=self.arch, compute_units=emulated_cus(self.arch),
                                total_memory=os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
                                max_shared_per_block=info.shared_limit)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._modules: dict[int, Any] = {}         # handle -> CodeObject
        self._functions: dict[int, tuple[Any, str]] = {}
        self._buffers: dict[int, np.ndarray] = {}  # address -> owning array
        self.launch = self._launch

    # ---- devices -------------------------------------------------------------------
    def device_count(self) -> int:
        return 1

    def device_info(self, index: int) -> Any:
        if index != 0:
            raise ValueError(f"device {index!r} does not exist; the emulator has device 0")
        return self._info

    def current_device(self) -> int:
        return 0

    def make_current(self, device: int) -> None:
        if device != 0:
            raise ValueError(f"device {device!r} does not exist; the emulator has device 0")

    def enter(self, device: int) -> None:
        """One device, always current: nothing to give back (``leave`` is never needed)."""
        self.make_current(device)

    def leave(self, previous: object) -> None:
        pass

    # ---- modules -------------------------------------------------------------------
    def module_load(self, device: int, image: bytes) -> int:
        from ..codeobj import parse_image

        co = parse_image(bytes(image), "<emulated module>")
        if co.arch != self.arch:
            from ..errors import ArchNotFoundError

            raise ArchNotFoundError(f"code object is for {co.arch}; the emulated device is {self.arch}")
        h = next(self._ids)
        self._modules[h] = co
        return h

    def module_unload(self, device: int, module: int) -> None:
        self._modules.pop(module, None)

    def get_function(self, module: int, name: str) -> int:
        co = self._modules[module]
        kernel = next((k for k, info in co.kernels.items()
                       if k == name or (info.symbol or "").removesuffix(".kd") == name), None)
        if kernel is None:
            raise KeyError(f"kernel {name!r} is not in this module; it has {', '.join(sorted(co.kernels))}")
        h = next(self._ids)
        self._functions[h] = (co, kernel)
        return h

    def set_max_dynamic_shared(self, function: int, nbytes: int) -> None:
        """No-op: LDS is sized per launch."""

    # ---- launches ------------------------------------------------------------------
    def _launch(self, function: int, grid: tuple, block: tuple, shared_mem: int, stream: int,
                kernargs: bytes) -> None:
        co, kernel = self._functions[function]
        run_kernel(co, kernel, grid, block, bytes(kernargs), shared_mem)

    def bind_launch(self, function: int, grid: tuple, block: tuple, shared_mem: int, template: bytes,
                    slots: tuple[tuple[int, int], ...]) -> Callable[[int, tuple], None]:
        import struct

        template = bytes(template)

        def go(stream: int, values: tuple) -> None:
            buf = bytearray(template)
            for off, i in slots:
                struct.pack_into("<Q", buf, off, values[i])
            self._launch(function, grid, block, shared_mem, stream, bytes(buf))
        return go

    # ---- streams and events (everything completes inside launch) ------------------------
    def stream_create(self, device: int) -> int:
        return next(self._ids)

    def stream_destroy(self, stream: int) -> None:
        pass

    def stream_synchronize(self, stream: int) -> None:
        pass

    def event_create(self, device: int) -> int:
        return next(self._ids)

    def event_record(self, event: int, stream: int) -> None:
        pass

    def stream_wait_event(self, stream: int, event: int) -> None:
        pass

    def event_destroy(self, event: int) -> None:
        pass

    def stream_device(self, stream: int) -> int | None:
        return None

    def stream_is_capturing(self, stream: int, device: int) -> bool:
        return False

    # ---- memory --------------------------------------------------------------------
    def malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        arr = np.zeros(int(nbytes) + _ALIGN, np.uint8)
        address = arr.ctypes.data + (-arr.ctypes.data) % _ALIGN
        with self._lock:
            self._buffers[address] = arr
        regions.add(address, max(int(nbytes), 1), f"emulator allocation of {nbytes} bytes")
        return address

    def graph_malloc_async(self, nbytes: int, stream: int, device: int) -> int:
        return self.malloc_async(nbytes, stream, device)

    def free_async(self, ptr: int, stream: int, device: int) -> None:
        regions.remove(ptr)
        with self._lock:
            self._buffers.pop(ptr, None)

    def memset_async(self, ptr: int, byte: int, nbytes: int, stream: int, device: int) -> None:
        regions.write(np.array([ptr], np.uint64), np.full((1, int(nbytes)), byte & 0xFF, np.uint8))

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        data = regions.read(np.array([src], np.uint64), int(nbytes))
        ctypes.memmove(dst, data.ctypes.data, int(nbytes))

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        regions.write(np.array([dst], np.uint64), host_view(src, int(nbytes)).reshape(1, -1).copy())

    def pointer_device(self, ptr: int) -> int | None:
        starts, ends, _, _ = regions.snapshot()
        i = int(np.searchsorted(starts, np.uint64(ptr), side="right")) - 1
        return 0 if i >= 0 and ptr < int(ends[i]) else None

    def host_array(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """A new numpy array the emulated device can read and write (an output)."""
        a = np.empty(shape, dtype)
        regions.expose(a, a.ctypes.data, max(a.nbytes, 1), f"array {a.dtype}{list(a.shape)}")
        return a


def expose_view(view) -> None:
    """Register the memory a host TensorView spans (called for every CPU array pyhipattn views)."""
    if not view.shape:
        lo_e, hi_e = 0, 0
    else:
        lo_e = sum(min(0, (d - 1) * s) for d, s in zip(view.shape, view.strides) if d > 0)
        hi_e = sum(max(0, (d - 1) * s) for d, s in zip(view.shape, view.strides) if d > 0)
    if any(d == 0 for d in view.shape):
        return
    lo = view.ptr + lo_e * view.itemsize
    regions.expose(view.owner, lo, (hi_e - lo_e + 1) * view.itemsize, f"{view.framework} array {view.dtype}"
                   f"{list(view.shape)}")


def make_backend() -> EmulateBackend:
    try:
        return EmulateBackend()
    except ValueError:
        raise
    except Exception as e:
        raise PlatformError(f"the emulator cannot start: {type(e).__name__}: {e}") from e
