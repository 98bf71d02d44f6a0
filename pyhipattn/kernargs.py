"""Kernel arguments: struct layouts from C headers, fast packing, checks against metadata.

A kernel family declares its kernarg struct once, in a C header that the kernel source
includes and that :func:`layout_from_header` reads through cffi (ABI mode: no compiler).  The
convention for that header is written down in ``kernels/src/common/pyhipattn_kernargs.h``:
plain C between ``// pyhipattn:begin`` and ``// pyhipattn:end`` lines, fixed-width fields.

Three ways to build the kernarg bytes that a launch passes through ``extra``:

- ``layout.packer().pack(...)``: from a declared :class:`StructLayout`, after
  :func:`check_layout` has compared it with the code object's metadata.  One precompiled
  ``struct.Struct``; this is the per-call path.
- :func:`pack_by_names`: from the metadata's own argument names (AITER's ASM kernels).
- :func:`pack_positional`: from the metadata's offsets and sizes alone (the generic
  ``module["name"].launch(grid, block, *args)`` door, Triton cubins with unnamed params).

Pointer fields take an int address, None (null), or an array object exposing its device
address (``data_ptr()``, ``.data.ptr`` / ``.ptr``, ``__cuda_array_interface__``).
"""

from __future__ import annotations

import numbers
import operator
import os
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .codeobj.model import KernelArg, KernelInfo
from .errors import CodeObjectError, KernargMismatchError

__all__ = [
    "Field", "StructLayout", "KernargHeader", "Packer", "ArgPacker",
    "read_header", "layout_from_header", "check_layout", "triton_layout",
    "kernarg_buffer_size", "arg_packer", "pack_by_names", "pack_positional", "address_of",
]

# kind -> (struct code, size).  Every kind is naturally aligned (alignment == size).
KINDS: dict[str, tuple[str, int]] = {
    "i8": ("b", 1), "u8": ("B", 1), "i16": ("h", 2), "u16": ("H", 2),
    "i32": ("i", 4), "u32": ("I", 4), "i64": ("q", 8), "u64": ("Q", 8),
    "f16": ("e", 2), "f32": ("f", 4), "f64": ("d", 8), "ptr": ("Q", 8),
}
_FLOAT_KINDS = frozenset({"f16", "f32", "f64"})

# C type names allowed in a header (after cffi resolves typedefs) -> kind.
_C_KINDS = {
    "int8_t": "i8", "uint8_t": "u8", "int16_t": "i16", "uint16_t": "u16",
    "int32_t": "i32", "uint32_t": "u32", "int64_t": "i64", "uint64_t": "u64",
    "int": "i32", "unsigned int": "u32", "float": "f32", "double": "f64",
}

# Triton signature types -> kind (Triton's launcher passes i1 as int8, fp16 as its 16 bits).
_TRITON_KINDS = {
    "i1": "i8", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
    "u1": "u8", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "fp16": "f16", "fp32": "f32", "f32": "f32", "fp64": "f64",
}

# AMD .value_kind values whose argument is a 64-bit address.
_POINTER_VALUE_KINDS = frozenset({"global_buffer", "dynamic_shared_pointer", "image", "sampler", "pipe", "queue"})

# What struct raises for a value that does not fit (OverflowError: a float beyond f32/f16).
_PACK_ERRORS = (struct.error, OverflowError)

_BEGIN = "// pyhipattn:begin"
_END = "// pyhipattn:end"
_POINTER_HELP = ("an int address, None (null), or an array with data_ptr() (torch), .data.ptr / .ptr (cupy) "
                 "or __cuda_array_interface__")


# ----------------------------------------------------------------------------- layouts

@dataclass(frozen=True)
class Field:
    """One struct field: byte offset and size inside the struct, and its kind (a key of KINDS)."""

    name: str
    offset: int
    size: int
    kind: str


