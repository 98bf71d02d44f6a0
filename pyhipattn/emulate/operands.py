"""Operands as LLVM prints them, parsed once and compiled into small readers and writers.

An operand string becomes an :class:`Operand` (register file, index, dword count, input
modifiers).  ``reader(op, ty)`` returns ``fn(m) -> array`` over a :class:`~.state.Machine`:
VGPRs give ``(waves, lanes)`` arrays, SGPRs ``(waves, 1)`` columns, constants numpy scalars;
``ty`` ("b32", "f32", "f16", "b64", ...) fixes how inline float constants are encoded and how
wide the value is.  Writers store under the current step's masks (see ``state.Machine``).

Internal SGPR numbering (one file of 128 per wave, independent of the encoding's numbers):
s0-s105 = 0-105, vcc_lo/hi 106/107, ttmp0-15 108-123, m0 124, null 125 (reads 0, writes
dropped), exec_lo/hi 126/127.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

import numpy as np

from .errors import UnknownInstructionError

VCC, TTMP, M0, NULL, EXEC = 106, 108, 124, 125, 126
SGPR_FILE = 128

_REG = re.compile(r"^(?P<f>v|s|a|ttmp|acc)(?:(?P<i>\d+)|\[(?P<lo>\d+):(?P<hi>\d+)\])(?P<half>\.[lh])?$")
_SPECIAL = {"vcc_lo": (VCC, 1), "vcc_hi": (VCC + 1, 1), "vcc": (VCC, 2), "m0": (M0, 1), "null": (NULL, 1),
            "exec_lo": (EXEC, 1), "exec_hi": (EXEC + 1, 1), "exec": (EXEC, 2)}
INV_2PI = {"f32": 0x3E22F983, "f16": 0x3118, "bf16": 0x3E23, "f64": 0x3FC45F306DC9C882}


@dataclass(frozen=True)
class Operand:
    kind: str            # "v", "a", "s", "const", "off", "scc", "vccz", "execz"
    index: int = 0       # register index (s: internal numbering)
    count: int = 1       # dwords
    neg: bool = False
    abs: bool = False
    sext: bool = False
    half: int = -1       # 0 / 1 for ".l" / ".h" (gfx11+ 16-bit halves), -1 none
    value: object = None  # const: int or float (as printed) or ("lit", bits)
    text: str = ""

    @property
    def is_vgpr(self) -> bool:
        return self.kind in ("v", "a")


def parse(text: str) -> Operand:
    """Parse one printed operand (``v[4:7]``, ``-|s3|``, ``0x3f800000``, ``0.5``, ``exec_lo``...)."""
    t = text.strip()
    neg = ab = sext = False
    if t.startswith("-") and (t[1:2] in ("|", "v", "s", "a") or t[1:].startswith(("neg(", "abs("))):
        neg, t = True, t[1:]
    if t.startswith("neg(") and t.endswith(")"):
        neg, t = True, t[4:-1]
    if t.startswith("|") and t.endswith("|"):
        ab, t = True, t[1:-1]
    if t.startswith("abs(") and t.endswith(")"):
        ab, t = True, t[4:-1]
    if t.startswith("sext(") and t.endswith(")"):
        sext, t = True, t[5:-1]
    mods = dict(neg=neg, abs=ab, sext=sext, text=text)
    m = _REG.match(t)
    if m:
        f = m.group("f")
        if m.group("i") is not None:
            lo = hi = int(m.group("i"))
        else:
            lo, hi = int(m.group("lo")), int(m.group("hi"))
        half = {".l": 0, ".h": 1}.get(m.group("half") or "", -1)
        if f == "ttmp":
            return Operand("s", TTMP + lo, hi - lo + 1, half=half, **mods)
        kind = "a" if f in ("a", "acc") else f
        return Operand(kind, lo, hi - lo + 1, half=half, **mods)
    if t in _SPECIAL:
        i, n = _SPECIAL[t]
        return Operand("s", i, n, **mods)
    if t == "off":
        return Operand("off", text=text)
    if t in ("scc", "src_scc"):
        return Operand("scc", **mods)
    if t in ("vccz", "src_vccz"):
        return Operand("vccz", **mods)
    if t in ("execz", "src_execz"):
        return Operand("execz", **mods)
    if re.fullmatch(r"-?0x[0-9a-fA-F]+", t):
        v = int(t, 16)
        return Operand("const", value=("lit", v), **mods)
    if re.fullmatch(r"-?\d+", t):
        return Operand("const", value=int(t), **mods)
    if re.fullmatch(r"-?\d+\.\d+(e[-+]?\d+)?", t):
        return Operand("const", value=float(t), **mods)
    raise UnknownInstructionError(f"operand {text!r} is not understood by the emulator")


def const_bits(op: Operand, ty: str) -> int:
    """The bit pattern an inline or literal constant has for an operand of type ``ty``."""
    v = op.value
    width = 64 if ty in ("b64", "u64", "i64", "f64") else 32
    if isinstance(v, tuple):                       # literal, printed in hex
        bits = v[1] & ((1 << width) - 1)
        if ty == "f64" and width == 64 and bits < (1 << 32):
            bits <<= 32                            # a 32-bit literal of an f64 operand is its high half
        return bits
    if isinstance(v, float):
        if abs(v - 0.15915494) < 1e-6:
            bits = INV_2PI.get(ty, INV_2PI["f32"])
        elif ty == "f16":
            bits = int(np.float16(v).view(np.uint16))
        elif ty == "bf16":
            bits = int(np.float32(v).view(np.uint32)) >> 16
        elif ty == "f64":
            bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        else:
            bits = int(np.float32(v).view(np.uint32))
        if ty in ("f16", "bf16") and width == 32:
            return bits                            # packed 16-bit ops see the constant in the low half
        return bits
    if not isinstance(v, int):
        raise UnknownInstructionError(f"constant {op.text!r}")
    return v & ((1 << width) - 1)


def is_float_const(op: Operand) -> bool:
    return op.kind == "const" and isinstance(op.value, float) and not math.isnan(op.value)
