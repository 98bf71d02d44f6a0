"""Scalar ALU: SOP1, SOP2, SOPC, SOPK (and gfx11.5+/12 scalar float ops).

Each entry is ``fn(a, b, m) -> (result, scc)`` over per-wave columns (uint32 or uint64 for
64-bit ops); ``scc`` None leaves SCC alone.  Semantics follow AMD's ISA documents (SCC is the
carry/borrow for unsigned add/sub, signed overflow for the _i32 forms, result != 0 for the
bitwise and shift ops, "first operand chosen" for min/max).
"""

from __future__ import annotations

import numpy as np

from .isa import (F32, I32, I64, U32, U64, Step, base_name, mod_int, op, operands, raw_reader, reader64, s_writer,
                  s_writer64, simm16)
from .operands import EXEC

M32 = 0xFFFFFFFF


def _i32(x):
    return np.asarray(x).astype(U32).view(I32).astype(I64)


def _u(x):
    return np.asarray(x).astype(I64)


def _nz(d):
    return np.asarray(d) != 0


def _ovf_add(a, b, d):
    sa, sb, sd = _i32(a) < 0, _i32(b) < 0, _i32(d) < 0
    return (sa == sb) & (sd != sa)


def _ovf_sub(a, b, d):
    sa, sb, sd = _i32(a) < 0, _i32(b) < 0, _i32(d) < 0
    return (sa != sb) & (sd != sa)


def _bfe(x, spec, signed, width=32):
    off = (np.asarray(spec).astype(I64) & (63 if width == 64 else 31))
    w = (np.asarray(spec).astype(I64) >> 16) & 0x7F
    x = np.asarray(x).astype(U64 if width == 64 else I64)
    if width == 64:
        val = (x >> off.astype(U64)) & np.where(w >= 64, U64(~0 & (2**64 - 1)), (U64(1) << w.astype(U64)) - U64(1))
        return val, None
    val = (x >> off) & ((np.int64(1) << w) - 1)
    if signed:
        sign = np.where(w > 0, (val >> np.maximum(w - 1, 0)) & 1, 0)
        val = np.where(sign == 1, val - (np.int64(1) << w), val)
    return np.where(w == 0, 0, val).astype(I64).astype(U32), None