@dataclass(frozen=True)
class StructLayout:
    """A kernarg struct: total size (with trailing padding), alignment, fields in order.

    ``source`` says where it was declared (a header path, or ``"triton signature"``), for messages.
    """

    name: str
    size: int
    align: int
    fields: tuple[Field, ...]
    source: str = ""

    def __post_init__(self) -> None:
        end = 0
        for f in self.fields:
            if f.kind not in KINDS or KINDS[f.kind][1] != f.size:
                raise ValueError(f"field {self.name}.{f.name}: kind {f.kind!r} with size {f.size} is not one of "
                                 f"{', '.join(f'{k} ({s} B)' for k, (_, s) in KINDS.items())}")
            if f.offset < end:
                raise ValueError(f"field {self.name}.{f.name} at offset {f.offset} overlaps the field before it")
            end = f.offset + f.size
        if end > self.size:
            raise ValueError(f"struct {self.name} is {self.size} bytes but its fields end at {end}")

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"struct {self.name} has no field {name!r}; it has: {', '.join(self.names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def pointer_slots(self) -> tuple[tuple[str, int], ...]:
        """(name, offset) of every pointer field, as ``LaunchPlan.pointer_slots`` wants them."""
        return tuple((f.name, f.offset) for f in self.fields if f.kind == "ptr")

    def packer(self) -> Packer:
        """The (cached) packer for this layout."""
        return self._packer

    @cached_property
    def _packer(self) -> Packer:
        return Packer(self)


def _natural_layout(name: str, fields: Sequence[tuple[str, str]], source: str) -> StructLayout:
    """Lay ``(name, kind)`` fields out with C natural alignment, as a compiler would."""
    offset, align, out = 0, 1, []
    for fname, kind in fields:
        size = KINDS[kind][1]
        offset = _round_up(offset, size)
        out.append(Field(fname, offset, size, kind))
        offset += size
        align = max(align, size)
    return StructLayout(name, _round_up(offset, align), align, tuple(out), source)


def triton_layout(signature: Sequence[tuple[str, str]] | Mapping[str, str], name: str = "triton_args",
                  scratch: tuple[str, ...] = ("global_scratch", "profile_scratch")) -> StructLayout:
    """The kernarg layout of a Triton-compiled kernel.

    ``signature`` lists ``(param name, Triton type)`` in order, e.g. ``[("Q", "*bf16"),
    ("sm_scale", "fp32"), ("stride_qb", "i32"), ("n", "i64")]``, or is the same as a dict (what
    ``triton.compiler.ASTSource`` takes); ``constexpr`` entries take no kernarg bytes.  Triton appends two pointer params (global and profile
    scratch, ``*i8``), named by ``scratch``.  Fields use C natural alignment.
    """
    fields = []
    for pname, ttype in signature.items() if isinstance(signature, Mapping) else signature:
        if ttype == "constexpr":
            continue
        if ttype.startswith("*"):
            fields.append((pname, "ptr"))
        elif ttype in _TRITON_KINDS:
            fields.append((pname, _TRITON_KINDS[ttype]))
        else:
            raise ValueError(f"Triton parameter {pname!r} has type {ttype!r}; accepted: pointers ('*bf16', ...), "
                             f"constexpr, {', '.join(_TRITON_KINDS)} (a bf16 scalar param is not supported)")
    fields += [(s, "ptr") for s in scratch]
    return _natural_layout(name, fields, "triton signature")


# ----------------------------------------------------------------------------- headers

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


# ----------------------------------------------------------------------------- values

def address_of(obj: object, what: str = "pointer") -> int:
    """The device address an argument stands for.

    Accepts an int, None (null), or an object with ``data_ptr()`` (torch), ``.data.ptr`` or
    ``.ptr`` (cupy arrays and memory pointers) or ``__cuda_array_interface__``.  Raises
    TypeError naming ``what`` for anything else (a host numpy array, a float, a bool ...).
    """
    if obj.__class__ is int:
        return obj  # type: ignore[return-value]
    address = _address_or_none(obj)
    if address is None:
        raise TypeError(f"{what} must be a device pointer: {_POINTER_HELP}; got {_describe(obj)}")
    return address


