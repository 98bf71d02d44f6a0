"""LaunchPlan: one kernel launch as a value.

A plan is built without a GPU (``plan_mha_fwd(..., arch="gfx942")`` works anywhere) and run
by ``runtime.launch(plan, stream)``.  Device addresses are not known when a problem is
planned, so the kernarg bytes carry zeros at the pointer fields and ``pointer_slots`` names
them; ``bind`` fills them in (one ``struct.pack_into`` per pointer) right before launch.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

_U64 = struct.Struct("<Q")


@dataclass(frozen=True)
class LaunchPlan:
    """One kernel launch.

    code_object: path of the code object (a file under ``kernels/co`` or a user path), or a
        key the module cache knows.
    kernel: symbol name of the kernel inside it.
    grid: number of workgroups/blocks in x, y, z.
    block: threads per workgroup/block in x, y, z.
    shared_mem: dynamic shared memory (LDS) bytes.
    kernargs: the explicit kernarg segment, exactly as the kernel expects it.
    workspace_bytes: device scratch this launch needs (fp32 split-K partials, ...); the
        ``workspace`` pointer slot receives its address.
    pointer_slots: (name, byte offset) of every 64-bit pointer field left to bind.
    """

    code_object: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    kernargs: bytes
    workspace_bytes: int = 0
    pointer_slots: tuple[tuple[str, int], ...] = ()

    def bind(self, pointers: dict[str, int]) -> "LaunchPlan":
        """Return a plan whose pointer fields hold ``pointers[name]`` (ints, device addresses).

        Raises KeyError naming the slot when a needed pointer is missing.
        """
        if not self.pointer_slots:
            return self
        buf = bytearray(self.kernargs)
        for name, off in self.pointer_slots:
            try:
                _U64.pack_into(buf, off, pointers[name])
            except KeyError:
                raise KeyError(f"plan for {self.kernel} needs pointer {name!r}; given: {sorted(pointers)}") from None
        return replace(self, kernargs=bytes(buf), pointer_slots=())

    @property
    def threads(self) -> int:
        b = self.block
        return b[0] * b[1] * b[2]
