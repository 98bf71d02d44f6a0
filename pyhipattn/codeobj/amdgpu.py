"""AMD hsaco (EM_AMDGPU ELF) -> :class:`CodeObject`, from the NT_AMDGPU_METADATA msgpack note.

Register counts are the metadata's: on gfx90a and newer CDNA ``.vgpr_count`` is the unified
total, alignTo(arch VGPRs, 4) + AGPRs when a kernel uses AGPRs (clang's remarks print the
arch VGPRs alone).  The
arch comes from ``amdhsa.target`` or, when a code object omits it (AITER's do), from
EF_AMDGPU_MACH in ``e_flags``.
"""

from __future__ import annotations

import re

from ..arch import canonical_arch
from .elf import EM_AMDGPU, ElfFile
from .model import CodeObject, KernelArg, KernelInfo

NT_AMDGPU_METADATA = 32

#: EF_AMDGPU_MACH (e_flags & 0xff) -> processor, as llvm-readelf-22 decodes it, plus the
#: retired gfx940/gfx941 values older code objects may still carry.
EF_AMDGPU_MACH: dict[int, str] = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702", 0x25: "gfx703",
    0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2a: "gfx803", 0x2b: "gfx810", 0x2c: "gfx900",
    0x2d: "gfx902", 0x2e: "gfx904", 0x2f: "gfx906", 0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c",
    0x33: "gfx1010", 0x34: "gfx1011", 0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031",
    0x38: "gfx1032", 0x39: "gfx1033", 0x3a: "gfx602", 0x3b: "gfx705", 0x3c: "gfx805",
    0x3d: "gfx1035", 0x3e: "gfx1034", 0x3f: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100",
    0x42: "gfx1013", 0x43: "gfx1150", 0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101",
    0x47: "gfx1102", 0x48: "gfx1200", 0x49: "gfx1250", 0x4a: "gfx1151", 0x4b: "gfx941",
    0x4c: "gfx942", 0x4e: "gfx1201", 0x4f: "gfx950", 0x51: "gfx9-generic", 0x52: "gfx10-1-generic",
    0x53: "gfx10-3-generic", 0x54: "gfx11-generic", 0x55: "gfx1152", 0x58: "gfx1153",
    0x59: "gfx12-generic", 0x5a: "gfx1251", 0x5f: "gfx9-4-generic",
}

_TARGET_GFX = re.compile(r"-(gfx[0-9a-f]+(?:-[0-9]+)*-generic|gfx[0-9a-f]+)(?::|$)")


def target_arch(target: str) -> str | None:
    """Processor of an ``amdhsa.target`` / bundle id, e.g. ``amdgcn-amd-amdhsa--gfx942:xnack-``
    or ``amdgpu9.42-amd-amdhsa-unknown-gfx942`` -> ``gfx942``; None when it names none."""
    m = _TARGET_GFX.search(target)
    if not m:
        return None
    name = m.group(1)
    return name if name.endswith("generic") else canonical_arch(name)


def parse_amdgpu(elf: ElfFile) -> CodeObject:
    """Read every kernel of an AMDGPU code object from its metadata note."""
    if elf.machine != EM_AMDGPU:
        raise elf.error(f"has e_machine {elf.machine:#x}, not EM_AMDGPU ({EM_AMDGPU:#x})")
    meta = _metadata(elf)
    target = meta.get("amdhsa.target")
    arch = target_arch(target) if isinstance(target, str) else None
    if arch is None:
        mach = elf.flags & 0xFF
        if mach not in EF_AMDGPU_MACH:
            raise elf.error(f"names no amdhsa.target and has unknown EF_AMDGPU_MACH {mach:#x} in e_flags")
        arch = EF_AMDGPU_MACH[mach]
    kernels_meta = meta.get("amdhsa.kernels")
    if not isinstance(kernels_meta, list):
        raise elf.error("has AMDGPU metadata without an amdhsa.kernels list")
    kernels: dict[str, KernelInfo] = {}
    for km in kernels_meta:
        k = _kernel(elf, km, arch)
        kernels[k.name] = k
    return CodeObject("amd", arch, bytes(elf.data), kernels, elf.source, meta)


def _metadata(elf: ElfFile) -> dict:
    for owner, typ, desc in elf.notes():
        if owner == "AMDGPU" and typ == NT_AMDGPU_METADATA:
            import msgpack  # lazy: keeps `import pyhipattn` cheap

            try:
                meta = msgpack.unpackb(desc, raw=False, strict_map_key=False)
            except Exception as e:  # msgpack raises several unrelated exception types
                raise elf.error(f"has an unreadable NT_AMDGPU_METADATA note ({type(e).__name__}: {e})") from None
            if not isinstance(meta, dict):
                raise elf.error("has NT_AMDGPU_METADATA that is not a msgpack map")
            return meta
    raise elf.error(
        "has no NT_AMDGPU_METADATA note (owner 'AMDGPU', type 32); code object v3 or newer is required"
    )


def _kernel(elf: ElfFile, km: object, arch: str) -> KernelInfo:
    if not isinstance(km, dict):
        raise elf.error("has an amdhsa.kernels entry that is not a map")

    def need(key: str) -> int | str:
        try:
            return km[key]
        except KeyError:
            raise elf.error(f"kernel {km.get('.name', '?')!r} metadata lacks {key}") from None

    try:
        args = tuple(
            KernelArg(
                offset=int(a[".offset"]),
                size=int(a[".size"]),
                kind=str(a[".value_kind"]),
                name=a.get(".name"),
                address_space=a.get(".address_space"),
            )
            for a in km.get(".args", ())
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise elf.error(
            f"kernel {km.get('.name', '?')!r} has an argument without .offset/.size/.value_kind"
        ) from None
    reqd = km.get(".reqd_workgroup_size")
    return KernelInfo(
        name=str(need(".name")),
        symbol=str(need(".symbol")),
        arch=arch,
        kernarg_size=int(need(".kernarg_segment_size")),
        kernarg_align=int(need(".kernarg_segment_align")),
        args=args,
        shared_bytes=int(km.get(".group_segment_fixed_size", 0)),
        scratch_bytes=int(km.get(".private_segment_fixed_size", 0)),
        vgpr_count=_opt_int(km.get(".vgpr_count")),
        sgpr_count=_opt_int(km.get(".sgpr_count")),
        agpr_count=_opt_int(km.get(".agpr_count")),
        vgpr_spill_count=_opt_int(km.get(".vgpr_spill_count")),
        sgpr_spill_count=_opt_int(km.get(".sgpr_spill_count")),
        wavefront_size=int(km.get(".wavefront_size", 64)),
        max_workgroup_size=_opt_int(km.get(".max_flat_workgroup_size")),
        reqd_workgroup_size=tuple(int(x) for x in reqd) if isinstance(reqd, list) and len(reqd) == 3 else None,
    )


def _opt_int(v: object) -> int | None:
    return None if v is None else int(v)  # type: ignore[arg-type]