def _address_or_none(obj: object) -> int | None:
    if obj is None:
        return 0
    if isinstance(obj, bool):
        return None
    data_ptr = getattr(obj, "data_ptr", None)
    if callable(data_ptr):
        return int(data_ptr())
    for ptr in (getattr(getattr(obj, "data", None), "ptr", None), getattr(obj, "ptr", None)):
        if isinstance(ptr, int) and not isinstance(ptr, bool):
            return ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    if isinstance(obj, numbers.Integral):  # numpy integers
        return operator.index(obj)
    return None


def _describe(value: object) -> str:
    text = repr(value)
    return f"{text if len(text) <= 40 else text[:37] + '...'} ({type(value).__name__})"


def _bad_value(what: str, kind: str, value: object) -> Exception:
    """The exception for a value that ``struct`` refused for a field of ``kind``."""
    if kind == "ptr":
        if isinstance(value, int) and not isinstance(value, bool):
            return ValueError(f"{what} (ptr) must be an address in [0, 2**64); got {value}")
        return TypeError(f"{what} must be a device pointer: {_POINTER_HELP}; got {_describe(value)}")
    if kind in _FLOAT_KINDS:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ValueError(f"{what} ({kind}) is out of range for {kind}: {value!r}")
        return TypeError(f"{what} ({kind}) must be a float or an int; got {_describe(value)}")
    bits = 8 * KINDS[kind][1]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind[0] == "i" else (0, (1 << bits) - 1)
    if isinstance(value, numbers.Integral):
        return ValueError(f"{what} ({kind}) must be an int in [{lo}, {hi}]; got {operator.index(value)}")
    return TypeError(f"{what} ({kind}) must be an int in [{lo}, {hi}]; got {_describe(value)}")