#: SOP2 / SOPC / SOP1 (b unused) 32-bit ops
S32 = {
    "s_add_u32": lambda a, b, m: ((_u(a) + _u(b)) & M32, (_u(a) + _u(b)) > M32),
    "s_sub_u32": lambda a, b, m: ((_u(a) - _u(b)) & M32, _u(b) > _u(a)),
    "s_addc_u32": lambda a, b, m: ((_u(a) + _u(b) + m.scc[:, None]) & M32, (_u(a) + _u(b) + m.scc[:, None]) > M32),
    "s_subb_u32": lambda a, b, m: ((_u(a) - _u(b) - m.scc[:, None]) & M32, (_u(b) + m.scc[:, None]) > _u(a)),
    "s_add_i32": lambda a, b, m: (lambda d: (d, _ovf_add(a, b, d)))((_u(a) + _u(b)) & M32),
    "s_sub_i32": lambda a, b, m: (lambda d: (d, _ovf_sub(a, b, d)))((_u(a) - _u(b)) & M32),
    "s_and_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.bitwise_and(a, b)),
    "s_or_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.bitwise_or(a, b)),
    "s_xor_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.bitwise_xor(a, b)),
    "s_andn2_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.bitwise_and(a, np.invert(np.asarray(b, U32)))),
    "s_orn2_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.bitwise_or(a, np.invert(np.asarray(b, U32)))),
    "s_nand_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.invert(np.bitwise_and(a, b))),
    "s_nor_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.invert(np.bitwise_or(a, b))),
    "s_xnor_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.invert(np.bitwise_xor(a, b))),
    "s_lshl_b32": lambda a, b, m: (lambda d: (d, _nz(d)))((_u(a) << (_u(b) & 31)) & M32),
    "s_lshr_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(_u(a) >> (_u(b) & 31)),
    "s_ashr_i32": lambda a, b, m: (lambda d: (d, _nz(d)))((_i32(a) >> (_u(b) & 31)) & M32),
    "s_mul_i32": lambda a, b, m: ((_i32(a) * _i32(b)) & M32, None),
    "s_mul_hi_u32": lambda a, b, m: (((_u(a).astype(U64) * _u(b).astype(U64)) >> U64(32)).astype(I64), None),
    "s_mul_hi_i32": lambda a, b, m: (((_i32(a) * _i32(b)) >> 32) & M32, None),
    "s_min_i32": lambda a, b, m: (np.where(_i32(a) < _i32(b), a, b), _i32(a) < _i32(b)),
    "s_max_i32": lambda a, b, m: (np.where(_i32(a) > _i32(b), a, b), _i32(a) > _i32(b)),
    "s_min_u32": lambda a, b, m: (np.where(_u(a) < _u(b), a, b), _u(a) < _u(b)),
    "s_max_u32": lambda a, b, m: (np.where(_u(a) > _u(b), a, b), _u(a) > _u(b)),
    "s_bfe_u32": lambda a, b, m: (lambda r: (r[0], _nz(r[0])))(_bfe(a, b, False)),
    "s_bfe_i32": lambda a, b, m: (lambda r: (r[0], _nz(r[0])))(_bfe(a, b, True)),
    "s_lshl1_add_u32": lambda a, b, m: (lambda t: (t & M32, t > M32))((_u(a) << 1) + _u(b)),
    "s_lshl2_add_u32": lambda a, b, m: (lambda t: (t & M32, t > M32))((_u(a) << 2) + _u(b)),
    "s_lshl3_add_u32": lambda a, b, m: (lambda t: (t & M32, t > M32))((_u(a) << 3) + _u(b)),
    "s_lshl4_add_u32": lambda a, b, m: (lambda t: (t & M32, t > M32))((_u(a) << 4) + _u(b)),
    "s_pack_ll_b32_b16": lambda a, b, m: ((_u(a) & 0xFFFF) | ((_u(b) & 0xFFFF) << 16), None),
    "s_pack_lh_b32_b16": lambda a, b, m: ((_u(a) & 0xFFFF) | (_u(b) & 0xFFFF0000), None),
    "s_pack_hh_b32_b16": lambda a, b, m: ((_u(a) >> 16) | (_u(b) & 0xFFFF0000), None),
    "s_cselect_b32": lambda a, b, m: (np.where(m.scc[:, None], a, b), None),
    "s_absdiff_i32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.abs(_i32(a) - _i32(b)) & M32),
    # SOP1
    "s_mov_b32": lambda a, b, m: (a, None),
    "s_not_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.invert(np.asarray(a, U32))),
    "s_abs_i32": lambda a, b, m: (lambda d: (d, _nz(d)))(np.abs(_i32(a)) & M32),
    "s_bcnt1_i32_b32": lambda a, b, m: (lambda d: (d, _nz(d)))(_popcount(a)),
    "s_brev_b32": lambda a, b, m: (_brev32(a), None),
    "s_sext_i32_i16": lambda a, b, m: (_u(a).astype(U32).astype(np.uint16).view(np.int16).astype(I64) & M32, None),
    "s_sext_i32_i8": lambda a, b, m: (_u(a).astype(U32).astype(np.uint8).view(np.int8).astype(I64) & M32, None),
    "s_ff1_i32_b32": lambda a, b, m: (_ff1(a), None),
    "s_ctz_i32_b32": lambda a, b, m: (_ff1(a), None),
    "s_flbit_i32_b32": lambda a, b, m: (_flbit(a), None),
    "s_clz_i32_u32": lambda a, b, m: (_flbit(a), None),
    # float SALU (gfx11.5+, gfx12): results of f32 arithmetic, bits
    "s_mul_f32": lambda a, b, m: (_f(a) * _f(b), None),
    "s_add_f32": lambda a, b, m: (_f(a) + _f(b), None),
    "s_sub_f32": lambda a, b, m: (_f(a) - _f(b), None),
    "s_max_f32": lambda a, b, m: (np.fmax(_f(a), _f(b)), None),
    "s_min_f32": lambda a, b, m: (np.fmin(_f(a), _f(b)), None),
    "s_cvt_f32_u32": lambda a, b, m: (np.asarray(a, U32).astype(F32), None),
    "s_cvt_f32_i32": lambda a, b, m: (_i32(a).astype(F32), None),
    "s_cvt_u32_f32": lambda a, b, m: (_cvt_u32(_f(a)), None),
    "s_cvt_i32_f32": lambda a, b, m: (_cvt_i32(_f(a)), None),
    "s_trunc_f32": lambda a, b, m: (np.trunc(_f(a)), None),
    "s_floor_f32": lambda a, b, m: (np.floor(_f(a)), None),
    "s_ceil_f32": lambda a, b, m: (np.ceil(_f(a)), None),
}
_SOPC32 = {
    "eq_u32": lambda a, b: _u(a) == _u(b), "lg_u32": lambda a, b: _u(a) != _u(b),
    "gt_u32": lambda a, b: _u(a) > _u(b), "ge_u32": lambda a, b: _u(a) >= _u(b),
    "lt_u32": lambda a, b: _u(a) < _u(b), "le_u32": lambda a, b: _u(a) <= _u(b),
    "eq_i32": lambda a, b: _i32(a) == _i32(b), "lg_i32": lambda a, b: _i32(a) != _i32(b),
    "gt_i32": lambda a, b: _i32(a) > _i32(b), "ge_i32": lambda a, b: _i32(a) >= _i32(b),
    "lt_i32": lambda a, b: _i32(a) < _i32(b), "le_i32": lambda a, b: _i32(a) <= _i32(b),
    "eq_u64": None, "lg_u64": None,
}
FLOAT_SALU = {"s_mul_f32", "s_add_f32", "s_sub_f32", "s_max_f32", "s_min_f32", "s_cvt_f32_u32", "s_cvt_f32_i32",
              "s_trunc_f32", "s_floor_f32", "s_ceil_f32"}
