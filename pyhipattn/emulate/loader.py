"""Load an AMD code object for the emulator: its segments, kernel descriptors, and the
initial register state a dispatch gives each wave.

Facts used (LLVM AMDGPUUsage, "Kernel Descriptor" and "Initial Kernel Execution State"):

- The 64-byte kernel descriptor at ``<kernel>.kd``: group_segment_fixed_size (u32 @0),
  private_segment_fixed_size (@4), kernarg_size (@8), kernel_code_entry_byte_offset (i64 @16,
  from the descriptor's own address), compute_pgm_rsrc3 (@44), rsrc1 (@48), rsrc2 (@52),
  kernel_code_properties (u16 @56), kernarg_preload (u16 @58: length in dwords bits 0-6,
  offset bits 7-15; gfx940+).
- User SGPRs, in order, as enabled by kernel_code_properties bits: private segment buffer
  (4, bit 0), dispatch ptr (2, bit 1), queue ptr (2, bit 2), kernarg segment ptr (2, bit 3),
  dispatch id (2, bit 4), flat scratch init (2, bit 5), private segment size (1, bit 6), then
  the preloaded kernarg dwords; ``rsrc2.USER_SGPR`` (bits 1-5) counts them all.
- System SGPRs after them: workgroup id x / y / z (rsrc2 bits 7, 8, 9), workgroup info
  (bit 10), private segment wave offset (bit 0, scratch).
- gfx12 (architected SGPRs): ttmp9 holds the workgroup id x, ttmp7 id y | id z << 16.
- VGPR v0 holds the work-item id; gfx90a, gfx94x, gfx950 and gfx11+ pack x | y << 10 | z << 20.
- A kernel with kernarg preloading starts 256 bytes past its entry (the first 256 bytes load
  the same SGPRs for firmware without preloading).
- wave32 when kernel_code_properties bit 10 is set (gfx10+), else wave64.
- gfx90a+ CDNA: ``rsrc3.ACCUM_OFFSET`` (bits 0-5) = first AGPR / 4 - 1 in the unified file.

Our objects and AITER's are position-independent with no dynamic relocations; anything with
relocations is refused (the emulator does not link).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..codeobj.elf import ElfFile
from ..codeobj.model import CodeObject
from .errors import EmulatorError

_PHDR = struct.Struct("<IIQQQQQQ")
PT_LOAD = 1
SHT_RELA = 4
SHT_REL = 9
KD_SIZE = 64
PRELOAD_SKIP = 256


@dataclass(frozen=True)
class KernelDescriptor:
    name: str
    kd_address: int          # virtual address of <name>.kd
    entry: int               # virtual address of the first instruction a wave runs
    group_segment: int
    private_segment: int
    kernarg_size: int
    rsrc1: int
    rsrc2: int
    rsrc3: int
    properties: int
    preload_dwords: int
    preload_offset: int

    @property
    def wave32(self) -> bool:
        return bool(self.properties & (1 << 10))

    @property
    def user_sgpr_count(self) -> int:
        return (self.rsrc2 >> 1) & 0x1F

    @property
    def scratch(self) -> bool:
        return bool(self.rsrc2 & 1) or self.private_segment > 0

    @property
    def workitem_id_dims(self) -> int:
        return 1 + ((self.rsrc2 >> 11) & 3)


#: (kernel_code_properties bit, SGPR count) of the user SGPRs before preloaded kernargs.
USER_SGPRS = ((0, 4, "private_segment_buffer"), (1, 2, "dispatch_ptr"), (2, 2, "queue_ptr"),
              (3, 2, "kernarg_segment_ptr"), (4, 2, "dispatch_id"), (5, 2, "flat_scratch_init"),
              (6, 1, "private_segment_size"))


class LoadedImage:
    """The loadable segments of one AMD ELF image, laid out at their virtual addresses in
    one host buffer, and its kernels' descriptors."""

    def __init__(self, co: CodeObject) -> None:
        if co.platform != "amd":
            raise EmulatorError(f"{co.source} is a {co.platform} code object; the emulator runs AMD code objects")
        data = co.image
        elf = ElfFile(data, co.source)
        for sec in elf.sections:
            if sec.type in (SHT_RELA, SHT_REL) and sec.size:
                raise EmulatorError(f"{co.source} has relocations ({sec.name}); the emulator runs only "
                                    "position-independent code objects without relocations")
        phoff = struct.unpack_from("<Q", data, 0x20)[0]
        phnum = struct.unpack_from("<H", data, 0x38)[0]
        segs = [_PHDR.unpack_from(data, phoff + i * _PHDR.size) for i in range(phnum)]
        loads = [s for s in segs if s[0] == PT_LOAD]
        if not loads:
            raise EmulatorError(f"{co.source} has no loadable segments")
        size = max(va + memsz for (_t, _f, _o, va, _pa, _fs, memsz, _al) in loads)
        self.image = bytearray(size)
        for (_t, _f, off, va, _pa, filesz, _memsz, _al) in loads:
            self.image[va:va + filesz] = data[off:off + filesz]
        self.co = co
        self.arch = co.arch
        self.kernels: dict[str, KernelDescriptor] = {}
        symbols = {s.name: s for s in elf.symbols()}
        for name, info in co.kernels.items():
            kd_name = info.symbol if info.symbol.endswith(".kd") else info.symbol + ".kd"
            sym = symbols.get(kd_name)
            if sym is None:
                raise EmulatorError(f"{co.source}: kernel {name} has no {kd_name} symbol")
            self.kernels[name] = self._descriptor(name, sym.value)

    def _descriptor(self, name: str, address: int) -> KernelDescriptor:
        kd = bytes(self.image[address:address + KD_SIZE])
        if len(kd) != KD_SIZE:
            raise EmulatorError(f"{self.co.source}: the kernel descriptor of {name} lies outside the loaded segments")
        group, private, kernarg = struct.unpack_from("<III", kd, 0)
        entry_off = struct.unpack_from("<q", kd, 16)[0]
        rsrc3, rsrc1, rsrc2 = struct.unpack_from("<III", kd, 44)
        props, preload = struct.unpack_from("<HH", kd, 56)
        entry = address + entry_off
        plen, poff = preload & 0x7F, preload >> 7
        if plen:
            entry += PRELOAD_SKIP
        return KernelDescriptor(name, address, entry, group, private, kernarg, rsrc1, rsrc2, rsrc3, props,
                                plen, poff)
