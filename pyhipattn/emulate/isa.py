"""The opcode table and what every semantic module shares.

An opcode is one entry of ``OPS``: ``name -> builder(inst, ctx) -> Step``.  A builder runs
once per decoded instruction (cached per PC) and returns a ``Step`` whose ``run(m)`` executes
it for every active wave of a :class:`~.state.Machine` at once.  Names are the mnemonic with
the encoding suffix removed (``v_add_f32_e32`` -> ``v_add_f32``), after renames between
generations (``ds_read_b32`` = ``ds_load_b32``, ``s_load_dword`` = ``s_load_b32``, ...).
An instruction whose name is not in the table raises :class:`UnknownInstructionError`
naming it: the emulator never guesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .decoder import Instruction
from .errors import UnknownInstructionError
from .operands import NULL, Operand, const_bits, parse

U16, U32, U64 = np.uint16, np.uint32, np.uint64
I32, I64, F16, F32, F64 = np.int32, np.int64, np.float16, np.float32, np.float64


@dataclass(frozen=True)
class ArchCtx:
    """What semantics depend on: the arch name, its generation and wave size."""

    arch: str
    wave: int

    @property
    def gen(self) -> int:       # 9 (CDNA), 11 (RDNA3), 12 (RDNA4)
        return 9 if self.arch.startswith("gfx9") else int(self.arch[3:5])

    @property
    def cdna(self) -> bool:
        return self.gen == 9


@dataclass
class Step:
    """One compiled instruction.

    kind: "op" (run, then fall through), "branch" (``cond(m)`` -> (nw,) bool taken, or None
    for always), "end" (s_endpgm), "barrier".
    """

    inst: Instruction
    run: Callable | None = None
    kind: str = "op"
    target: int = 0
    cond: Callable | None = None

    @property
    def size(self) -> int:
        return self.inst.size


Builder = Callable[[Instruction, ArchCtx], Step]
OPS: dict[str, Builder] = {}


def op(*names: str):
    """Register a builder for one or more opcode names."""
    def deco(fn: Builder) -> Builder:
        for n in names:
            OPS[n] = fn
        return fn
    return deco


_SUFFIX = re.compile(r"_(e32|e64|dpp|sdwa|e64_dpp|dpp8)$")
#: gfx10+ spellings -> the names the table uses
RENAMES = {
    "s_load_b32": "s_load_dword", "s_load_b64": "s_load_dwordx2", "s_load_b128": "s_load_dwordx4",
    "s_load_b256": "s_load_dwordx8", "s_load_b512": "s_load_dwordx16", "s_load_b96": "s_load_dwordx3",
    "s_add_co_u32": "s_add_u32", "s_add_co_ci_u32": "s_addc_u32", "s_sub_co_u32": "s_sub_u32",
    "s_sub_co_ci_u32": "s_subb_u32", "s_add_co_i32": "s_add_i32", "s_sub_co_i32": "s_sub_i32",
    "s_and_not1_b32": "s_andn2_b32", "s_and_not1_b64": "s_andn2_b64", "s_or_not1_b32": "s_orn2_b32",
    "s_or_not1_b64": "s_orn2_b64", "s_and_not1_saveexec_b32": "s_andn2_saveexec_b32",
    "s_or_not1_saveexec_b32": "s_orn2_saveexec_b32", "s_max_num_f32": "s_max_f32", "s_min_num_f32": "s_min_f32",
    "v_add_nc_u32": "v_add_u32", "v_sub_nc_u32": "v_sub_u32", "v_subrev_nc_u32": "v_subrev_u32",
    "v_add_co_ci_u32": "v_addc_co_u32", "v_sub_co_ci_u32": "v_subb_co_u32",
    "v_subrev_co_ci_u32": "v_subbrev_co_u32", "v_mad_co_u64_u32": "v_mad_u64_u32",
    "v_mad_co_i64_i32": "v_mad_i64_i32", "v_max_num_f32": "v_max_f32", "v_min_num_f32": "v_min_f32",
    "v_max3_num_f32": "v_max3_f32", "v_min3_num_f32": "v_min3_f32",
    "global_load_b32": "global_load_dword", "global_load_b64": "global_load_dwordx2",
    "global_load_b96": "global_load_dwordx3", "global_load_b128": "global_load_dwordx4",
    "global_load_u16": "global_load_ushort", "global_load_i16": "global_load_sshort",
    "global_load_u8": "global_load_ubyte", "global_load_i8": "global_load_sbyte",
    "global_load_d16_b16": "global_load_short_d16", "global_load_d16_hi_b16": "global_load_short_d16_hi",
    "global_store_b32": "global_store_dword", "global_store_b64": "global_store_dwordx2",
    "global_store_b96": "global_store_dwordx3", "global_store_b128": "global_store_dwordx4",
    "global_store_b16": "global_store_short", "global_store_b8": "global_store_byte",
    "global_store_d16_hi_b16": "global_store_short_d16_hi",
    "global_atomic_add_u32": "global_atomic_add", "global_atomic_and_b32": "global_atomic_and",
    "global_atomic_or_b32": "global_atomic_or", "global_atomic_xor_b32": "global_atomic_xor",
    "global_atomic_inc_u32": "global_atomic_inc", "global_atomic_dec_u32": "global_atomic_dec",
    "flat_atomic_add_u32": "flat_atomic_add", "flat_atomic_swap_b32": "flat_atomic_swap", "global_atomic_swap_b32": "global_atomic_swap",
    "global_atomic_cmpswap_b32": "global_atomic_cmpswap", "global_atomic_max_i32": "global_atomic_smax",
    "global_atomic_min_i32": "global_atomic_smin", "global_atomic_max_u32": "global_atomic_umax",
    "global_atomic_min_u32": "global_atomic_umin", "global_atomic_sub_u32": "global_atomic_sub",
    "flat_load_b32": "flat_load_dword", "flat_load_b64": "flat_load_dwordx2", "flat_load_b128": "flat_load_dwordx4",
    "flat_load_b96": "flat_load_dwordx3", "flat_load_u16": "flat_load_ushort",
    "flat_store_b32": "flat_store_dword", "flat_store_b64": "flat_store_dwordx2",
    "flat_store_b128": "flat_store_dwordx4", "flat_store_b16": "flat_store_short",
    "flat_store_d16_hi_b16": "flat_store_short_d16_hi",
    "ds_load_b32": "ds_read_b32", "ds_load_b64": "ds_read_b64", "ds_load_b96": "ds_read_b96",
    "ds_load_b128": "ds_read_b128", "ds_load_u16": "ds_read_u16", "ds_load_u8": "ds_read_u8",
    "ds_load_i16": "ds_read_i16", "ds_load_u16_d16": "ds_read_u16_d16", "ds_load_u16_d16_hi": "ds_read_u16_d16_hi",
    "ds_load_2addr_b32": "ds_read2_b32", "ds_load_2addr_b64": "ds_read2_b64",
    "ds_load_2addr_stride64_b32": "ds_read2st64_b32", "ds_load_2addr_stride64_b64": "ds_read2st64_b64",
    "ds_store_b32": "ds_write_b32", "ds_store_b64": "ds_write_b64", "ds_store_b96": "ds_write_b96",
    "ds_store_b128": "ds_write_b128", "ds_store_b16": "ds_write_b16", "ds_store_b8": "ds_write_b8",
    "ds_store_b16_d16_hi": "ds_write_b16_d16_hi", "ds_store_2addr_b32": "ds_write2_b32",
    "ds_store_2addr_b64": "ds_write2_b64", "ds_store_2addr_stride64_b32": "ds_write2st64_b32",
    "ds_store_2addr_stride64_b64": "ds_write2st64_b64", "ds_store_b8_d16_hi": "ds_write_b8_d16_hi",
    "ds_load_i8": "ds_read_i8", "ds_load_u8_d16": "ds_read_u8_d16", "ds_load_u8_d16_hi": "ds_read_u8_d16_hi",
    "global_load_d16_u8": "global_load_ubyte_d16", "global_load_d16_hi_u8": "global_load_ubyte_d16_hi",
    "global_store_d16_hi_b8": "global_store_byte_d16_hi",
}
# every global form has a flat twin under the same gfx11 name change
RENAMES.update({"flat_" + k[7:]: "flat_" + v[7:] for k, v in list(RENAMES.items())
                if k.startswith("global_") and "flat_" + k[7:] not in RENAMES})


def base_name(mnemonic: str) -> str:
    """``v_add_f32_e32`` -> ``v_add_f32``; gfx10+ renames mapped to the table's names."""
    name = _SUFFIX.sub("", mnemonic)
    return RENAMES.get(name, name)


