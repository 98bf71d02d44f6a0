"""The per-call path after planning: a problem's launches resolved to loaded kernels.

``prepare(decision, device)`` turns a dispatch Decision into a ``Prepared``: for each plan,
the loaded Kernel (module cache), grid, block, shared memory, the kernarg template and the
offsets of its pointer fields.  ``Prepared.launch(pointers, stream)`` then costs one
``struct.pack_into`` per pointer and one driver call per kernel: no parsing, no dict of
plans, no dataclass copies.  Prepared objects are cached per (problem, device) by the API.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_U64 = struct.Struct("<Q")


@dataclass(frozen=True)
class Launch:
    kernel: object                      # runtime.modules.Kernel
    function: int                       # its driver handle
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    template: bytes
    slots: tuple[tuple[str, int], ...]


class Prepared:
    """Launches of one problem on one device, ready to run with fresh pointers."""

    __slots__ = ("launches", "workspace_bytes", "device", "backend")

    def __init__(self, launches: tuple[Launch, ...], workspace_bytes: int, device: int, backend) -> None:
        self.launches = launches
        self.workspace_bytes = workspace_bytes
        self.device = device
        self.backend = backend

    def launch(self, pointers: dict[str, int], stream: int, workspace: int | None = None) -> None:
        """Queue every kernel on ``stream``; ``pointers`` maps slot names to device addresses.
        The ``workspace`` slot gets ``workspace`` when given (scratch the caller owns), else
        the stream's grow-only shared workspace."""
        if workspace is not None:
            pointers["workspace"] = workspace
            self._queue(pointers, stream)
        elif self.workspace_bytes:
            from .runtime.memory import workspace

            ws = workspace(self.device, stream)
            with ws.lock:   # producers and combine must see the same buffer
                pointers["workspace"] = ws.ensure(self.workspace_bytes)
                self._queue(pointers, stream)
        else:
            self._queue(pointers, stream)

    def _queue(self, pointers: dict[str, int], stream: int) -> None:
        # The shared-memory limits were raised in prepare(); the context is made current once.
        pack = _U64.pack_into
        backend = self.backend
        backend.make_current(self.device)
        launch = backend.launch
        for ln in self.launches:
            buf = bytearray(ln.template)
            for name, off in ln.slots:
                pack(buf, off, pointers.get(name, 0))
            launch(ln.function, ln.grid, ln.block, ln.shared_mem, stream, buf)


def prepare(plans, device: int) -> Prepared:
    """Resolve LaunchPlans (pointer slots unbound) to loaded kernels on ``device``.

    Empty launches (a zero grid dimension: batch 0, seqlen_q 0) are dropped, so an empty
    problem queues nothing.
    """
    from .runtime.modules import default_cache

    from .runtime.detect import get_backend

    launches = []
    for p in plans:
        if 0 in p.grid:
            continue
        k = default_cache.kernel(device, p.code_object, p.kernel)
        k.check_kernargs(len(p.kernargs), f"plan for {p.kernel}")
        if p.shared_mem > k._shared_allowed:
            k.allow_shared(p.shared_mem)      # once, here, not per call
        launches.append(Launch(k, k.function, p.grid, p.block, p.shared_mem, bytes(p.kernargs),
                               tuple(p.pointer_slots)))
    ws = max((p.workspace_bytes for p in plans), default=0)
    return Prepared(tuple(launches), ws, device, get_backend())
