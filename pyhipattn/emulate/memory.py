"""Device memory of the emulated GPU: host memory, reached only through known buffers.

Every address a kernel may touch lies in a registered region: the emulator's own
allocations (``malloc_async``, kernarg segments, code), and the host arrays a caller passes
(registered when pyhipattn views them).  An access outside every region raises
:class:`MemoryFault` naming the address, so a kernel bug is an exception, not a corrupted
Python heap: a memcheck for free.  Regions of arrays go away with the arrays (a weakref
finalizer), so a stale address faults instead of reading freed memory.

Gathers and scatters are vectorised over lanes: ``read(addr, n)`` returns an ``(lanes, n)``
uint8 array for a ``(lanes,)`` uint64 address array.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any

import numpy as np

from .errors import MemoryFault

_U64 = np.uint64


def host_view(address: int, nbytes: int) -> np.ndarray:
    """A uint8 numpy view of ``nbytes`` of this process's memory at ``address`` (no copy, no owner)."""
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(address))


class Regions:
    """The set of host memory regions kernels may access (thread-safe, process-wide)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._regions: dict[int, tuple[int, np.ndarray, str]] = {}   # start -> (end, view, what)
        self._snap: tuple[np.ndarray, np.ndarray, list[np.ndarray], list[str]] | None = None

    def add(self, start: int, nbytes: int, what: str, view: np.ndarray | None = None) -> None:
        """Make ``[start, start + nbytes)`` accessible (replacing a region with the same start
        when the new one is larger)."""
        if nbytes <= 0 or start == 0:
            return
        with self._lock:
            old = self._regions.get(start)
            if old is not None and old[0] >= start + nbytes:
                return
            self._regions[start] = (start + nbytes, view if view is not None else host_view(start, nbytes), what)
            self._snap = None

    def remove(self, start: int) -> None:
        with self._lock:
            if self._regions.pop(start, None) is not None:
                self._snap = None

    def expose(self, owner: Any, start: int, nbytes: int, what: str) -> None:
        """Register a region that lives as long as ``owner`` (weakly referenced)."""
        self.add(start, nbytes, what)
        try:
            weakref.finalize(owner, self._forget, start, start + nbytes)
        except TypeError:      # owner without weakref support: keep the region (it may leak, never dangle
            pass               # for arrays pyhipattn views, whose owners all support weakrefs)

    def _forget(self, start: int, end: int) -> None:
        with self._lock:
            r = self._regions.get(start)
            if r is not None and r[0] == end:
                del self._regions[start]
                self._snap = None

    def snapshot(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[str]]:
        snap = self._snap
        if snap is None:
            with self._lock:
                items = sorted(self._regions.items())
                # nested regions (a view of a registered buffer) resolve to the enclosing one
                merged: list[list] = []
                for start, (end, view, what) in items:
                    if merged and start < merged[-1][1]:
                        if end > merged[-1][1]:    # overlapping, not nested: extend with a fresh view
                            lo = merged[-1][0]
                            merged[-1] = [lo, end, host_view(lo, end - lo), merged[-1][3]]
                        continue
                    merged.append([start, end, view, what])
                snap = (np.array([m[0] for m in merged], dtype=_U64), np.array([m[1] for m in merged], dtype=_U64),
                        [m[2] for m in merged], [m[3] for m in merged])
                self._snap = snap
        return snap

    def describe(self, address: int) -> str:
        starts, ends, _, whats = self.snapshot()
        near = [f"{whats[i]} [0x{int(starts[i]):x}, 0x{int(ends[i]):x})" for i in range(len(starts))
                if int(starts[i]) - (1 << 20) <= address < int(ends[i]) + (1 << 20)]
        return "; nearest buffers: " + ", ".join(near[:3]) if near else "; no buffer is near it"

    # ---- vectorised access ---------------------------------------------------------------
    def _locate(self, addr: np.ndarray, nbytes: int, write: bool) -> tuple[np.ndarray, tuple]:
        snap = self.snapshot()
        starts, ends = snap[0], snap[1]
        idx = np.searchsorted(starts, addr, side="right").astype(np.int64) - 1
        if len(starts) == 0:
            bad = np.ones(addr.shape, bool)
        else:
            bad = (idx < 0) | (addr + _U64(nbytes) > ends[np.maximum(idx, 0)])
        if bad.any():
            a = int(addr[np.argmax(bad)])
            raise MemoryFault(f"{'write' if write else 'read'} of {nbytes} bytes at 0x{a:x} is outside every buffer "
                              f"the launch can see{self.describe(a)}")
        return idx, snap

    def read(self, addr: np.ndarray, nbytes: int) -> np.ndarray:
        """``(len(addr), nbytes)`` uint8: the bytes at each address."""
        if addr.size == 0:
            return np.zeros((0, nbytes), np.uint8)
        idx, (starts, _e, views, _w) = self._locate(addr, nbytes, False)
        span = np.arange(nbytes, dtype=np.int64)
        first = int(idx[0])
        if (idx == first).all():
            off = (addr - starts[first]).astype(np.int64)
            return views[first][off[:, None] + span]
        out = np.empty((addr.size, nbytes), np.uint8)
        for r in np.unique(idx):
            sel = idx == r
            off = (addr[sel] - starts[r]).astype(np.int64)
            out[sel] = views[r][off[:, None] + span]
        return out

    def write(self, addr: np.ndarray, data: np.ndarray) -> None:
        """Store ``data[i]`` (uint8 rows) at ``addr[i]``; later lanes win where addresses repeat."""
        if addr.size == 0:
            return
        nbytes = data.shape[1]
        idx, (starts, _e, views, _w) = self._locate(addr, nbytes, True)
        span = np.arange(nbytes, dtype=np.int64)
        for r in np.unique(idx):
            sel = idx == r
            off = (addr[sel] - starts[r]).astype(np.int64)
            views[r][off[:, None] + span] = data[sel]


#: The emulated device's memory (one per process, like a GPU's address space).
regions = Regions()