FLOAT_SRC = FLOAT_SALU - {"s_cvt_f32_u32", "s_cvt_f32_i32"} | {"s_cvt_u32_f32", "s_cvt_i32_f32"}


def _f(x):
    return np.asarray(x, U32).view(F32)


def _cvt_u32(x):
    x = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0)
    return np.clip(x, 0, M32).astype(I64)


def _cvt_i32(x):
    x = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0)
    return np.clip(x, -2**31, 2**31 - 1).astype(I64) & M32


def _popcount(x):
    x = np.asarray(x).astype(U64)
    return np.bitwise_count(x).astype(I64) if hasattr(np, "bitwise_count") else \
        np.vectorize(lambda v: bin(int(v)).count("1"))(x).astype(I64)


def _brev32(x):
    x = np.asarray(x, U32)
    b = np.unpackbits(x[..., None].view(np.uint8), axis=-1, bitorder="little")
    return np.packbits(b[..., ::-1], axis=-1, bitorder="little").view(U32)[..., 0]


def _ff1(x):
    x = np.asarray(x).astype(I64)
    low = x & -x
    out = np.where(x == 0, -1, np.log2(np.where(low == 0, 1, low)).astype(I64))
    return out & M32


def _flbit(x):
    x = np.asarray(x).astype(I64)
    out = np.where(x == 0, -1, 31 - np.floor(np.log2(np.where(x == 0, 1, x))).astype(I64))
    return out & M32


def _finish(d):
    d = np.asarray(d)
    if d.dtype == F32:
        return d.view(U32)
    return d.astype(I64).astype(U32) if d.dtype != U32 else d


@op(*S32)
def _sop32(inst, ctx):
    name = base_name(inst.op)
    fn = S32[name]
    ops = operands(inst)
    ty = "f32" if name in FLOAT_SRC else "b32"
    a = raw_reader(ops[1], ty)
    b = raw_reader(ops[2], ty) if len(ops) > 2 else (lambda m: U32(0))
    w = s_writer(ops[0])

    def run(m):
        d, scc = fn(a(m), b(m), m)
        w(m, _finish(d))
        if scc is not None:
            m.write_scc(scc)
    return Step(inst, run)


@op("s_fmac_f32", "s_fmamk_f32", "s_fmaak_f32")
def _sfma(inst, ctx):
    ops = operands(inst)
    d, a, b = ops[0], raw_reader(ops[1], "f32"), raw_reader(ops[2], "f32")
    c = raw_reader(ops[3], "f32") if len(ops) > 3 else raw_reader(d, "f32")
    # s_fmamk_f32 prints S0, K, S1 (D = S0 * K + S1) and s_fmaak_f32 S0, S1, K: both D = op1 * op2 + op3
    w = s_writer(d)

    def run(m):
        r = (_f(a(m)).astype(np.float64) * _f(b(m)) + _f(c(m))).astype(F32)
        w(m, r.view(U32))
    return Step(inst, run)