def _round_up(n: int, align: int) -> int:
    return -(-n // align) * align if align > 1 else n


def _struct_format(pieces: Sequence[tuple[int, str, int]], total: int) -> str:
    """A little-endian ``struct`` format for ``(offset, code, size)`` pieces, gaps as pad bytes."""
    fmt, end = ["<"], 0
    for offset, code, size in pieces:
        if offset > end:
            fmt.append(f"{offset - end}x")
        fmt.append(code)
        end = offset + size
    if total > end:
        fmt.append(f"{total - end}x")
    return "".join(fmt)


def _getter(keys: Sequence[str]) -> Any:
    """``mapping -> tuple of mapping[k] for k in keys`` at C speed (raises KeyError)."""
    if len(keys) < 2:  # itemgetter returns a bare value for one key, and needs at least one
        return lambda mapping: tuple(mapping[k] for k in keys)
    return operator.itemgetter(*keys)


def _count_error(who: str, names: Sequence[str], got: int) -> TypeError:
    return TypeError(f"{who} takes {len(names)} arguments ({', '.join(names)}), got {got}")


# ----------------------------------------------------------------------------- layout packer

class Packer:
    """Packs values into one StructLayout's bytes with a single precompiled ``struct.Struct``.

    ``pack(*values)`` in field order, ``pack(**values)`` by field name, or a mix as in a Python
    call.  Pointer fields also take array objects (see :func:`address_of`).  Build it with
    ``layout.packer()``.
    """

    __slots__ = ("layout", "size", "_struct", "_names", "_labels", "_count", "_pointers", "_by_name")

    def __init__(self, layout: StructLayout) -> None:
        self.layout = layout
        self.size = layout.size
        pieces = [(f.offset, KINDS[f.kind][0], f.size) for f in layout.fields]
        self._struct = struct.Struct(_struct_format(pieces, layout.size))
        self._names = layout.names
        self._labels = tuple(f"{layout.name}.{name}" for name in self._names)
        self._count = len(self._names)
        self._by_name = _getter(self._names)
        self._pointers = tuple(i for i, f in enumerate(layout.fields) if f.kind == "ptr")

    def pack(self, *args: Any, **kwargs: Any) -> bytes:
        """The struct's bytes (``layout.size`` long) for these field values."""
        values = self._prepare(args, kwargs)
        try:
            return self._struct.pack(*values)
        except _PACK_ERRORS:
            raise self._diagnose(values) from None

    def pack_into(self, buffer: bytearray | memoryview, offset: int, *args: Any, **kwargs: Any) -> None:
        """Write the struct's bytes into ``buffer`` at ``offset`` (like ``struct.pack_into``)."""
        values = self._prepare(args, kwargs)
        try:
            self._struct.pack_into(buffer, offset, *values)
        except _PACK_ERRORS:
            raise self._diagnose(values) from None

    def _prepare(self, args: tuple, kwargs: dict[str, Any]) -> Sequence[Any]:
        """Field values in order, pointers as int addresses (the common case costs two checks)."""
        values = self._values(args, kwargs) if kwargs or len(args) != self._count else args
        for i in self._pointers:
            if values[i].__class__ is not int:
                return self._with_addresses(values)
        return values

    def unpack(self, data: bytes | bytearray | memoryview) -> dict[str, int | float]:
        """Field values read back from packed bytes (pointers as ints)."""
        return dict(zip(self._names, self._struct.unpack_from(data)))

    def _with_addresses(self, values: Sequence[Any]) -> list:
        values = list(values)
        for i in self._pointers:
            values[i] = address_of(values[i], self._labels[i])
        return values

    def _values(self, args: tuple, kwargs: dict[str, Any]) -> Sequence[Any]:
        """Field values in order from a call's arguments, like Python binds a call."""
        names, who = self._names, f"struct {self.layout.name}"
        if not args and len(kwargs) == len(names):
            try:
                return self._by_name(kwargs)
            except KeyError:
                pass  # an unknown name in place of a field: reported below
        if len(args) > len(names) or not kwargs:
            raise _count_error(who, names, len(args))
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            raise TypeError(f"{who} has no field {', '.join(map(repr, unknown))}; fields: {', '.join(names)}")
        twice = [k for k in names[:len(args)] if k in kwargs]
        if twice:
            raise TypeError(f"{who}: {', '.join(map(repr, twice))} given both by position and by name")
        missing = [k for k in names[len(args):] if k not in kwargs]
        if missing:
            raise TypeError(f"{who} is missing {', '.join(map(repr, missing))}; fields: {', '.join(names)}")
        return [*args, *(kwargs[k] for k in names[len(args):])]

    def _diagnose(self, values: list) -> Exception:
        for f, value in zip(self.layout.fields, values):
            try:
                struct.pack("<" + KINDS[f.kind][0], value)
            except _PACK_ERRORS:
                return _bad_value(f"{self.layout.name}.{f.name}", f.kind, value)
        return RuntimeError(f"struct {self.layout.name}: struct.pack failed on values that pack one by one")


# ----------------------------------------------------------------------------- metadata

def kernarg_buffer_size(kernel: KernelInfo) -> int:
    """Bytes of the kernarg buffer to pass through ``extra``.

    With hidden arguments (AMD code object v5) the runtime fills those itself, so the buffer
    ends with the last explicit argument, rounded up to ``kernarg_align``.  Without them it is
    the whole ``kernarg_size`` (AMD ``.kernarg_segment_size``, cubin CBANK param size), which
    keeps the trailing padding hand-written kernels (AITER) declare.
    """
    explicit_end = kernel.explicit_kernarg_size
    if any(a.hidden for a in kernel.args):
        return _round_up(explicit_end, kernel.kernarg_align)
    return max(kernel.kernarg_size, explicit_end)


_PAD_NAME = re.compile(r"_.*|pad[_\d]*")


def _is_pad(arg: KernelArg) -> bool:
    """Arguments that only hold space: named ``pad``, ``pad3``, ``pad_1`` or ``_anything``."""
    return arg.name is not None and _PAD_NAME.fullmatch(arg.name) is not None


def _declared_kind(arg: KernelArg) -> str | None:
    """The kind the metadata states, if it states one.

    AMD metadata v5 gives only ``.size`` and ``.value_kind``; older code objects and some
    readers add ``.value_type`` (``f32``, ``i32``...) or a C ``.type_name`` (``float``, ``int*``).
    """
    if arg.kind in _POINTER_VALUE_KINDS:
        return "ptr"
    value_type = getattr(arg, "value_type", None)
    if value_type in KINDS and KINDS[value_type][1] == arg.size:
        return value_type
    type_name = getattr(arg, "type_name", None)
    if type_name:
        c = " ".join(type_name.replace("const", " ").split())
        kind = "ptr" if c.endswith("*") else _C_KINDS.get(c)
        if kind is not None and KINDS[kind][1] == arg.size:
            return kind
    return None


@dataclass(frozen=True)
class _Slot:
    """One value-carrying argument.

    ``kind``: a key of KINDS when the metadata says it; None for a 1/2/4/8-byte scalar of
    unknown type; ``"blob"`` for an argument of another size (a struct by value).
    """

    label: str
    name: str | None
    offset: int
    size: int
    kind: str | None


_ANY_INT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_ANY_FLOAT_CODES = {2: "e", 4: "f", 8: "d"}


class ArgPacker:
    """Packs a kernel's arguments from its code-object metadata (offsets, sizes, kinds, names).

    Pads (args named ``pad*`` / ``_*``) are zero-filled and take no value.  A scalar of unknown
    type (no ``.value_type`` / ``.type_name`` in the metadata: every cubin param, every AMD
    ``by_value``) is encoded by the Python value: an int as a little-endian integer of the
    arg's size (negative ones in two's complement), a float as f16/f32/f64 by size, an array
    (8-byte args only) as its address.  Args of other sizes (structs by value) take ``bytes``
    of exactly that size.  Get one with :func:`arg_packer`.
    """

    def __init__(self, kernel: KernelInfo) -> None:
        self.kernel = kernel
        self.size = kernarg_buffer_size(kernel)
        slots, end = [], 0
        for i, arg in enumerate(kernel.explicit_args):
            if arg.offset < end:
                raise CodeObjectError(f"kernel {kernel.name}: metadata argument {i} at offset {arg.offset} "
                                           "overlaps the one before it")
            end = arg.offset + arg.size
            if not _is_pad(arg):
                label = f"kernel {kernel.name} argument {arg.name or f'arg{len(slots)}'}"
                kind = _declared_kind(arg) or (None if arg.size in _ANY_INT_CODES else "blob")
                slots.append(_Slot(label, arg.name, arg.offset, arg.size, kind))
        self._slots = tuple(slots)
        self.names = tuple(s.name or f"arg{i}" for i, s in enumerate(slots))
        self._codes = tuple(self._code(s) for s in slots)
        self._structs = {(): struct.Struct(self._format(self._codes))}
        named = [s.name for s in slots if s.name is not None]
        self._required = frozenset(named)
        self._by_name = _getter(named) if named and len(named) == len(slots) else None
        duplicates = sorted({n for n in named if named.count(n) > 1})
        self._unnamed_reason = (  # why pack_names cannot work for this kernel, if it cannot
            "its metadata names none of its arguments" if not named else
            f"its metadata names {', '.join(map(repr, duplicates))} more than once" if duplicates else None)

    @property
    def pointer_slots(self) -> tuple[tuple[str, int], ...]:
        """(name, offset) of the arguments the metadata declares as pointers."""
        return tuple((n, s.offset) for n, s in zip(self.names, self._slots) if s.kind == "ptr")

    def pack_positional(self, args: Sequence[Any]) -> bytes:
        """Bytes for ``args`` given in metadata order (pads excluded)."""
        if len(args) != len(self._slots):
            raise _count_error(f"kernel {self.kernel.name}", self.names, len(args))
        return self._encode(list(args))

    def pack_names(self, values: Mapping[str, Any]) -> bytes:
        """Bytes for ``values`` keyed by the metadata's argument names; unnamed args get 0."""
        try:
            ordered = list(self._by_name(values)) if self._by_name else [
                0 if s.name is None else values[s.name] for s in self._slots]
        except KeyError:
            ordered = None
        if ordered is None or len(values) != len(self._required) or self._unnamed_reason:
            raise self._names_error(values)
        return self._encode(ordered)

    def _names_error(self, values: Mapping[str, Any]) -> ValueError:
        who = f"kernel {self.kernel.name}"
        if self._unnamed_reason:
            return ValueError(f"{who}: {self._unnamed_reason}; pack it with pack_positional")
        missing = [s.name for s in self._slots if s.name is not None and s.name not in values]
        unknown = sorted(k for k in values if k not in self._required)
        problems = [f"missing {', '.join(map(repr, missing))}"] if missing else []
        problems += [f"unknown {', '.join(map(repr, unknown))}"] if unknown else []
        return ValueError(f"{who}: {'; '.join(problems)}; it takes: {', '.join(self.names)}")

    def _encode(self, values: list) -> bytes:
        floats: list[int] = []  # untyped slots given a float: their code changes from int to float
        for i, slot in enumerate(self._slots):
            value = values[i]
            if value.__class__ is int and value >= 0 and slot.kind != "blob":
                continue
            if slot.kind == "ptr":
                values[i] = address_of(value, slot.label)
            elif slot.kind == "blob":
                values[i] = self._blob(slot, value)
            elif slot.kind is None:
                values[i] = self._untyped(slot, value, i, floats)
        codes = tuple(floats)
        packer = self._structs.get(codes)
        if packer is None:
            chosen = list(self._codes)
            for i in floats:
                chosen[i] = _ANY_FLOAT_CODES[self._slots[i].size]
            packer = self._structs[codes] = struct.Struct(self._format(chosen))
        try:
            return packer.pack(*values)
        except _PACK_ERRORS:
            raise self._diagnose(values, floats) from None

    def _untyped(self, slot: _Slot, value: Any, i: int, floats: list[int]) -> Any:
        """Normalise a value for a scalar of unknown type; note float-coded slots in ``floats``."""
        size = slot.size
        if isinstance(value, float) or isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
            if size not in _ANY_FLOAT_CODES:
                raise TypeError(f"{slot.label} is a 1-byte value: it takes an int, got {_describe(value)}")
            floats.append(i)
            return float(value)
        if isinstance(value, numbers.Integral):  # int, bool, numpy integers
            value, bits = operator.index(value), 8 * size
            if value < -(1 << (bits - 1)):
                raise _bad_value(slot.label, f"i{bits}", value)
            return value + (1 << bits) if value < 0 else value
        if size == 8:
            return address_of(value, slot.label)
        raise TypeError(f"{slot.label} ({size}-byte value) takes an int or a float; got {_describe(value)}")

    @staticmethod
    def _blob(slot: _Slot, value: Any) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)) and len(value) == slot.size:
            return bytes(value)
        raise TypeError(f"{slot.label} is a {slot.size}-byte value (a struct by value?): pass bytes of exactly "
                        f"{slot.size} bytes (e.g. layout.packer().pack(...)); got {_describe(value)}")

    @staticmethod
    def _code(slot: _Slot) -> str:
        if slot.kind is None:
            return _ANY_INT_CODES[slot.size]
        return f"{slot.size}s" if slot.kind == "blob" else KINDS[slot.kind][0]

    def _format(self, codes: Sequence[str]) -> str:
        return _struct_format([(s.offset, c, s.size) for s, c in zip(self._slots, codes)], self.size)

    def _diagnose(self, values: list, floats: list[int]) -> Exception:
        for i, (slot, value) in enumerate(zip(self._slots, values)):
            if slot.kind == "blob":
                continue  # checked by _blob
            kind = slot.kind or ("f" if i in floats else "u") + str(8 * slot.size)
            try:
                struct.pack("<" + KINDS[kind][0], value)
            except _PACK_ERRORS:
                return _bad_value(slot.label, kind, value)
        return RuntimeError(f"kernel {self.kernel.name}: struct.pack failed on values that pack one by one")


