"""The one protocol both GPU backends implement (AMD via hip-python, NVIDIA via cuda-bindings).

A backend does driver work only: devices, modules, functions, launches, streams, events,
stream-ordered memory.  Everything above it (which kernel, which grid, which bytes) is decided
by pure code and arrives as a LaunchPlan.  Handles are plain ints so that callers never hold
binding-specific objects.

Threading: every method may be called from any thread.  Methods that need a device's context
(module loads, allocations, launches) make it current themselves or document that the caller
does it with ``make_current``; ``launch`` is the one hot call and relies on the caller
(``runtime.launch`` / ``Kernel.launch``) having made the device current first.  Calls into
pyhipattn give the caller its own device back (``enter`` / ``leave``, or ``on_device``), since
a framework's current device follows the thread's current context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    arch: str            # canonical arch (pyhipattn.arch.canonical_arch)
    raw_arch: str        # as the driver reports it (gcnArchName, "9.0")
    compute_units: int   # CUs / SMs
    total_memory: int
    max_shared_per_block: int   # opt-in limit (bytes)


class Backend(Protocol):
    platform: str        # "amd" | "nvidia"
    dlpack_device_type: int   # 2 (kDLCUDA) or 10 (kDLROCM)
    default_stream: int  # the handle ``stream=None`` means without a framework: CU_STREAM_LEGACY (1) / HIP null stream (0)
    deinitialized_status: int  # the driver's "already torn down" status (CUDA_ERROR_DEINITIALIZED / hipErrorDeinitialized)

    def device_count(self) -> int: ...
    def device_info(self, index: int) -> DeviceInfo: ...
    def current_device(self) -> int: ...
    def make_current(self, device: int) -> None: ...
    # make `device` current for one call into pyhipattn and give the caller its own back after:
    # enter returns None when nothing changed, else the token leave takes
    def enter(self, device: int) -> Any: ...
    def leave(self, previous: Any) -> None: ...

    # modules and functions (handles are ints); load happens with `device` current
    def module_load(self, device: int, image: bytes) -> int: ...
    def module_unload(self, device: int, module: int) -> None: ...
    def get_function(self, module: int, name: str) -> int: ...
    def set_max_dynamic_shared(self, function: int, nbytes: int) -> None: ...

    # launch with the kernarg byte buffer passed through `extra` (caller made the device current)
    def launch(self, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
               shared_mem: int, stream: int, kernargs: bytes) -> None: ...
    def bind_launch(self, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                    shared_mem: int, template: bytes, slots: tuple[tuple[int, int], ...]) -> Any: ...

    # streams and events
    def stream_create(self, device: int) -> int: ...
    def stream_destroy(self, stream: int) -> None: ...
    def stream_synchronize(self, stream: int) -> None: ...
    def event_create(self, device: int) -> int: ...
    def event_record(self, event: int, stream: int) -> None: ...
    def stream_wait_event(self, stream: int, event: int) -> None: ...
    def event_destroy(self, event: int) -> None: ...

    # stream-ordered memory; host addresses are ints (ctypes.addressof, numpy .ctypes.data)
    def malloc_async(self, nbytes: int, stream: int, device: int) -> int: ...
    def graph_malloc_async(self, nbytes: int, stream: int, device: int) -> int: ...
    def free_async(self, ptr: int, stream: int, device: int) -> None: ...
    def memset_async(self, ptr: int, byte: int, nbytes: int, stream: int, device: int) -> None: ...
    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None: ...
    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None: ...
    def pointer_device(self, ptr: int) -> int | None: ...
    def stream_device(self, stream: int) -> int | None: ...
    def stream_is_capturing(self, stream: int, device: int) -> bool: ...


class on_device:
    """``with on_device(backend, device):`` runs the block with ``device`` current and makes the
    caller's device current again after it (``backend.enter`` / ``leave``; no driver call when
    they are the same).  The per-call launch (``Prepared.run``) spells the same two calls out."""

    __slots__ = ("backend", "device", "previous")

    def __init__(self, backend: Backend, device: int) -> None:
        self.backend, self.device = backend, device

    def __enter__(self) -> None:
        self.previous = self.backend.enter(self.device)

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            self.backend.leave(self.previous)