def _sopc(name, fn):
    def build(inst, ctx):
        ops = operands(inst)
        if name.endswith("u64"):
            a, b = reader64(ops[0]), reader64(ops[1])
            eq = name.startswith("s_cmp_eq")
            return Step(inst, lambda m: m.write_scc((a(m) == b(m)) if eq else (a(m) != b(m))))
        a, b = raw_reader(ops[0]), raw_reader(ops[1])
        return Step(inst, lambda m: m.write_scc(fn(a(m), b(m))))
    return build


for _k, _fn in _SOPC32.items():
    op(f"s_cmp_{_k}")(_sopc(f"s_cmp_{_k}", _fn))


@op("s_cmpk_eq_u32", "s_cmpk_lg_u32", "s_cmpk_gt_u32", "s_cmpk_ge_u32", "s_cmpk_lt_u32", "s_cmpk_le_u32",
    "s_cmpk_eq_i32", "s_cmpk_lg_i32", "s_cmpk_gt_i32", "s_cmpk_ge_i32", "s_cmpk_lt_i32", "s_cmpk_le_i32")
def _sopk_cmp(inst, ctx):
    ops = operands(inst)
    kind = base_name(inst.op).removeprefix("s_cmpk_")
    imm = simm16(inst) if kind.endswith("i32") else inst.words[0] & 0xFFFF
    a = raw_reader(ops[0])
    k = U32(imm & M32)
    fn = _SOPC32[kind]
    return Step(inst, lambda m: m.write_scc(fn(a(m), k)))


@op("s_movk_i32", "s_addk_i32", "s_mulk_i32", "s_cmovk_i32")
def _sopk(inst, ctx):
    ops = operands(inst)
    d = ops[0]
    imm = simm16(inst)
    cur = raw_reader(d)
    w = s_writer(d)
    k = np.int64(imm)
    if inst.op == "s_movk_i32":
        return Step(inst, lambda m: w(m, U32(imm & M32)))
    if inst.op == "s_cmovk_i32":
        return Step(inst, lambda m: w(m, np.where(m.scc[:, None], U32(imm & M32), cur(m))))
    if inst.op == "s_mulk_i32":
        return Step(inst, lambda m: w(m, ((_i32(cur(m)) * k) & M32).astype(U32)))

    def addk(m):
        a = cur(m).copy()            # the destination is also the source: read it before writing
        dd = (_u(a) + (imm & M32)) & M32
        w(m, dd.astype(U32))
        m.write_scc(_ovf_add(a, U32(imm & M32), dd))
    return Step(inst, addk)


# ---- 64-bit ---------------------------------------------------------------------------------

_M64 = U64(0xFFFFFFFFFFFFFFFF)
S64 = {
    "s_and_b64": lambda a, b, m: (a & b, True),
    "s_or_b64": lambda a, b, m: (a | b, True),
    "s_xor_b64": lambda a, b, m: (a ^ b, True),
    "s_andn2_b64": lambda a, b, m: (a & ~b, True),
    "s_orn2_b64": lambda a, b, m: (a | ~b, True),
    "s_nand_b64": lambda a, b, m: (~(a & b), True),
    "s_nor_b64": lambda a, b, m: (~(a | b), True),
    "s_xnor_b64": lambda a, b, m: (~(a ^ b), True),
    "s_cselect_b64": lambda a, b, m: (np.where(m.scc[:, None], a, b), None),
    "s_mov_b64": lambda a, b, m: (a, None),
    "s_not_b64": lambda a, b, m: (~a, True),
    "s_add_nc_u64": lambda a, b, m: (a + b, None),
    "s_sub_nc_u64": lambda a, b, m: (a - b, None),
    "s_mul_u64": lambda a, b, m: (a * b, None),
}


@op(*S64)
def _sop64(inst, ctx):
    fn = S64[base_name(inst.op)]
    ops = operands(inst)
    a = reader64(ops[1])
    b = reader64(ops[2]) if len(ops) > 2 else (lambda m: U64(0))
    w = s_writer64(ops[0])

    def run(m):
        d, scc = fn(np.asarray(a(m), U64), np.asarray(b(m), U64), m)
        d = np.asarray(d, U64)
        w(m, d)
        if scc is True:
            m.write_scc(d != 0)
    return Step(inst, run)


