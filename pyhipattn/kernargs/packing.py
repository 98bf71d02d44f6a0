"""Packing kernarg bytes: ``Packer`` for a declared StructLayout (the per-call path) and
``ArgPacker`` from a code object's own metadata (``pack_by_names`` for AITER's named args,
``pack_positional`` for the generic launch door)."""

from __future__ import annotations

import numbers
import operator
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..codeobj.model import KernelArg, KernelInfo
from ..errors import CodeObjectError
from .values import (_C_KINDS, _PACK_ERRORS, KINDS, _bad_value, _count_error, _describe, _getter, _round_up,
                     _struct_format, address_of)

# AMD .value_kind values whose argument is a 64-bit address.
_POINTER_VALUE_KINDS = frozenset({"global_buffer", "dynamic_shared_pointer", "image", "sampler", "pipe", "queue"})


class Packer:
    """Packs values into one StructLayout's bytes with a single precompiled ``struct.Struct``.

    ``pack(*values)`` in field order, ``pack(**values)`` by field name, or a mix as in a Python
    call.  Pointer fields also take array objects (see :func:`address_of`).  Build it with
    ``layout.packer()``.
    """

    __slots__ = ("layout", "size", "_struct", "_names", "_labels", "_count", "_pointers", "_by_name")

    def __init__(self, layout: Any) -> None:   # a layouts.StructLayout (imported there, not here)
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




# -- from metadata ----------------------------------------------------------------------------

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
