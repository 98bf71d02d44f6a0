"""The per-call path after planning: a problem's launches resolved to loaded kernels.

``prepare(plans, device)`` turns LaunchPlans into a ``Prepared``: for each plan, the loaded
Kernel (module cache), grid, block, shared memory, the kernarg template and, for each pointer
field, its byte offset and its index in ``POINTERS``, bound into a driver launch
(``backend.bind_launch``).  ``Prepared.run(values, stream)`` then costs, per kernel, one
``struct.pack_into`` per run of adjacent pointer fields into the thread's own kernarg buffer
(which already holds the template) and one driver call: no parsing, no dicts, no bytes objects.
Prepared objects are cached per (problem, device) by the API.
"""

from __future__ import annotations

from dataclasses import dataclass

from .runtime.memory import workspace as _workspace

#: Every pointer a plan may leave unbound, in the order ``Prepared.run`` takes their values: the
#: first seven, the workspace, then the serving family's (``SERVING_POINTERS``, ``extra=``).
SERVING_POINTERS = ("cache_seqlens", "block_table", "k_new", "v_new", "sinks", "alibi")
POINTERS = ("q", "k", "v", "out", "lse", "cu_seqlens_q", "cu_seqlens_k", "workspace") + SERVING_POINTERS


@dataclass(frozen=True)
class Launch:
    kernel: object                      # runtime.modules.Kernel
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    template: bytes
    packed: tuple[tuple[int, int], ...]  # (byte offset, index in POINTERS) of each pointer field
    go: object                          # backend.bind_launch(...): go(stream, values)


class Prepared:
    """Launches of one problem on one device, ready to run with fresh pointers."""

    __slots__ = ("launches", "workspace_bytes", "device", "backend")

    def __init__(self, launches: tuple[Launch, ...], workspace_bytes: int, device: int, backend) -> None:
        self.launches = launches
        self.workspace_bytes = workspace_bytes
        self.device = device
        self.backend = backend

    def launch(self, pointers: dict[str, int], stream: int, workspace: int | None = None) -> None:
        """Queue every kernel on ``stream``; ``pointers`` maps names of ``POINTERS`` to device
        addresses (missing ones are 0).  The workspace is ``workspace`` when given (scratch the
        caller owns), else the stream's grow-only shared workspace."""
        get = pointers.get
        self.run(pointer_values(pointers), stream, workspace, tuple(get(n, 0) for n in SERVING_POINTERS))

    def run(self, values: tuple, stream: int, workspace: int | None = None, extra: tuple = ()) -> None:
        """``launch`` with the addresses of the first seven ``POINTERS`` as a tuple, in order
        (and those of ``SERVING_POINTERS`` as ``extra``)."""
        # The kernels' device is made current for the call and the caller's device is current
        # again after it (``enter`` / ``leave``: no driver call when they are the same GPU).
        previous = self.backend.enter(self.device)
        try:
            if workspace is not None or not self.workspace_bytes:
                self._queue(values + (workspace or 0,) + extra, stream)
                return
            ws = _workspace(self.device, stream, self.backend)
            with ws.lock:   # a concurrent growth must not free the buffer before these launches are queued
                self._queue(values + (ws.ensure(self.workspace_bytes),) + extra, stream)
        finally:
            if previous is not None:
                self.backend.leave(previous)

    def _queue(self, values: tuple, stream: int) -> None:
        # The shared-memory limits were raised in prepare(); run() made the device current.
        for ln in self.launches:
            ln.go(stream, values)


def pointer_values(pointers: dict[str, int]) -> tuple:
    """The addresses of the first seven ``POINTERS`` in ``pointers`` (0 where missing), in
    order: what ``Prepared.run`` takes."""
    get = pointers.get
    return (get("q", 0), get("k", 0), get("v", 0), get("out", 0), get("lse", 0),
            get("cu_seqlens_q", 0), get("cu_seqlens_k", 0))


def prepare(plans, device: int) -> Prepared:
    """Resolve LaunchPlans (pointer slots unbound) to loaded kernels on ``device``.

    Empty launches (a zero grid dimension: batch 0, seqlen_q 0) are dropped, so an empty
    problem queues nothing.  Raises ValueError for a pointer slot not named in ``POINTERS``.
    """
    from .runtime.detect import get_backend
    from .runtime.modules import default_cache

    backend = get_backend()
    launches = []
    for p in plans:
        if 0 in p.grid:
            continue
        unknown = [n for n, _ in p.pointer_slots if n not in POINTERS]
        if unknown:
            raise ValueError(f"plan for {p.kernel} has pointer slots {unknown}; accepted names: {', '.join(POINTERS)}")
        k = default_cache.kernel(device, p.code_object, p.kernel)
        k.check_kernargs(len(p.kernargs), f"plan for {p.kernel}")
        if p.shared_mem > k._shared_allowed:
            k.allow_shared(p.shared_mem)      # once, here, not per call
        packed = tuple((off, POINTERS.index(n)) for n, off in p.pointer_slots)
        template = bytes(p.kernargs)
        go = backend.bind_launch(k.function, p.grid, p.block, p.shared_mem, template, packed)
        launches.append(Launch(k, p.grid, p.block, p.shared_mem, template, packed, go))
    ws = max((p.workspace_bytes for p in plans), default=0)
    return Prepared(tuple(launches), ws, device, backend)