@op("s_lshl_b64", "s_lshr_b64", "s_ashr_i64")
def _shift64(inst, ctx):
    ops = operands(inst)
    a, b = reader64(ops[1]), raw_reader(ops[2])
    w = s_writer64(ops[0])
    kind = base_name(inst.op)

    def run(m):
        x, s = np.asarray(a(m), U64), (np.asarray(b(m)).astype(U64) & U64(63))
        if kind == "s_lshl_b64":
            d = x << s
        elif kind == "s_lshr_b64":
            d = x >> s
        else:
            d = (x.view(np.int64) >> s.astype(np.int64)).view(U64)
        w(m, d)
        m.write_scc(d != 0)
    return Step(inst, run)


@op("s_bcnt1_i32_b64")
def _bcnt64(inst, ctx):
    ops = operands(inst)
    a = reader64(ops[1])
    w = s_writer(ops[0])

    def run(m):
        d = _popcount(a(m))
        w(m, np.asarray(d).astype(U32))
        m.write_scc(np.asarray(d) != 0)
    return Step(inst, run)


# ---- exec manipulation --------------------------------------------------------------------

_SAVEEXEC = {"and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
             "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
             "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e),
             "and_not0": lambda s, e: ~s & e, "or_not0": lambda s, e: ~s | e}


def _saveexec(kind, width):
    fn = _SAVEEXEC[kind]

    def build(inst, ctx):
        ops = operands(inst)
        full = U64(0xFFFFFFFF if width == 32 else 0xFFFFFFFFFFFFFFFF)
        if width == 64:
            src = reader64(ops[1])
            dst = s_writer64(ops[0])
            ex = lambda m: m.S[:, EXEC].astype(U64) | (m.S[:, EXEC + 1].astype(U64) << U64(32))  # noqa: E731
        else:
            src = raw_reader(ops[1])
            dst = s_writer(ops[0])
            ex = lambda m: m.S[:, EXEC].astype(U64)  # noqa: E731

        def run(m):
            e = ex(m)
            s = np.asarray(src(m)).astype(U64).reshape(-1) if width == 32 else np.asarray(src(m), U64).reshape(-1)
            new = fn(s, e) & full
            dst(m, e if width == 64 else e.astype(U32))
            m.write_s(EXEC, (new & U64(0xFFFFFFFF)).astype(U32))
            if width == 64:
                m.write_s(EXEC + 1, (new >> U64(32)).astype(U32))
            m.write_scc(new != 0)
        return Step(inst, run)
    return build


for _kind in _SAVEEXEC:
    op(f"s_{_kind}_saveexec_b32")(_saveexec(_kind, 32))
    if not _kind.endswith("not0"):        # gfx11/12 names: their wave32 code uses the _b32 forms
        op(f"s_{_kind}_saveexec_b64")(_saveexec(_kind, 64))


@op("s_getpc_b64")
def _getpc(inst, ctx):
    w = s_writer64(operands(inst)[0])
    nxt = inst.pc + inst.size
    return Step(inst, lambda m: w(m, U64(m.code_base + nxt)))


@op("s_bitset0_b32", "s_bitset1_b32")
def _bitset(inst, ctx):
    ops = operands(inst)
    cur, b = raw_reader(ops[0]), raw_reader(ops[1])
    w = s_writer(ops[0])
    one = inst.op.endswith("1_b32")

    def run(m):
        bit = (U32(1) << (np.asarray(b(m), U32) & U32(31)))
        w(m, (cur(m) | bit) if one else (cur(m) & ~bit))
    return Step(inst, run)


_ = mod_int  # (re-exported helpers used by other modules)


# ---- scalar float compares (gfx11.5+ / gfx12 SOPC) ------------------------------------------

def _fcmp(kind: str):
    from .valu import _cmp_fn

    fn = _cmp_fn(kind)

    def build(inst, ctx):
        ops = operands(inst)
        ty = "f16" if inst.op.endswith("f16") else "f32"
        a, b = raw_reader(ops[0], ty), raw_reader(ops[1], ty)
        view = np.float16 if ty == "f16" else F32

        def typed(x):
            x = np.asarray(x, U32)
            return (x & U32(0xFFFF)).astype(np.uint16).view(view) if ty == "f16" else x.view(F32)
        return Step(inst, lambda m: m.write_scc(fn(typed(a(m)), typed(b(m)))))
    return build


for _k in ("lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt"):
    op(f"s_cmp_{_k}_f32", f"s_cmp_{_k}_f16")(_fcmp(_k))