def encoding(mnemonic: str) -> str:
    m = _SUFFIX.search(mnemonic)
    return m.group(1) if m else ""


def compile_instruction(inst: Instruction, ctx: ArchCtx) -> Step:
    """The Step for ``inst``; UnknownInstructionError when its opcode has no entry."""
    name = "v_dual" if inst.pair is not None else base_name(inst.op)
    builder = OPS.get(name)
    if builder is None:
        raise UnknownInstructionError(
            f"{ctx.arch}: instruction {inst.op!r} (at 0x{inst.pc:x}: {inst.text}) is not implemented by the emulator")
    try:
        return builder(inst, ctx)
    except UnknownInstructionError as e:
        raise UnknownInstructionError(f"{ctx.arch}: {inst.text!r} at 0x{inst.pc:x}: {e}") from None


# ---- operand access shared by the semantic modules ---------------------------------------------

def operands(inst: Instruction) -> list[Operand]:
    return [parse(o) for o in inst.operands]


def raw_reader(o: Operand, ty: str = "b32", dword: int = 0) -> Callable:
    """``fn(m)``: dword ``dword`` of operand ``o`` as uint32 ((nw, L), (nw, 1) or a scalar)."""
    if o.kind == "v":
        i = o.index + dword
        return lambda m: m.V[i]
    if o.kind == "a":
        i = o.index + dword
        return lambda m: m.A[i]
    if o.kind == "s":
        if o.index == NULL:
            z = U32(0)
            return lambda m: z
        i = o.index + dword
        return lambda m: m.S[:, i:i + 1]
    if o.kind == "const":
        bits = const_bits(o, ty)
        if ty in ("b64", "u64", "i64", "f64"):
            k = U32((bits >> (32 * dword)) & 0xFFFFFFFF)
        else:
            k = U32(bits & 0xFFFFFFFF) if dword == 0 else U32(0)
        return lambda m: k
    if o.kind == "scc":
        return lambda m: m.scc[:, None].astype(U32)
    if o.kind == "vccz":
        return lambda m: ((m.S[:, 106:107] == 0) & ((m.S[:, 107:108] == 0) | (m.L == 32))).astype(U32)
    if o.kind == "execz":
        return lambda m: ((m.S[:, 126:127] == 0) & ((m.S[:, 127:128] == 0) | (m.L == 32))).astype(U32)
    raise UnknownInstructionError(f"operand {o.text!r} cannot be read here")


