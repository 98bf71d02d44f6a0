"""A small, bounds-checked ELF64 little-endian reader: header, sections, symbols, notes.

Code objects need only these four things, and reading 2,500 of them (AITER's wheel) must
take about a second, so this is a few ``struct`` calls rather than pyelftools.  Every
out-of-range offset raises :class:`~pyhipattn.errors.CodeObjectError` naming the source.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterator

from ..errors import CodeObjectError

ELF_MAGIC = b"\x7fELF"
EM_AMDGPU = 0xE0
EM_CUDA = 0xBE

SHT_SYMTAB = 2
SHT_NOTE = 7
SHT_NOBITS = 8
SHT_DYNSYM = 11

STT_OBJECT = 1
STT_FUNC = 2

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    type: int       # STT_*
    bind: int       # STB_*
    shndx: int


class ElfFile:
    """Parsed view of one ELF64 LE image; ``source`` names it in error messages."""

    def __init__(self, data: bytes, source: str = "<bytes>") -> None:
        self.data = data
        self.source = source
        if len(data) < _EHDR.size or not data.startswith(ELF_MAGIC):
            raise self.error(f"is not an ELF file (starts with {bytes(data[:4])!r}, expected {ELF_MAGIC!r})")
        if data[4] != 2 or data[5] != 1:
            raise self.error(f"is ELF class {data[4]} / data encoding {data[5]}; only ELF64 little-endian is accepted")
        (ident, self.type, self.machine, _ver, _entry, _phoff, shoff, self.flags,
         _ehsize, _phentsize, _phnum, shentsize, shnum, shstrndx) = _EHDR.unpack_from(data)
        self.osabi = ident[7]
        self.abi_version = ident[8]
        if shnum and shentsize != _SHDR.size:
            raise self.error(f"has section header size {shentsize}, expected {_SHDR.size}")
        self._check_range(shoff, shnum * _SHDR.size, "section header table")
        raw = [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]
        if shnum and not 0 <= shstrndx < shnum:
            raise self.error(f"names section {shstrndx} as its string table but has {shnum} sections")
        names = self._bytes(raw[shstrndx][4], raw[shstrndx][5], "section name table") if shnum else b""
        self.sections: list[Section] = []
        for i, (name_off, typ, flags, _addr, off, size, link, info, _align, entsize) in enumerate(raw):
            self.sections.append(Section(i, _cstr(names, name_off), typ, flags, off, size, link, info, entsize))
            if typ != SHT_NOBITS:
                self._check_range(off, size, f"section {self.sections[-1].name or i}")
        self._by_name = {s.name: s for s in self.sections}

    # -- errors and bounds -------------------------------------------------------------
    def error(self, what: str) -> CodeObjectError:
        return CodeObjectError(f"{self.source} {what}")

    def _check_range(self, offset: int, size: int, what: str) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise self.error(
                f"is truncated or corrupt: {what} spans bytes {offset}..{offset + size} of a {len(self.data)}-byte file"
            )

    def _bytes(self, offset: int, size: int, what: str) -> bytes:
        self._check_range(offset, size, what)
        return bytes(self.data[offset:offset + size])

    # -- sections ----------------------------------------------------------------------
    def section(self, name: str) -> Section | None:
        return self._by_name.get(name)

    def section_data(self, sec: Section) -> bytes:
        """Contents of a section (empty for NOBITS sections such as ``.nv.shared.*``)."""
        if sec.type == SHT_NOBITS:
            return b""
        return self._bytes(sec.offset, sec.size, f"section {sec.name}")

    # -- symbols -----------------------------------------------------------------------
    def symbols(self) -> list[Symbol]:
        """Symbols of ``.symtab`` (or ``.dynsym`` when the image is stripped)."""
        tab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        tab = tab or next((s for s in self.sections if s.type == SHT_DYNSYM), None)
        if tab is None:
            return []
        if not 0 <= tab.link < len(self.sections):
            raise self.error(f"symbol table {tab.name} links to missing string table {tab.link}")
        strtab = self.section_data(self.sections[tab.link])
        raw = self.section_data(tab)
        out = []
        for off in range(0, len(raw) - _SYM.size + 1, _SYM.size):
            name_off, info, _other, shndx, value, size = _SYM.unpack_from(raw, off)
            out.append(Symbol(_cstr(strtab, name_off), value, size, info & 0xF, info >> 4, shndx))
        return out

    # -- notes -------------------------------------------------------------------------
    def notes(self) -> Iterator[tuple[str, int, bytes]]:
        """``(owner, type, descriptor)`` of every note in every SHT_NOTE section."""
        for sec in self.sections:
            if sec.type != SHT_NOTE:
                continue
            raw = self.section_data(sec)
            pos = 0
            while pos + 12 <= len(raw):
                namesz, descsz, typ = struct.unpack_from("<III", raw, pos)
                name_end = pos + 12 + namesz
                desc_at = pos + 12 + _align4(namesz)
                if desc_at + descsz > len(raw):
                    raise self.error(f"has a truncated note in {sec.name} at offset {pos}")
                yield raw[pos + 12:name_end].rstrip(b"\0").decode("latin-1"), typ, raw[desc_at:desc_at + descsz]
                pos = desc_at + _align4(descsz)


def _align4(n: int) -> int:
    return (n + 3) & ~3


def _cstr(table: bytes, offset: int) -> str:
    if not 0 <= offset < len(table):
        return ""
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", "replace")
