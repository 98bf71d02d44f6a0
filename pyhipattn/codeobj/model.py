"""Plain data describing a code object and its kernels, whatever the file format.

These are the facts ``pyhipattn inspect`` prints and that kernarg packing is checked
against.  Field units: bytes unless the name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class KernelArg:
    """One explicit or hidden kernel argument as the code object's metadata describes it.

    ``name`` is None when the metadata carries no name (cubins never do; AMD metadata may).
    ``kind`` is the AMD ``.value_kind`` (``global_buffer``, ``by_value``, ``hidden_*`` ...);
    for cubins it is ``"param"``.  ``address_space`` is AMD's (``global``, ``generic``...) or None.
    """

    offset: int
    size: int
    kind: str
    name: str | None = None
    address_space: str | None = None

    @property
    def hidden(self) -> bool:
        """True for implicit arguments the runtime fills (AMD code object v5 ``hidden_*``)."""
        return self.kind.startswith("hidden_")


@dataclass(frozen=True)
class KernelInfo:
    """Everything known about one kernel in a code object.

    Resource fields that a format does not carry are None (e.g. AGPRs in a cubin).
    ``registers`` is the per-thread register count of a cubin kernel; AMD kernels use
    ``vgpr_count`` / ``sgpr_count`` / ``agpr_count`` instead.
    """

    name: str
    symbol: str
    arch: str
    kernarg_size: int
    kernarg_align: int
    args: tuple[KernelArg, ...]
    shared_bytes: int = 0             # LDS (AMD group segment) / static shared memory (cubin)
    scratch_bytes: int = 0            # private segment / local memory per thread
    vgpr_count: int | None = None
    sgpr_count: int | None = None
    agpr_count: int | None = None
    registers: int | None = None
    vgpr_spill_count: int | None = None
    sgpr_spill_count: int | None = None
    wavefront_size: int = 64
    max_workgroup_size: int | None = None
    reqd_workgroup_size: tuple[int, int, int] | None = None

    @property
    def explicit_args(self) -> tuple[KernelArg, ...]:
        """Arguments the caller's kernarg buffer must carry (hidden ones excluded)."""
        return tuple(a for a in self.args if not a.hidden)

    @property
    def explicit_kernarg_size(self) -> int:
        """Bytes of the explicit part of the kernarg segment (what ``extra`` must pass)."""
        ex = self.explicit_args
        return max((a.offset + a.size for a in ex), default=0)


@dataclass(frozen=True)
class CodeObject:
    """One loadable ELF image (an hsaco or a cubin) and its kernels.

    ``image`` is exactly what ``hipModuleLoadData`` / ``cuModuleLoadData`` take.
    ``platform`` is ``"amd"`` or ``"nvidia"``.  ``source`` names where it came from (a path,
    optionally with ``#<bundle entry id>``).
    """

    platform: str
    arch: str
    image: bytes = field(repr=False)
    kernels: dict[str, KernelInfo]
    source: str = "<bytes>"
    metadata: dict | None = field(default=None, repr=False, compare=False)

    def __getitem__(self, name: str) -> KernelInfo:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(
                f"kernel {name!r} is not in {self.source}; it has: {', '.join(sorted(self.kernels)) or 'no kernels'}"
            ) from None