def reader64(o: Operand, ty: str = "b64") -> Callable:
    """``fn(m)``: a 64-bit operand as uint64 (register pair, or a sign-extended constant)."""
    if o.kind == "const":
        k = U64(const_bits(o, ty))
        return lambda m: k
    lo, hi = raw_reader(o, ty, 0), raw_reader(o, ty, 1)
    return lambda m: lo(m).astype(U64) | (hi(m).astype(U64) << U64(32))


def s_writer(o: Operand) -> Callable:
    """``fn(m, value)`` for a scalar destination (one dword)."""
    i = o.index
    if o.kind != "s":
        raise UnknownInstructionError(f"{o.text!r} is not a scalar register")
    return lambda m, v: m.write_s(i, v)


def s_writer64(o: Operand) -> Callable:
    i = o.index

    def w(m, v):
        v = np.asarray(v, U64)
        m.write_s(i, (v & U64(0xFFFFFFFF)).astype(U32))
        m.write_s(i + 1, (v >> U64(32)).astype(U32))
    return w


def v_regs(o: Operand):
    """The register file (``"V"`` or ``"A"``) of a vector operand."""
    if o.kind not in ("v", "a"):
        raise UnknownInstructionError(f"{o.text!r} is not a vector register")
    return "A" if o.kind == "a" else "V"


def mod_list(inst: Instruction, key: str, n: int, default: int = 0) -> list[int]:
    """A bracketed modifier list (``op_sel:[0,1,0]``) as ints, padded to ``n``."""
    v = inst.mods.get(key)
    if v is None or v is True:
        return [default] * n
    vals = [int(x, 0) for x in v.strip("[]").split(",") if x.strip()]
    return vals + [default] * (n - len(vals))


def mod_int(inst: Instruction, key: str, default: int = 0) -> int:
    v = inst.mods.get(key)
    if v is None or v is True:
        return default
    return int(v, 0)


def simm16(inst: Instruction) -> int:
    """The signed 16-bit immediate of a SOPP/SOPK encoding (low half of the first word)."""
    v = inst.words[0] & 0xFFFF
    return v - 0x10000 if v & 0x8000 else v
