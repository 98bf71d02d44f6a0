"""NVIDIA cubin (EM_CUDA ELF) -> :class:`CodeObject`, from the ``.nv.info`` attribute records.

Two ``e_flags`` layouts exist (checked against ptxas 12.8 and nvcc 13.0 output):

- ELF ABI version < 8 (CUDA <= 12): SM in bits 0-7, ``EF_CUDA_ACCELERATORS_V1`` (0x800)
  marks the ``a`` variant (``sm_90a`` = 0x5a0d5a).
- ABI version 8 (CUDA 13): SM in bits 8-15, ``EF_CUDA_ACCELERATORS`` is bit 3 (0x8).  nvcc
  13.0 leaves that bit clear even for ``sm_90a`` / ``sm_100a`` (0x6005a04 for both sm_90 and
  sm_90a); the ``a`` variant is then recorded only in the ``.nv.compat`` section, attribute
  0x09 = 1, which is what is read here.

``.nv.info`` records: u8 format, u8 attribute, then a u16 value (formats 1-3, 4 bytes in
all) or a u16 size and that many payload bytes (format 4).

Static shared memory is the size of ``.nv.shared.<kernel>``.  Cubins that carry a
``.nv.shared.reserved.<n>`` section (sm_90 and newer, ptxas 12.8 and 13.0) place the
driver's reserved 1 KiB (``cudaDevAttrReservedSharedMemoryPerBlock``) at the start of every
kernel's window, so that section is 1 KiB larger than the kernel's own shared data:
``cuobjdump -res-usage`` prints the section size, ptxas ``-v`` the kernel's own bytes.
``shared_bytes`` is the latter, which is what counts against ``sharedMemPerBlockOptin``.
"""

from __future__ import annotations

import struct
from typing import Iterator

from .elf import EM_CUDA, STT_FUNC, ElfFile
from .model import CodeObject, KernelArg, KernelInfo

EIFMT_SVAL = 0x04
EIATTR_MAX_THREADS = 0x05
EIATTR_REQNTID = 0x10
EIATTR_FRAME_SIZE = 0x11
EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_REGCOUNT = 0x2F
EICOMPAT_ATTR_ACCELERATORS = 0x09

EF_CUDA_ACCELERATORS_V1 = 0x800
EF_CUDA_ACCELERATORS = 0x8

#: Cubins do not record the parameter block's alignment; the driver copies the block, so the
#: host buffer needs none.  Reported as 8 (a pointer's).
CUBIN_PARAM_ALIGN = 8

#: Bytes of the system-reserved shared window included in ``.nv.shared.<kernel>`` sections.
NV_RESERVED_SHARED = 1024


def cubin_arch(elf: ElfFile) -> str:
    """``sm_90a`` / ``sm_80`` ... from the ELF header (and ``.nv.compat`` for CUDA 13 cubins)."""
    if elf.abi_version >= 8:
        sm, accel = (elf.flags >> 8) & 0xFF, bool(elf.flags & EF_CUDA_ACCELERATORS)
        compat = elf.section(".nv.compat")
        if compat is not None:
            accel = accel or any(
                attr == EICOMPAT_ATTR_ACCELERATORS and value == 1
                for _fmt, attr, value in nv_records(elf, elf.section_data(compat), ".nv.compat")
            )
    else:
        sm, accel = elf.flags & 0xFF, bool(elf.flags & EF_CUDA_ACCELERATORS_V1)
    if sm == 0:
        raise elf.error(f"is a cubin whose e_flags {elf.flags:#x} name no SM version")
    return f"sm_{sm}{'a' if accel else ''}"


