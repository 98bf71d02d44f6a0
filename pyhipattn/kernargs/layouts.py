"""Kernarg struct layouts: ``Field``, ``StructLayout`` (with its cached ``Packer``) and the
layout of a Triton-compiled kernel's parameters (``triton_layout``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from .packing import Packer
from .values import KINDS, _round_up

# Triton signature types -> kind (Triton's launcher passes i1 as int8, fp16 as its 16 bits).
_TRITON_KINDS = {
    "i1": "i8", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
    "u1": "u8", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "fp16": "f16", "fp32": "f32", "f32": "f32", "fp64": "f64",
}


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
