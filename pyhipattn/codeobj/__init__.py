"""Read GPU code objects: AMD hsaco, NVIDIA cubin, and clang offload bundles of hsacos.

    read(path_or_bytes)             -> list[CodeObject]   every loadable image in the file
    read_for_arch(path_or_bytes, a) -> CodeObject         the image a device of arch ``a`` runs

Nothing here touches a driver; malformed input raises :class:`CodeObjectError` naming the
file and what is wrong.
"""

from __future__ import annotations

import os
import struct
from contextlib import contextmanager
from typing import Iterator, Union

from ..arch import canonical_arch, compatible_arches
from ..errors import ArchNotFoundError, CodeObjectError
from .amdgpu import parse_amdgpu, target_arch
from .bundle import is_bundle, unbundle
from .cubin import parse_cubin
from .elf import ELF_MAGIC, EM_AMDGPU, EM_CUDA, ElfFile
from .model import CodeObject, KernelArg, KernelInfo

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

__all__ = [
    "CodeObject", "KernelArg", "KernelInfo", "CodeObjectError", "ArchNotFoundError",
    "read", "read_for_arch", "parse_image", "is_code_object", "target_arch",
]


def is_code_object(data: bytes) -> bool:
    """True when ``data`` starts like something :func:`read` accepts (ELF or offload bundle)."""
    return data.startswith(ELF_MAGIC) or is_bundle(data)


def parse_image(data: bytes, source: str = "<bytes>") -> CodeObject:
    """One ELF image (hsaco or cubin) -> CodeObject."""
    with _corrupt_as_error(source):
        elf = ElfFile(data, source)
        if elf.machine == EM_AMDGPU:
            return parse_amdgpu(elf)
        if elf.machine == EM_CUDA:
            return parse_cubin(elf)
    raise elf.error(
        f"is an ELF for e_machine {elf.machine:#x}; accepted are AMDGPU ({EM_AMDGPU:#x}) and CUDA ({EM_CUDA:#x})"
    )


@contextmanager
def _corrupt_as_error(source: str) -> Iterator[None]:
    """The readers check what they know can go wrong; a corrupt file that trips anything
    else (a metadata value of the wrong type, ...) still surfaces as CodeObjectError."""
    try:
        yield
    except CodeObjectError:
        raise
    except (struct.error, IndexError, KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        raise CodeObjectError(f"{source} is corrupt: {type(e).__name__}: {e}") from e


def read(src: Source) -> list[CodeObject]:
    """Every device image in a file or byte string: one for a plain hsaco / cubin, one per
    device entry of an offload bundle (host entries and empty entries are skipped).
    ``CodeObject.source`` is the path, plus ``#<bundle entry id>`` for bundle entries."""
    data, source = _load(src)
    if data.startswith(ELF_MAGIC):
        return [parse_image(data, source)]
    if not is_bundle(data):
        raise CodeObjectError(
            f"{source} is not a code object: it starts with {bytes(data[:8])!r}; accepted are ELF "
            "(hsaco, cubin) and clang offload bundles (__CLANG_OFFLOAD_BUNDLE__, CCOB)"
        )
    out = []
    with _corrupt_as_error(source):
        entries = unbundle(data, source)
    for entry_id, payload in entries:
        if entry_id.startswith("host-") or not payload:
            continue
        if not payload.startswith(ELF_MAGIC):
            raise CodeObjectError(f"{source}#{entry_id} is not an ELF image (bitcode or other bundle content)")
        out.append(parse_image(payload, f"{source}#{entry_id}"))
    if not out:
        raise CodeObjectError(f"{source} is an offload bundle without device code objects")
    return out


def read_for_arch(src: Source, arch: str) -> CodeObject:
    """The entry of ``src`` that a device of ``arch`` runs (exact arch first, then the
    compatible ones of :func:`pyhipattn.arch.compatible_arches`).

    Raises ArchNotFoundError listing the arches the file has.
    """
    objs = read(src)
    wanted = compatible_arches(arch)
    for a in wanted:
        for co in objs:
            if co.arch == a:
                return co
    source = objs[0].source.split("#", 1)[0]
    have = ", ".join(dict.fromkeys(co.arch for co in objs))
    raise ArchNotFoundError(f"code object {source} has {have}; device is {canonical_arch(arch)}")


def _load(src: Source) -> tuple[bytes, str]:
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src), "<bytes>"
    path = os.fspath(src)
    try:
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as e:
        raise CodeObjectError(f"{path}: cannot read code object ({e.strerror or e})") from None