_ARG_PACKERS: dict[int, tuple[KernelInfo, ArgPacker]] = {}


def arg_packer(kernel: KernelInfo) -> ArgPacker:
    """The (cached) metadata packer for ``kernel``.

    Keyed by identity: hashing a KernelInfo walks all its args, which costs more than packing.
    """
    hit = _ARG_PACKERS.get(id(kernel))
    if hit is None or hit[0] is not kernel:
        hit = _ARG_PACKERS[id(kernel)] = (kernel, ArgPacker(kernel))
    return hit[1]


def pack_by_names(kernel: KernelInfo, values: Mapping[str, Any]) -> bytes:
    """Kernarg bytes for a kernel whose metadata names its args (AITER ASM: ``R``, ``Q``, ``scalar`` ...).

    ``values`` maps every non-pad argument name to an int, float or array.  Raises ValueError
    listing missing and unknown names, TypeError / ValueError naming an argument whose value
    does not fit.  The result is :func:`kernarg_buffer_size` bytes long.
    """
    return arg_packer(kernel).pack_names(values)


def pack_positional(kernel: KernelInfo, args: Sequence[Any]) -> bytes:
    """Kernarg bytes for ``args`` in metadata order, typed by each argument's offset and size.

    Raises TypeError ``kernel add takes 5 arguments (x, y, out, n, alpha), got 3`` on a wrong
    count; see :class:`ArgPacker` for how values are encoded.
    """
    return arg_packer(kernel).pack_positional(args)