def nv_records(elf: ElfFile, raw: bytes, where: str) -> Iterator[tuple[int, int, int | bytes]]:
    """``(format, attribute, value)`` of each record; value is an int, or bytes for format 4."""
    pos = 0
    while pos + 4 <= len(raw):
        fmt, attr, half = struct.unpack_from("<BBH", raw, pos)
        if fmt == EIFMT_SVAL:
            if pos + 4 + half > len(raw):
                raise elf.error(f"has a truncated {where} record (attribute {attr:#x}) at offset {pos}")
            yield fmt, attr, raw[pos + 4:pos + 4 + half]
            pos += 4 + half
        elif fmt in (1, 2, 3):
            yield fmt, attr, half
            pos += 4
        else:
            raise elf.error(f"has an unknown {where} record format {fmt:#x} at offset {pos}")


def parse_cubin(elf: ElfFile) -> CodeObject:
    """Read every kernel (STT_FUNC with a ``.text.<name>`` section) of a cubin."""
    if elf.machine != EM_CUDA:
        raise elf.error(f"has e_machine {elf.machine:#x}, not EM_CUDA ({EM_CUDA:#x})")
    arch = cubin_arch(elf)
    symbols = elf.symbols()
    per_symbol: dict[str, dict[int, int]] = {}   # kernel -> {attribute: value} from global .nv.info
    glob = elf.section(".nv.info")
    if glob is not None:
        for _fmt, attr, value in nv_records(elf, elf.section_data(glob), ".nv.info"):
            if isinstance(value, bytes) and len(value) >= 8:
                sym_index, v = struct.unpack_from("<II", value)
                if sym_index < len(symbols):
                    per_symbol.setdefault(symbols[sym_index].name, {})[attr] = v
    reserved = NV_RESERVED_SHARED if any(s.name.startswith(".nv.shared.reserved.") for s in elf.sections) else 0
    kernels: dict[str, KernelInfo] = {}
    for sym in symbols:
        if sym.type != STT_FUNC or not 0 < sym.shndx < len(elf.sections):
            continue
        if elf.sections[sym.shndx].name != f".text.{sym.name}":
            continue
        info = elf.section(f".nv.info.{sym.name}")
        if info is None:   # device functions have no per-kernel info section
            continue
        kernels[sym.name] = _kernel(elf, sym.name, arch, elf.section_data(info), per_symbol.get(sym.name, {}), reserved)
    return CodeObject("nvidia", arch, bytes(elf.data), kernels, elf.source, None)


def _kernel(elf: ElfFile, name: str, arch: str, raw: bytes, glob: dict[int, int], reserved: int) -> KernelInfo:
    args: list[KernelArg] = []
    param_size = None
    max_threads = reqntid = None
    where = f".nv.info.{name}"
    for _fmt, attr, value in nv_records(elf, raw, where):
        if attr == EIATTR_KPARAM_INFO and isinstance(value, bytes) and len(value) >= 12:
            _index, _ordinal, offset, flags = struct.unpack_from("<IHHI", value)
            args.append(KernelArg(offset=offset, size=(flags >> 18) & 0x3FFF, kind="param"))
        elif attr == EIATTR_CBANK_PARAM_SIZE and isinstance(value, int):
            param_size = value
        elif attr == EIATTR_MAX_THREADS and isinstance(value, bytes) and len(value) >= 12:
            max_threads = struct.unpack_from("<III", value)
        elif attr == EIATTR_REQNTID and isinstance(value, bytes) and len(value) >= 12:
            reqntid = struct.unpack_from("<III", value)
    args.sort(key=lambda a: a.offset)
    shared = elf.section(f".nv.shared.{name}")
    dims = reqntid or max_threads
    return KernelInfo(
        name=name,
        symbol=name,
        arch=arch,
        kernarg_size=param_size if param_size is not None else max((a.offset + a.size for a in args), default=0),
        kernarg_align=CUBIN_PARAM_ALIGN,
        args=tuple(args),
        shared_bytes=max(shared.size - reserved, 0) if shared is not None else 0,
        scratch_bytes=glob.get(EIATTR_FRAME_SIZE, 0),
        registers=glob.get(EIATTR_REGCOUNT),
        wavefront_size=32,
        max_workgroup_size=dims[0] * dims[1] * dims[2] if dims else None,
        reqd_workgroup_size=tuple(reqntid) if reqntid else None,
    )
