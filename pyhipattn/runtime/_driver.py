"""Driver plumbing shared by the CUDA and HIP backends.

Both drivers have the same shape where it matters here: every call returns a status,
``cuLaunchKernel`` and ``hipModuleLaunchKernel`` take the same eleven arguments, and both take
the kernarg bytes through an ``extra`` array ``{BUFFER_POINTER, &buf, BUFFER_SIZE, &size,
END}`` that differs only in the END marker (CUDA 0, HIP 3).  So this module holds, once:

- ``DriverBackend``: ``check`` / ``call`` turning a status into ``DriverError`` with the
  driver's own error name and text, and launcher selection;
- ``KernargScratch``: a per-thread reusable ``extra`` array and kernarg buffer (the driver
  copies the kernargs during the launch call, so one buffer per thread is enough);
- ``bind_launch``: a launch whose function, grid, block, shared memory and kernarg template
  are fixed (the per-call path of ``mha_fwd``): per thread, a buffer filled from the template
  once (``ThreadKernargs``), so a call writes only its pointers (``pointer_runs``: one
  ``struct.pack_into`` per run of adjacent pointer fields) and calls the driver;
- two launchers: ``BindingsLauncher`` (through cuda-bindings / hip-python) and
  ``CffiLauncher`` (cffi ABI mode straight into libcuda / libamdhip64, every argument an
  integer).  ``PYHIPATTN_LAUNCHER=bindings|cffi`` picks one; the default is bindings (faster
  against a stub driver); ``bench/launch_overhead.py`` compares both on a GPU.

Run on hardware: nothing here yet (written on a machine without a GPU; the CPU tests cover
the scratch buffer's layout and the status-to-exception path with fakes).
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from typing import Any, Callable

from pyhipattn.errors import DriverError, PlatformError

#: ``extra`` markers shared by CUDA and HIP (END differs and is given per backend).
PARAM_BUFFER_POINTER = 1
PARAM_BUFFER_SIZE = 2

LaunchFn = Callable[[int, tuple, tuple, int, int, bytes], None]


_LAUNCHER_ENV = "PYHIPATTN_LAUNCHER"


class KernargScratch(threading.local):
    """Per-thread ``extra`` array pointing at a reusable kernarg buffer.

    ``fill(kernargs)`` copies the bytes in and returns the address of the ``extra`` array
    (an int, what both bindings and cffi take).  Nothing is allocated per call once the
    buffer has grown to the largest kernarg block this thread has launched.
    """

    def __init__(self, end_marker: int, capacity: int = 512) -> None:
        self.end_marker = end_marker
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        self._buf = (ctypes.c_char * capacity)()
        self._size = ctypes.c_size_t(0)
        self._extra = (ctypes.c_void_p * 5)(
            PARAM_BUFFER_POINTER, ctypes.addressof(self._buf),
            PARAM_BUFFER_SIZE, ctypes.addressof(self._size),
            self.end_marker,
        )
        self.address = ctypes.addressof(self._extra)
        # One attribute read per fill (threading.local lookups cost about 50 ns each).
        self.state = (memoryview(self._buf).cast("B"), self._size, capacity, self.address)

    def fill(self, kernargs: bytes) -> int:
        view, size, capacity, address = self.state
        n = len(kernargs)
        if n > capacity:
            self._allocate(max(n, 2 * capacity))
            view, size, capacity, address = self.state
        view[:n] = kernargs
        size.value = n
        return address

    def words(self) -> list[int]:
        """The five ``extra`` entries as ints (None read as 0); for tests and debugging."""
        return [v or 0 for v in self._extra]


class DriverBackend:
    """Base of the CUDA and HIP backends: status checking and launcher selection.

    Subclasses set ``_api`` (the bindings module), ``platform``, ``dlpack_device_type``,
    ``default_stream``, ``deinitialized_status``, ``end_marker`` and implement
    ``describe(status)``; they call ``_init_launch(bindings_fn, library, symbol)``.
    """

    platform: str = ""
    dlpack_device_type: int = 0
    default_stream: int = 0
    deinitialized_status: int = -1
    end_marker: int = 0
    _api: Any = None

    # ---- status -> exception -------------------------------------------------------
    def describe(self, status: int) -> str:  # pragma: no cover - overridden
        return f"status {int(status)}"

    def error(self, call: str, status: Any) -> DriverError:
        try:
            text = self.describe(status)
        except Exception:  # the error path must not fail while explaining another failure
            text = f"status {int(status)}"
        return DriverError(call, int(status), text)

    def check(self, result: tuple, call: str = "driver call") -> Any:
        """Raise ``DriverError`` if ``result[0]`` is a failure status, else return the values.

        Bindings return ``(status,)``, ``(status, value)`` or ``(status, v1, v2, ...)``; this
        returns None, ``value`` or the tuple of values.
        """
        status = result[0]
        if status:
            raise self.error(call, status)
        n = len(result)
        if n == 1:
            return None
        return result[1] if n == 2 else result[1:]

    def call(self, name: str, *args: Any) -> Any:
        """``check(api.<name>(*args), name)``: every non-hot driver call goes through here."""
        return self.check(getattr(self._api, name)(*args), name)

    # ---- launch --------------------------------------------------------------------
    def _init_launch(self, bindings_fn: Callable, wrap_function: Callable[[int], Any],
                     wrap_stream: Callable[[int], Any], library: str, symbol: str) -> None:
        """Build both launchers (cffi when it loads) and bind ``self.launch`` to the chosen one."""
        self.launchers: dict[str, LaunchFn] = {
            "bindings": BindingsLauncher(bindings_fn, wrap_function, wrap_stream,
                                         KernargScratch(self.end_marker), self.error, symbol),
        }
        cffi_problem = None
        try:
            self.launchers["cffi"] = CffiLauncher(library, symbol, KernargScratch(self.end_marker), self.error)
        except Exception as e:  # cffi missing, or the library has no such symbol
            cffi_problem = f"{type(e).__name__}: {e}"
        want = os.environ.get(_LAUNCHER_ENV, "").strip().lower()
        if want and want not in ("bindings", "cffi"):
            raise ValueError(f"{_LAUNCHER_ENV}={want!r}: accepted values are 'bindings' and 'cffi'")
        if want == "cffi" and "cffi" not in self.launchers:
            raise PlatformError(f"{_LAUNCHER_ENV}=cffi but the cffi launcher is unavailable: {cffi_problem}")
        # Bindings by default: against a stub driver, cuda-bindings' Cython call costs about
        # 0.25 us less than cffi's ABI-mode call; bench/launch_overhead.py measures both on a GPU.
        self.launcher_name = want or "bindings"
        self.launch: LaunchFn = self.launchers[self.launcher_name]

    def bind_launch(self, function: int, grid: tuple, block: tuple, shared_mem: int, template: bytes,
                    slots: tuple[tuple[int, int], ...]) -> Callable[[int, tuple], None]:
        """A launch with everything but its pointers fixed: ``go(stream, values)`` sets the 64-bit
        field at byte offset ``off`` to ``values[i]`` for each ``(off, i)`` in ``slots`` and
        launches through the chosen launcher.  Each thread gets its own kernarg buffer, filled
        from ``template`` once, so a call writes only the pointers."""
        return self.launch.bind(function, grid, block, shared_mem, template, slots)


class ThreadKernargs(threading.local):
    """Per thread: a kernarg buffer initialised from ``template`` and its ``extra`` array
    (``state`` = (buffer, extra address); the address is 0 for a kernel without arguments)."""

    def __init__(self, template: bytes, end_marker: int) -> None:
        n = len(template)
        self._buf = (ctypes.c_char * max(n, 1)).from_buffer_copy(template or b"\0")
        self._size = ctypes.c_size_t(n)
        self._extra = (ctypes.c_void_p * 5)(PARAM_BUFFER_POINTER, ctypes.addressof(self._buf),
                                            PARAM_BUFFER_SIZE, ctypes.addressof(self._size), end_marker)
        self.state = (self._buf, ctypes.addressof(self._extra) if n else 0)


def pointer_runs(slots: tuple[tuple[int, int], ...]) -> tuple[tuple[Callable, int, int, int], ...]:
    """``(pack_into, offset, first, stop)`` per run of ``(offset, index)`` slots whose offsets
    step by 8 bytes as their indices step by 1: each run is one ``struct.pack_into`` of
    ``values[first:stop]`` (little-endian uint64) at ``offset``."""
    runs: list[list[int]] = []
    for off, i in sorted(slots, key=lambda s: s[0]):
        if runs and off == runs[-1][0] + 8 * (runs[-1][2] - runs[-1][1]) and i == runs[-1][2]:
            runs[-1][2] += 1
        else:
            runs.append([off, i, i + 1])
    return tuple((struct.Struct(f"<{b - a}Q").pack_into, off, a, b) for off, a, b in runs)


class _Launcher:
    """``launcher(function, grid, block, shared_mem, stream, kernargs)`` and ``bind(...)`` over
    a subclass's ``_go(..., extra)`` (one driver call) and ``_caller(...)`` (the same call with
    function, grid, block and shared memory fixed: ``call(stream, extra) -> status``)."""

    __slots__ = ()
    _scratch: KernargScratch
    _error: Callable[[str, Any], Exception]
    _name: str

    def __call__(self, function: int, grid: tuple, block: tuple, shared_mem: int, stream: int,
                  kernargs: bytes) -> None:
        self._go(function, grid, block, shared_mem, stream, self._scratch.fill(kernargs) if kernargs else 0)

    def bind(self, function: int, grid: tuple, block: tuple, shared_mem: int, template: bytes,
             slots: tuple) -> Callable[[int, tuple], None]:
        """DriverBackend.bind_launch through this launcher."""
        args = ThreadKernargs(bytes(template), self._scratch.end_marker)
        runs = pointer_runs(slots)
        call = self._caller(function, grid, block, shared_mem)
        error, name = self._error, self._name

        def go(stream: int, values: tuple) -> None:
            buf, extra = args.state
            for pack, off, a, b in runs:
                pack(buf, off, *values[a:b])
            status = call(stream, extra)
            if status:
                raise error(name, status)
        return go

    def _caller(self, function: int, grid: tuple, block: tuple,
                shared_mem: int) -> Callable[[int, int], int]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _go(self, function: int, grid: tuple, block: tuple, shared_mem: int, stream: int,
            extra: int) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class BindingsLauncher(_Launcher):
    """Launch through the vendor bindings (``driver.cuLaunchKernel`` / ``hip.hipModuleLaunchKernel``).

    Function and stream ints are wrapped once into the bindings' handle objects and cached,
    so a repeated launch constructs no handle objects.
    """

    __slots__ = ("_fn", "_wrap_function", "_wrap_stream", "_functions", "_streams", "_scratch", "_error", "_name")

    def __init__(self, fn: Callable, wrap_function: Callable[[int], Any], wrap_stream: Callable[[int], Any],
                 scratch: KernargScratch, error: Callable[[str, Any], Exception], name: str) -> None:
        self._fn = fn
        self._wrap_function = wrap_function
        self._wrap_stream = wrap_stream
        self._functions: dict[int, Any] = {}
        self._streams: dict[int, Any] = {}
        self._scratch = scratch
        self._error = error
        self._name = name

    def _caller(self, function: int, grid: tuple, block: tuple, shared_mem: int) -> Callable[[int, int], int]:
        fn, f, streams, stream_handle = self._fn, self._wrap_function(function), self._streams, self._stream
        gx, gy, gz = grid
        bx, by, bz = block

        def call(stream: int, extra: int) -> int:
            s = streams.get(stream)
            if s is None:
                s = stream_handle(stream)
            return fn(f, gx, gy, gz, bx, by, bz, shared_mem, s, None, extra)[0]
        return call

    def _stream(self, stream: int) -> Any:
        if len(self._streams) > 256:  # streams come and go; keep the map small
            self._streams.clear()
        s = self._streams[stream] = self._wrap_stream(stream)
        return s

    def _go(self, function: int, grid: tuple, block: tuple, shared_mem: int, stream: int, extra: int) -> None:
        f = self._functions.get(function)
        if f is None:
            f = self._functions[function] = self._wrap_function(function)
        s = self._streams.get(stream)
        if s is None:
            s = self._stream(stream)
        status = self._fn(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                          shared_mem, s, None, extra)[0]
        if status:
            raise self._error(self._name, status)


_CFFI_CDEF = """
int {symbol}(uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
             unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_mem,
             uintptr_t stream, uintptr_t kernel_params, uintptr_t extra);