# ----------------------------------------------------------------------------- checking

def check_layout(layout: StructLayout, kernel: KernelInfo) -> None:
    """Raise KernargMismatchError unless ``layout`` is what ``kernel``'s metadata expects.

    Field ``i`` is compared with explicit argument ``i`` (offset and size); a kernel taking the
    struct by value shows one argument of the struct's size.  The struct's size must equal the
    explicit arguments' end rounded up to the struct's alignment.  The message lists every
    difference; names the metadata gives that differ from the struct's follow as notes (AITER
    names args ``R``, ``Q`` ... which need not match C field names).
    """
    args = kernel.explicit_args
    problems: list[str] = []
    notes: list[str] = []
    by_value = len(args) == 1 and len(layout.fields) != 1
    if by_value:
        if (args[0].offset, args[0].size) != (0, layout.size):
            problems.append(f"kernel takes one argument at offset {args[0].offset} of {args[0].size} bytes "
                            f"(a struct by value?), the struct is {layout.size} bytes")
    else:
        for i in range(max(len(layout.fields), len(args))):
            f = layout.fields[i] if i < len(layout.fields) else None
            a = args[i] if i < len(args) else None
            ours = f"offset {f.offset} size {f.size}" if f else "no field"
            theirs = f"offset {a.offset} size {a.size}" if a else "no argument"
            if f is None or a is None or (f.offset, f.size) != (a.offset, a.size):
                what = f"field {i} {f.name!r}" if f else f"argument {i}{f' {a.name!r}' if a and a.name else ''}"
                problems.append(f"{what}: struct has {ours}, metadata has {theirs}")
            elif a.name is not None and a.name != f.name:
                notes.append(f"argument {i} is named {a.name!r} in the metadata, {f.name!r} in the struct")
    metadata_size = _round_up(kernel.explicit_kernarg_size, layout.align)
    if metadata_size != layout.size:
        problems.append(f"total size: struct is {layout.size} bytes, the metadata's explicit arguments take "
                        f"{metadata_size} (end {kernel.explicit_kernarg_size}, rounded up to {layout.align})")
    if problems:
        lines = [f"struct {layout.name} ({layout.source or 'no source'}) does not match kernel {kernel.name} "
                 f"({kernel.arch}):", *problems, *(f"note: {n}" for n in notes)]
        raise KernargMismatchError("\n  ".join(lines))
