"""Kernarg structs declared in C headers: the ``// pyhipattn:begin`` ... ``// pyhipattn:end``
regions, read through cffi (ABI mode: no compiler), cached until the file changes."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .layouts import Field, StructLayout
from .values import _C_KINDS

_BEGIN = "// pyhipattn:begin"
_END = "// pyhipattn:end"


@dataclass(frozen=True)
class KernargHeader:
    """The structs and ``#define`` integer constants declared in a header's pyhipattn regions."""

    path: str
    structs: Mapping[str, StructLayout]
    constants: Mapping[str, int]

    def __getitem__(self, struct_name: str) -> StructLayout:
        try:
            return self.structs[struct_name]
        except KeyError:
            raise KeyError(f"{self.path} declares no struct {struct_name!r}; it declares: "
                           f"{', '.join(sorted(self.structs)) or 'none'}") from None


_HEADERS: dict[str, tuple[tuple[int, int], KernargHeader]] = {}


def read_header(path: str | os.PathLike[str]) -> KernargHeader:
    """Parse the pyhipattn regions of a C header (cached until the file changes).

    Raises ValueError naming the header and line for text cffi rejects, a missing or
    unbalanced marker, or a field type outside the convention; OSError if it cannot be read.
    """
    key = os.path.abspath(path)
    st = os.stat(key)
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _HEADERS.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    with open(key, encoding="utf-8") as fh:
        header = _parse_header(fh.read(), str(path))
    _HEADERS[key] = (stamp, header)
    return header


def layout_from_header(path: str | os.PathLike[str], struct_name: str) -> StructLayout:
    """The layout of ``struct_name`` (a struct tag or a typedef name) declared in ``path``."""
    return read_header(path)[struct_name]


_MARKER = re.compile(r"\s*//\s*pyhipattn:(begin|end)\b")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DEFINE = re.compile(r"\s*#\s*define\s+(\w+)\s+(.*?)\s*$")
_INT_LITERAL = re.compile(r"\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?")


def _parse_header(text: str, path: str) -> KernargHeader:
    """Blank everything outside the regions (so cdef's line numbers are the header's), then cdef."""
    import cffi  # imported here: only header reading needs it, not packing

    kept: list[str] = []
    constants: dict[str, int] = {}
    opened_at = regions = 0
    for lineno, (raw, line) in enumerate(zip(text.split("\n"), _strip_comments(text).split("\n")), start=1):
        marker = _MARKER.match(raw)
        if marker and marker.group(1) == "begin":
            if opened_at:
                raise ValueError(f"{path}:{lineno}: {_BEGIN!r} inside the region opened at line {opened_at}")
            opened_at, regions = lineno, regions + 1
        elif marker:
            if not opened_at:
                raise ValueError(f"{path}:{lineno}: {_END!r} without a {_BEGIN!r} before it")
            opened_at = 0
        elif opened_at and line.lstrip().startswith("#"):
            name, value = _parse_define(line, path, lineno)
            constants[name] = value
        elif opened_at:
            kept.append(line)
            continue
        kept.append("")
    if opened_at:
        raise ValueError(f"{path}:{opened_at}: {_BEGIN!r} has no {_END!r} after it")
    if not regions:
        raise ValueError(f"{path} has no '{_BEGIN}' ... '{_END}' region (see kernels/src/common/pyhipattn_kernargs.h)")

    ffi = cffi.FFI()
    try:
        ffi.cdef("\n".join(kept))
    except (cffi.CDefError, cffi.FFIError) as e:
        where = re.search(r"<cdef source string>:(\d+)", str(e))
        # cffi gives no line for an unknown type name; say what usually causes it
        at = f"{path}:{where.group(1)}" if where else f"{path} (an unknown type name?)"
        detail = " ".join(str(e).replace("<cdef source string>", "").replace(" :", ":").split())
        raise ValueError(f"{at}: cffi cannot parse the kernarg declarations ({detail}); the region must be "
                         "plain C structs of fixed-width types (see kernels/src/common/pyhipattn_kernargs.h)") from None
    typedefs, tags, _unions = ffi.list_types()
    structs = {tag: _layout_of(ffi, f"struct {tag}", tag, path) for tag in tags}
    for name in typedefs:
        if ffi.typeof(name).kind == "struct":
            structs[name] = _layout_of(ffi, name, name, path)
    return KernargHeader(path, structs, constants)


def _strip_comments(text: str) -> str:
    """Replace comments by spaces, keeping every newline (line numbers stay right)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _parse_define(line: str, path: str, lineno: int) -> tuple[str, int]:
    m = _DEFINE.match(line)
    lit = _INT_LITERAL.fullmatch(m.group(2)) if m else None
    if lit is None:
        raise ValueError(f"{path}:{lineno}: {line.strip()!r}: only '#define NAME <integer>' may appear "
                         "inside a pyhipattn region")
    return m.group(1), int(lit.group(1).replace(" ", ""), 0)


def _layout_of(ffi: Any, ctype_name: str, name: str, path: str) -> StructLayout:
    try:
        ctype = ffi.typeof(ctype_name)
    except Exception as e:  # cffi completes struct types lazily: duplicate fields surface here
        raise ValueError(f"{path}: struct {name}: {e}") from None
    if ctype.fields is None:
        raise ValueError(f"{path}: struct {name} is declared but never defined")
    fields = []
    for fname, cfield in ctype.fields:
        ftype = cfield.type
        if ftype.kind == "pointer":
            kind = "ptr"
        else:
            kind = _C_KINDS.get(ftype.cname) if ftype.kind == "primitive" else None
        if kind is None or cfield.bitsize != -1:
            raise ValueError(f"{path}: field {name}.{fname} has type {ftype.cname!r}"
                             f"{' (bit-field)' if cfield.bitsize != -1 else ''}; accepted: pointers and "
                             f"{', '.join(_C_KINDS)}")
        fields.append(Field(fname, cfield.offset, ffi.sizeof(ftype), kind))
    return StructLayout(name, ffi.sizeof(ctype), ffi.alignof(ctype), tuple(fields), path)