"""


class CffiLauncher(_Launcher):
    """Launch through cffi ABI mode into the driver library itself.

    Handles are pointers in C; they are declared ``uintptr_t`` here, which the x86-64 and
    AArch64 calling conventions pass exactly like pointers, so every argument is a plain int
    and cffi converts nothing but integers.
    """

    __slots__ = ("_ffi", "_lib", "_fn", "_scratch", "_error", "_name")

    def __init__(self, library: str, symbol: str, scratch: KernargScratch,
                 error: Callable[[str, Any], Exception]) -> None:
        import cffi

        self._ffi = cffi.FFI()
        self._ffi.cdef(_CFFI_CDEF.format(symbol=symbol))
        self._lib = self._ffi.dlopen(library)
        self._fn = getattr(self._lib, symbol)
        self._scratch = scratch
        self._error = error
        self._name = symbol

    def _caller(self, function: int, grid: tuple, block: tuple, shared_mem: int) -> Callable[[int, int], int]:
        fn = self._fn
        gx, gy, gz = grid
        bx, by, bz = block
        return lambda stream, extra: fn(function, gx, gy, gz, bx, by, bz, shared_mem, stream, 0, extra)

    def _go(self, function: int, grid: tuple, block: tuple, shared_mem: int, stream: int, extra: int) -> None:
        status = self._fn(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                          shared_mem, stream, 0, extra)
        if status:
            raise self._error(self._name, status)


def text(value: Any) -> str:
    """A driver string (bytes, hip-python CStr, str) as str."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(value)
