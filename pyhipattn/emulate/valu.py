"""Vector ALU: VOP1, VOP2, VOP3, VOPC, VOP3P, VOPD, with DPP, SDWA, op_sel, neg/abs,
clamp, omod and inline constants.

``VOP[name] = (dst type, source types, fn)``: ``fn`` takes the typed sources (numpy arrays
over ``(waves, lanes)``, float32 views for "f32", halves for "f16", ...) and returns the
typed result, which is written back under exec.  Operations whose outputs are not one VGPR
(carries, compares, lane reads, swaps) have their own builders below.

Numerics: f32 arithmetic is numpy's IEEE float32 (round to nearest even); fused multiply-add
is computed in float64 and rounded once to float32 (exact products; the sum can round twice
in rare ties); v_exp_f32 / v_log_f32 / v_rcp_f32 / v_rsq_f32 / v_sqrt_f32 are numpy's
correctly rounded functions where the hardware is within 1 ulp; v_div_fixup_f32 returns the
correctly rounded quotient (what the div_scale/fmas/fixup sequence computes).  max/min return
the non-NaN operand (IEEE maxNum), as the hardware does.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import UnknownInstructionError
from .isa import (F16, F32, F64, I32, I64, U16, U32, U64, Step, base_name, encoding, mod_int, mod_list, op,
                  operands, raw_reader, reader64, v_regs)
from .operands import NULL, VCC, Operand

BF16 = ml_dtypes.bfloat16
FLOATS = ("f32", "f16", "bf16", "f64")
WIDE = ("b64", "u64", "i64", "f64")
HALF = ("f16", "bf16", "u16", "i16", "b16")


def _fma(a, b, c):
    return (np.asarray(a, F64) * b + c).astype(F32)


def _cvt_int(x, lo, hi):
    x = np.nan_to_num(np.trunc(np.asarray(x, F64)), nan=0.0, posinf=hi, neginf=lo)
    return np.clip(x, lo, hi).astype(I64)


def _bf16_bits(x):
    return np.asarray(x, F32).astype(BF16).view(U16).astype(U32)


def _f16_bits(x):
    return np.asarray(x, F32).astype(F16).view(U16).astype(U32)


def _f16_rtz_bits(x):
    x = np.asarray(x, F32)
    r = x.astype(F16)
    back = r.astype(F32)
    over = np.abs(back) > np.abs(x)           # rounded away from zero: step one toward zero
    bits = r.view(U16).astype(np.int32)
    bits = np.where(over & np.isfinite(x) & (back != 0), bits - 1, bits)
    return (bits.astype(U32)) & U32(0xFFFF)


def _perm(s0, s1, sel):
    """v_perm_b32: each result byte picks byte ``sel`` of {S0, S1} (S1 = bytes 0-3, S0 = bytes 4-7)
    for selectors 0-7; 8-11 replicate the sign bit of S1[15], S1[31], S0[15], S0[31]; 12 gives 0x00,
    13 and up 0xFF."""
    s0, s1, sel = np.broadcast_arrays(np.asarray(s0, U32), np.asarray(s1, U32), np.asarray(sel, U32))
    shape = s0.shape
    b1 = np.ascontiguousarray(s1).view(np.uint8).reshape(shape + (4,))
    b0 = np.ascontiguousarray(s0).view(np.uint8).reshape(shape + (4,))
    signs = [np.where(b1[..., 1] & 0x80, 0xFF, 0), np.where(b1[..., 3] & 0x80, 0xFF, 0),
             np.where(b0[..., 1] & 0x80, 0xFF, 0), np.where(b0[..., 3] & 0x80, 0xFF, 0)]
    const = np.broadcast_to(np.array([0x00, 0xFF], np.uint8), shape + (2,))
    pool = np.concatenate([b1, b0, np.stack(signs, axis=-1).astype(np.uint8), const], axis=-1)   # 14 bytes
    idx = np.minimum(np.ascontiguousarray(sel).view(np.uint8).reshape(shape + (4,)), 13).astype(np.intp)
    return np.ascontiguousarray(np.take_along_axis(pool, idx, axis=-1)).view(U32).reshape(shape)


def _bfe(x, off, w, signed):
    off = np.asarray(off, U32) & U32(31)
    w = np.asarray(w, U32) & U32(31)
    x = np.asarray(x, U32)
    val = (x >> off).astype(I64) & ((np.int64(1) << w.astype(I64)) - 1)
    if signed:
        neg = (w > 0) & (((val >> np.maximum(w.astype(I64) - 1, 0)) & 1) == 1)
        val = np.where(neg, val - (np.int64(1) << w.astype(I64)), val)
    return np.where(w == 0, 0, val)


def _sext24(x):
    x = np.asarray(x, U32).astype(I64) & 0xFFFFFF
    return np.where(x & 0x800000, x - 0x1000000, x)


def _brev(x):
    x = np.ascontiguousarray(np.asarray(x, U32))
    b = np.unpackbits(x[..., None].view(np.uint8), axis=-1, bitorder="little")
    return np.packbits(b[..., ::-1], axis=-1, bitorder="little").view(U32)[..., 0]


def _u24(x):
    return np.asarray(x, U32).astype(U64) & U64(0xFFFFFF)


#: name -> (dst type, source types, fn)
VOP: dict[str, tuple[str, tuple[str, ...], object]] = {
    # f32 arithmetic
    "v_add_f32": ("f32", ("f32", "f32"), lambda a, b: a + b),
    "v_sub_f32": ("f32", ("f32", "f32"), lambda a, b: a - b),
    "v_subrev_f32": ("f32", ("f32", "f32"), lambda a, b: b - a),
    "v_mul_f32": ("f32", ("f32", "f32"), lambda a, b: a * b),
    "v_mul_legacy_f32": ("f32", ("f32", "f32"), lambda a, b: np.where((a == 0) | (b == 0), F32(0), a * b)),
    "v_max_f32": ("f32", ("f32", "f32"), np.fmax),
    "v_min_f32": ("f32", ("f32", "f32"), np.fmin),
    "v_fma_f32": ("f32", ("f32", "f32", "f32"), _fma),
    "v_fmac_f32": ("f32", ("f32", "f32", "f32"), _fma),          # third source: the destination
    "v_fmamk_f32": ("f32", ("f32", "f32", "f32"), _fma),          # printed as S0, K, S1: S0 * K + S1
    "v_fmaak_f32": ("f32", ("f32", "f32", "f32"), _fma),          # S0 * S1 + K
    "v_max3_f32": ("f32", ("f32", "f32", "f32"), lambda a, b, c: np.fmax(np.fmax(a, b), c)),
    "v_min3_f32": ("f32", ("f32", "f32", "f32"), lambda a, b, c: np.fmin(np.fmin(a, b), c)),
    "v_med3_f32": ("f32", ("f32", "f32", "f32"),
                   lambda a, b, c: np.fmax(np.fmin(a, b), np.fmin(np.fmax(a, b), c))),
    "v_exp_f32": ("f32", ("f32",), np.exp2),
    "v_log_f32": ("f32", ("f32",), np.log2),
    "v_rcp_f32": ("f32", ("f32",), lambda a: F32(1) / a),
    "v_rcp_iflag_f32": ("f32", ("f32",), lambda a: F32(1) / a),
    "v_rsq_f32": ("f32", ("f32",), lambda a: F32(1) / np.sqrt(a)),
    "v_sqrt_f32": ("f32", ("f32",), np.sqrt),
    "v_trunc_f32": ("f32", ("f32",), np.trunc),
    "v_floor_f32": ("f32", ("f32",), np.floor),
    "v_ceil_f32": ("f32", ("f32",), np.ceil),
    "v_rndne_f32": ("f32", ("f32",), np.rint),
    "v_fract_f32": ("f32", ("f32",), lambda a: a - np.floor(a)),
    "v_ldexp_f32": ("f32", ("f32", "i32"), lambda a, e: np.ldexp(a, np.clip(e, -300, 300)).astype(F32)),
    "v_div_fixup_f32": ("f32", ("f32", "f32", "f32"), lambda q, den, num: num / den),
    "v_div_fmas_f32": ("f32", ("f32", "f32", "f32"), _fma),
    "v_cvt_f32_u32": ("f32", ("u32",), lambda a: np.asarray(a, U32).astype(F32)),
    "v_cvt_f32_i32": ("f32", ("i32",), lambda a: np.asarray(a, I32).astype(F32)),
    "v_cvt_u32_f32": ("u32", ("f32",), lambda a: _cvt_int(a, 0, 0xFFFFFFFF)),
    "v_cvt_i32_f32": ("i32", ("f32",), lambda a: _cvt_int(a, -2**31, 2**31 - 1)),
    "v_cvt_f16_f32": ("f16", ("f32",), lambda a: np.asarray(a, F32).astype(F16)),
    "v_cvt_f32_f16": ("f32", ("f16",), lambda a: np.asarray(a, F16).astype(F32)),
    "v_cvt_f32_bf16": ("f32", ("bf16",), lambda a: np.asarray(a).astype(F32)),
    "v_cvt_pk_bf16_f32": ("b32", ("f32", "f32"), lambda a, b: _bf16_bits(a) | (_bf16_bits(b) << U32(16))),
    "v_cvt_pk_f16_f32": ("b32", ("f32", "f32"), lambda a, b: _f16_bits(a) | (_f16_bits(b) << U32(16))),
    "v_cvt_pkrtz_f16_f32": ("b32", ("f32", "f32"), lambda a, b: _f16_rtz_bits(a) | (_f16_rtz_bits(b) << U32(16))),
    "v_pack_b32_f16": ("b32", ("u16", "u16"), lambda a, b: a.astype(U32) | (b.astype(U32) << U32(16))),
    # 16-bit
    "v_mov_b16": ("u16", ("u16",), lambda a: a),
    "v_or_b16": ("u16", ("u16", "u16"), lambda a, b: a | b),
    "v_and_b16": ("u16", ("u16", "u16"), lambda a, b: a & b),
    "v_xor_b16": ("u16", ("u16", "u16"), lambda a, b: a ^ b),
    "v_lshlrev_b16": ("u16", ("u16", "u16"), lambda s, x: x << (s & U16(15))),
    "v_lshrrev_b16": ("u16", ("u16", "u16"), lambda s, x: x >> (s & U16(15))),
    "v_add_u16": ("u16", ("u16", "u16"), lambda a, b: a + b),
    "v_add_f16": ("f16", ("f16", "f16"), lambda a, b: a + b),
    "v_mul_f16": ("f16", ("f16", "f16"), lambda a, b: a * b),
    "v_max_f16": ("f16", ("f16", "f16"), np.fmax),
    # integer
    "v_mov_b32": ("b32", ("b32",), lambda a: a),
    "v_add_u32": ("u32", ("u32", "u32"), lambda a, b: a + b),
    "v_sub_u32": ("u32", ("u32", "u32"), lambda a, b: a - b),
    "v_subrev_u32": ("u32", ("u32", "u32"), lambda a, b: b - a),
    "v_add_i32": ("u32", ("u32", "u32"), lambda a, b: a + b),
    "v_sub_i32": ("u32", ("u32", "u32"), lambda a, b: a - b),
    "v_and_b32": ("u32", ("u32", "u32"), lambda a, b: a & b),
    "v_or_b32": ("u32", ("u32", "u32"), lambda a, b: a | b),
    "v_xor_b32": ("u32", ("u32", "u32"), lambda a, b: a ^ b),
    "v_xnor_b32": ("u32", ("u32", "u32"), lambda a, b: ~(a ^ b)),
    "v_not_b32": ("u32", ("u32",), lambda a: ~np.asarray(a, U32)),
    "v_lshlrev_b32": ("u32", ("u32", "u32"), lambda s, x: x << (s & U32(31))),
    "v_lshrrev_b32": ("u32", ("u32", "u32"), lambda s, x: x >> (s & U32(31))),
    "v_ashrrev_i32": ("i32", ("u32", "i32"), lambda s, x: x >> (s & U32(31)).astype(I32)),
    "v_lshl_b32": ("u32", ("u32", "u32"), lambda x, s: x << (s & U32(31))),
    "v_bfe_u32": ("u32", ("u32", "u32", "u32"), lambda x, o, w: _bfe(x, o, w, False)),
    "v_bfe_i32": ("u32", ("u32", "u32", "u32"), lambda x, o, w: _bfe(x, o, w, True)),
    "v_bfi_b32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a & b) | (~np.asarray(a, U32) & c)),
    "v_bfrev_b32": ("u32", ("u32",), _brev),
    "v_add3_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: a + b + c),
    "v_and_or_b32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a & b) | c),
    "v_or3_b32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: a | b | c),
    "v_xor3_b32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: a ^ b ^ c),
    "v_lshl_or_b32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a << (b & U32(31))) | c),
    "v_lshl_add_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a << (b & U32(31))) + c),
    "v_add_lshl_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a + b) << (c & U32(31))),
    "v_xad_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: (a ^ b) + c),
    "v_mul_lo_u32": ("u32", ("u32", "u32"), lambda a, b: a * b),
    "v_mul_hi_u32": ("u32", ("u32", "u32"), lambda a, b: (np.asarray(a, U32).astype(U64) * b) >> U64(32)),
    "v_mul_hi_i32": ("u32", ("i32", "i32"), lambda a, b: (np.asarray(a, I32).astype(I64) * b) >> 32),
    "v_mul_u32_u24": ("u32", ("u32", "u32"), lambda a, b: _u24(a) * _u24(b)),
    "v_mul_hi_u32_u24": ("u32", ("u32", "u32"), lambda a, b: (_u24(a) * _u24(b)) >> U64(32)),
    "v_mul_i32_i24": ("u32", ("u32", "u32"), lambda a, b: _sext24(a) * _sext24(b)),
    "v_mad_u32_u24": ("u32", ("u32", "u32", "u32"), lambda a, b, c: _u24(a) * _u24(b) + c),
    "v_mad_i32_i24": ("u32", ("u32", "u32", "i32"), lambda a, b, c: _sext24(a) * _sext24(b) + c),
    "v_max_i32": ("i32", ("i32", "i32"), np.maximum),
    "v_min_i32": ("i32", ("i32", "i32"), np.minimum),
    "v_max_u32": ("u32", ("u32", "u32"), np.maximum),
    "v_min_u32": ("u32", ("u32", "u32"), np.minimum),
    "v_max3_i32": ("i32", ("i32", "i32", "i32"), lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_i32": ("i32", ("i32", "i32", "i32"), lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_perm_b32": ("u32", ("u32", "u32", "u32"), _perm),
    "v_alignbit_b32": ("u32", ("u32", "u32", "u32"),
                       lambda a, b, c: ((np.asarray(a, U32).astype(U64) << U64(32) | b) >> (c & U32(31))).astype(U32)),
    "v_bcnt_u32_b32": ("u32", ("u32", "u32"), lambda a, b: np.bitwise_count(np.asarray(a, U32)).astype(U32) + b),
    # 64-bit
    "v_mov_b64": ("b64", ("b64",), lambda a: a),
    "v_lshlrev_b64": ("b64", ("u32", "b64"), lambda s, x: x << (np.asarray(s, U32) & U32(63)).astype(U64)),
    "v_lshrrev_b64": ("b64", ("u32", "b64"), lambda s, x: x >> (np.asarray(s, U32) & U32(63)).astype(U64)),
    "v_lshl_add_u64": ("b64", ("b64", "u32", "b64"), lambda a, s, c: (a << (np.asarray(s, U32) & U32(63)).astype(U64)) + c),
}
#: ops whose last source is the destination register (accumulate into it)
ACC_DST = {"v_fmac_f32"}


# ---- source and destination access -------------------------------------------------------

def _typed(x, ty):
    if ty == "f32":
        return np.asarray(x).view(F32)
    if ty == "i32":
        return np.asarray(x).view(I32)
    if ty in ("u32", "b32"):
        return np.asarray(x)
    if ty == "f64":
        return np.asarray(x).view(F64)
    if ty in ("b64", "u64"):
        return np.asarray(x)
    if ty == "i64":
        return np.asarray(x).view(I64)
    h = np.asarray(x).astype(U16)
    if ty == "f16":
        return h.view(F16)
    if ty == "bf16":
        return h.view(BF16)
    if ty == "i16":
        return h.view(np.int16)
    return h


def src(o: Operand, ty: str, hi: bool = False, sdwa: str | None = None, dpp=None):
    """``fn(m)`` -> the typed value of source operand ``o`` (modifiers applied)."""
    if ty in WIDE:
        base = reader64(o, ty)
    else:
        base = raw_reader(o, "f16" if ty == "f16" else ("bf16" if ty == "bf16" else "f32" if ty == "f32" else "b32"))
    if dpp is not None:
        inner = base
        base = lambda m: dpp(m, inner(m))  # noqa: E731
    if sdwa is not None:
        base = _sdwa_select(base, sdwa, o.sext)
    elif ty in HALF and (hi or o.half == 1):
        inner2 = base
        base = lambda m: np.asarray(inner2(m)) >> U32(16)  # noqa: E731
    neg, ab = o.neg, o.abs
    if ty in FLOATS:
        if neg and ab:
            return lambda m: -np.abs(_typed(base(m), ty))
        if ab:
            return lambda m: np.abs(_typed(base(m), ty))
        if neg:
            return lambda m: -_typed(base(m), ty)
    elif neg and ty in ("i32", "u32"):     # VOP3 neg on an integer source (v_add3 etc. never use it)
        raise UnknownInstructionError(f"neg modifier on integer operand {o.text}")
    return lambda m: _typed(base(m), ty)


_SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8),
        "WORD_0": (0, 16), "WORD_1": (16, 16), "DWORD": (0, 32)}


def _sdwa_select(base, sel: str, sext: bool):
    shift, width = _SEL[sel]
    if width == 32:
        return base
    mask = U32((1 << width) - 1)

    def f(m):
        v = (np.asarray(base(m), U32) >> U32(shift)) & mask
        if sext:
            v = v.astype(I64)
            v = np.where(v & (1 << (width - 1)), v - (1 << width), v).astype(I64).astype(U32)
        return v
    return f


def to_bits(res, ty: str):
    """A typed result as uint32 bits (uint64 for 64-bit types, low 16 bits for halves)."""
    if ty == "f32":
        return np.asarray(res, F32).view(U32)
    if ty in ("u32", "b32", "i32"):
        r = np.asarray(res)
        return r if r.dtype == U32 else r.astype(I64).astype(U32) if r.dtype.kind in "iub" else r.astype(U32)
    if ty == "f16":
        return np.asarray(res, F16).view(U16).astype(U32)
    if ty == "bf16":
        return np.asarray(res).astype(BF16).view(U16).astype(U32)
    if ty in ("u16", "i16", "b16"):
        return (np.asarray(res).astype(I64) & 0xFFFF).astype(U32)
    if ty == "f64":
        return np.asarray(res, F64).view(U64)
    return np.asarray(res).astype(U64)


def dst_writer(o: Operand, ty: str, ctx, hi: bool = False, sdwa: tuple | None = None, clamp: bool = False,
               omod: float = 1.0, lane_mask=None):
    """``fn(m, typed result)`` storing into vector destination ``o``."""
    regs = v_regs(o)
    i = o.index

    def finish(res):
        if omod != 1.0:
            res = res * F32(omod)
        if clamp and ty in FLOATS:
            res = np.clip(res, 0, 1)
        return res

    if ty in WIDE:
        def w64(m, res):
            bits = to_bits(finish(res), ty)
            rf = getattr(m, regs)
            mask = lane_mask(m) if lane_mask else None
            m.write_v(rf, i, (bits & U64(0xFFFFFFFF)).astype(U32), mask)
            m.write_v(rf, i + 1, (bits >> U64(32)).astype(U32), mask)
        return w64
    if ty in HALF:
        high = hi or o.half == 1
        preserve = ctx.gen >= 10 or hi or o.half >= 0 or sdwa is not None

        def w16(m, res):
            bits = to_bits(finish(res), ty) & U32(0xFFFF)
            rf = getattr(m, regs)
            if high:
                val = (rf[i] & U32(0xFFFF)) | (bits << U32(16))
            elif preserve:
                val = (rf[i] & U32(0xFFFF0000)) | bits
            else:
                val = bits
            m.write_v(rf, i, val, lane_mask(m) if lane_mask else None)
        return w16
    if sdwa is not None:
        sel, unused = sdwa
        shift, width = _SEL[sel]

        def wsdwa(m, res):
            bits = to_bits(finish(res), ty)
            rf = getattr(m, regs)
            if width == 32:
                val = bits
            else:
                field = (bits & U32((1 << width) - 1)) << U32(shift)
                if unused == "UNUSED_PRESERVE":
                    keep = U32(~(((1 << width) - 1) << shift) & 0xFFFFFFFF)
                    val = (rf[i] & keep) | field
                elif unused == "UNUSED_SEXT" and shift + width < 32:
                    top = (field >> U32(shift + width - 1)) & U32(1)
                    val = field | np.where(top == 1, U32((0xFFFFFFFF << (shift + width)) & 0xFFFFFFFF), U32(0))
                else:
                    val = field
            m.write_v(rf, i, val, lane_mask(m) if lane_mask else None)
        return wsdwa

    def w32(m, res):
        m.write_v(getattr(m, regs), i, to_bits(finish(res), ty), lane_mask(m) if lane_mask else None)
    return w32


# ---- DPP --------------------------------------------------------------------------------------

def dpp_control(inst, wave: int):
    """``(perm(m, values) -> values, lane_mask(m) -> bool mask)`` for a DPP instruction: the source
    lane each lane reads and which lanes write (row/bank masks, invalid sources unless bound_ctrl)."""
    lanes = np.arange(wave)
    src = lanes.copy()
    valid = np.ones(wave, bool)
    mods = inst.mods
    if "quad_perm" in mods:
        sel = [int(x) for x in mods["quad_perm"].strip("[]").split(",")]
        src = (lanes & ~3) | np.array(sel)[lanes & 3]
    elif "row_shl" in mods or "row_shr" in mods or "row_ror" in mods:
        key = next(k for k in ("row_shl", "row_shr", "row_ror") if k in mods)
        n = int(mods[key], 0)
        r = lanes & 15
        if key == "row_shl":
            src, valid = lanes + n, r + n < 16
        elif key == "row_shr":
            src, valid = lanes - n, r - n >= 0
        else:                                  # rotate right: like row_shr, wrapping within the row
            src = (lanes & ~15) | ((r - n) & 15)
    elif "row_mirror" in mods:
        src = (lanes & ~15) | (15 - (lanes & 15))
    elif "row_half_mirror" in mods:
        src = (lanes & ~7) | (7 - (lanes & 7))
    elif "row_bcast" in mods:
        row = lanes >> 4
        if int(mods["row_bcast"], 0) == 15:   # each row reads the last lane of the row before it
            src, valid = row * 16 - 1, row >= 1
        else:                                  # rows 2 and 3 read lane 31
            src, valid = np.full(wave, 31), row >= 2
    elif any(k in mods for k in ("wave_shl", "wave_shr", "wave_rol", "wave_ror")):
        key = next(k for k in ("wave_shl", "wave_shr", "wave_rol", "wave_ror") if k in mods)
        if key == "wave_shl":
            src, valid = lanes + 1, lanes + 1 < wave
        elif key == "wave_shr":
            src, valid = lanes - 1, lanes >= 1
        elif key == "wave_rol":
            src = (lanes + 1) % wave
        else:
            src = (lanes - 1) % wave
    elif "row_share" in mods or "row_xmask" in mods:
        key = "row_share" if "row_share" in mods else "row_xmask"
        n = int(mods[key], 0)
        src = (lanes & ~15) | (n if key == "row_share" else ((lanes & 15) ^ n))
    else:
        raise UnknownInstructionError(f"DPP control of {inst.text!r}")
    src = np.where(valid, src, lanes) % wave
    row_mask = int(mods.get("row_mask", "0xf"), 0)
    bank_mask = int(mods.get("bank_mask", "0xf"), 0)
    bound_zero = mods.get("bound_ctrl") in ("1", "0", True)   # LLVM prints bound_ctrl:1 (old syntax :0) = write 0
    writes = ((row_mask >> (lanes >> 4)) & 1).astype(bool) & ((bank_mask >> ((lanes >> 2) & 3)) & 1).astype(bool)

    fetch_inactive = mods.get("fi") in ("1", True)          # gfx10+: read disabled lanes' registers too

    def source_on(m):
        return valid if fetch_inactive else m.exec_mask()[:, src] & valid

    def perm(m, values):
        v = np.broadcast_to(np.asarray(values, U32), (m.nw, wave))
        out = v[:, src]
        src_on = source_on(m)
        if bound_zero:
            return np.where(src_on, out, U32(0))
        return out

    def lane_mask(m):
        mask, _full = m.lanes()
        mask = mask & writes
        if not bound_zero:
            mask = mask & source_on(m)
        return mask
    return perm, lane_mask


# ---- the generic builder ------------------------------------------------------------------------

def _omod(inst) -> float:
    if "mul" in inst.mods:
        return float(int(inst.mods["mul"]))
    if "div" in inst.mods:
        return 1.0 / int(inst.mods["div"])
    return 1.0


def vop_parts(inst, ctx, name: str):
    """``(load(m) -> sources, store(m, sources))`` of a table op: loading every source before any
    write is what lets VOPD run its two halves correctly."""
    dty, stys, fn = VOP[name]
    ops = operands(inst)
    enc = encoding(inst.op)
    dst = ops[0]
    srcs = list(ops[1:])
    if name in ACC_DST:
        srcs = srcs[:2] + [dst]
    if len(srcs) < len(stys):
        raise UnknownInstructionError(f"{inst.text!r} has {len(srcs)} sources; {name} takes {len(stys)}")
    srcs = srcs[:len(stys)]
    opsel = mod_list(inst, "op_sel", len(stys) + 1)
    sdwa_sel = [inst.mods.get(f"src{k}_sel") for k in range(len(stys))] if enc == "sdwa" else [None] * len(stys)
    dpp = lane_mask = None
    if enc in ("dpp", "e64_dpp") or "quad_perm" in inst.mods or "row_shr" in inst.mods or "row_shl" in inst.mods:
        dpp, lane_mask = dpp_control(inst, ctx.wave)
    readers = [src(o, t, hi=bool(opsel[k]) and t in HALF, sdwa=(sdwa_sel[k] or "DWORD") if enc == "sdwa" else None,
                   dpp=dpp if k == 0 else None)
               for k, (o, t) in enumerate(zip(srcs, stys))]
    sdwa_dst = (inst.mods.get("dst_sel", "DWORD"), inst.mods.get("dst_unused", "UNUSED_PAD")) if enc == "sdwa" else None
    write = dst_writer(dst, dty, ctx, hi=bool(opsel[len(stys)]) and dty in HALF, sdwa=sdwa_dst,
                       clamp="clamp" in inst.mods, omod=_omod(inst), lane_mask=lane_mask)

    def load(m):
        return [r(m) for r in readers]

    def store(m, vals):
        write(m, fn(*vals))
    return load, store


def _table_builder(inst, ctx):
    load, store = vop_parts(inst, ctx, base_name(inst.op))
    return Step(inst, lambda m: store(m, load(m)))


for _name in VOP:
    op(_name)(_table_builder)


# ---- VOPD (gfx11+ dual issue) -------------------------------------------------------------------

_DUAL = {"v_dual_add_f32": "v_add_f32", "v_dual_sub_f32": "v_sub_f32", "v_dual_subrev_f32": "v_subrev_f32",
         "v_dual_mul_f32": "v_mul_f32", "v_dual_fmac_f32": "v_fmac_f32", "v_dual_max_f32": "v_max_f32",
         "v_dual_min_f32": "v_min_f32", "v_dual_max_num_f32": "v_max_f32", "v_dual_min_num_f32": "v_min_f32",
         "v_dual_mov_b32": "v_mov_b32", "v_dual_add_nc_u32": "v_add_u32", "v_dual_and_b32": "v_and_b32",
         "v_dual_lshlrev_b32": "v_lshlrev_b32", "v_dual_fmamk_f32": "v_fmamk_f32",
         "v_dual_fmaak_f32": "v_fmaak_f32", "v_dual_mul_dx9_zero_f32": "v_mul_legacy_f32"}


def _dual_half(inst, ctx):
    name = inst.op
    if name == "v_dual_cndmask_b32":
        return cndmask_parts(inst, ctx, implicit=VCC)
    if name not in _DUAL:
        raise UnknownInstructionError(f"VOPD half {name!r}")
    return vop_parts(inst, ctx, _DUAL[name])


@op("v_dual")
def _vopd(inst, ctx):
    from dataclasses import replace

    x = replace(inst, pair=None)
    lx, sx = _dual_half(x, ctx)
    ly, sy = _dual_half(inst.pair, ctx)

    def run(m):
        vx = lx(m)
        # Y's sources are register views: copy them, or X's write would show through
        vy = [v.copy() if isinstance(v, np.ndarray) else v for v in ly(m)]
        sx(m, vx)
        sy(m, vy)
    return Step(inst, run)


# ---- v_cndmask ----------------------------------------------------------------------------------

def cndmask_parts(inst, ctx, implicit: int | None = None):
    ops = operands(inst)
    enc = encoding(inst.op)
    sdwa = enc == "sdwa"
    s0 = src(ops[1], "f32" if (ops[1].neg or ops[1].abs) else "b32",
             sdwa=inst.mods.get("src0_sel", "DWORD") if sdwa else None)
    s1 = src(ops[2], "f32" if (ops[2].neg or ops[2].abs) else "b32",
             sdwa=inst.mods.get("src1_sel", "DWORD") if sdwa else None)
    sel = implicit if implicit is not None else (ops[3].index if len(ops) > 3 else VCC)
    sdwa_dst = (inst.mods.get("dst_sel", "DWORD"), inst.mods.get("dst_unused", "UNUSED_PAD")) if sdwa else None
    write = dst_writer(ops[0], "b32", ctx, sdwa=sdwa_dst)

    def load(m):
        return [s0(m), s1(m), m.mask_of(sel)]

    def store(m, vals):
        a, b, cond = vals
        write(m, np.where(cond, np.asarray(b).view(U32) if np.asarray(b).dtype == F32 else b,
                          np.asarray(a).view(U32) if np.asarray(a).dtype == F32 else a))
    return load, store


@op("v_cndmask_b32")
def _cndmask(inst, ctx):
    load, store = cndmask_parts(inst, ctx)
    return Step(inst, lambda m: store(m, load(m)))


# ---- compares -----------------------------------------------------------------------------------

def _cmp_fn(kind: str):
    return {
        "f": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
        "t": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
        "tru": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
        "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
        "lg": lambda a, b: (a < b) | (a > b), "ne": np.not_equal,
        "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "u": lambda a, b: np.isnan(a) | np.isnan(b),
        "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)), "ngt": lambda a, b: ~(a > b),
        "nle": lambda a, b: ~(a <= b), "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
    }[kind]


def _class_fn(a, mask):
    """v_cmp_class: bit k of ``mask`` tests class k of ``a`` (0 signalling NaN, 1 quiet NaN, 2 -inf,
    3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf), in ``a``'s own type."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        a = a.astype(F32)
    mask = np.asarray(mask, U32)
    neg = np.signbit(a)
    isnan = np.isnan(a)
    man_bits = np.finfo(a.dtype).nmant
    ubits = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    quiet = ((ubits >> ubits.dtype.type(man_bits - 1)) & ubits.dtype.type(1)) == 1
    isinf = np.isinf(a)
    zero = a == 0
    sub = (~zero) & (np.abs(a) < np.finfo(a.dtype).tiny) & ~isnan
    normal = ~(isnan | isinf | zero | sub)
    classes = [isnan & ~quiet, isnan & quiet, isinf & neg, normal & neg, sub & neg, zero & neg,
               zero & ~neg, sub & ~neg, normal & ~neg, isinf & ~neg]
    out = np.zeros(np.broadcast(a, mask).shape, bool)
    for k, c in enumerate(classes):
        out |= c & (((mask >> U32(k)) & U32(1)) == 1)
    return out


def _cmp_builder(inst, ctx):
    name = base_name(inst.op)
    x = name.startswith("v_cmpx_")
    kind, ty = name.removeprefix("v_cmpx_" if x else "v_cmp_").rsplit("_", 1)
    ops = operands(inst)
    n_src = 2
    has_dst = len(ops) > n_src
    dst = ops[0] if has_dst else None
    srcs = ops[1:] if has_dst else ops
    enc = encoding(inst.op)
    opsel = mod_list(inst, "op_sel", 3)
    tys = (ty, "u32") if kind == "class" else (ty, ty)      # class: src1 is a bit mask of classes
    if enc == "sdwa":
        readers = [src(o, tys[k], sdwa=inst.mods.get(f"src{k}_sel", "DWORD")) for k, o in enumerate(srcs[:2])]
    else:
        readers = [src(o, tys[k], hi=bool(opsel[k]) and tys[k] in HALF) for k, o in enumerate(srcs[:2])]
    fn = _class_fn if kind == "class" else _cmp_fn(kind)
    if dst is None:
        sdst = VCC if (not x or ctx.gen < 10) else None
    else:
        sdst = dst.index
    if x and ctx.gen >= 10:
        sdst = dst.index if (dst is not None and dst.kind == "s") else None

    def run(m):
        res = np.broadcast_to(fn(readers[0](m), readers[1](m)), (m.nw, m.L))
        mask, _full = m.lanes()
        res = res & mask
        if sdst is not None:
            m.write_mask(sdst, res)
        if x:
            m.write_mask(126, res)
    return Step(inst, run)


#: the compares the ISA has: floats take the IEEE kinds (gfx11 also spells tru as t) and class,
#: integers the six orderings plus f / t
_FLOAT_CMP = ("f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru", "t",
              "class")
_INT_CMP = ("f", "lt", "eq", "le", "gt", "ne", "ge", "t")
for _ty in ("f32", "f16", "f64", "i32", "u32", "i64", "u64", "i16", "u16"):
    for _k in _FLOAT_CMP if _ty.startswith("f") else _INT_CMP:
        op(f"v_cmp_{_k}_{_ty}", f"v_cmpx_{_k}_{_ty}")(_cmp_builder)


# ---- carries and 64-bit multiply-add ----------------------------------------------------------

def _carry_builder(inst, ctx):
    """v_add_co_u32 / v_sub_co_u32 / v_subrev_co_u32 (carry out) and v_addc_co_u32 / v_subb_co_u32 /
    v_subbrev_co_u32 (carry in and out).  Printed: vdst, sdst, src0, src1[, carry-in]."""
    name = base_name(inst.op)
    ops = operands(inst)
    vdst, sdst = ops[0], ops[1]
    a, b = src(ops[2], "u32"), src(ops[3], "u32")
    cin = ops[4].index if len(ops) > 4 else (VCC if name in ("v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32")
                                              else None)
    write = dst_writer(vdst, "u32", ctx)
    cout = sdst.index if sdst.kind == "s" else VCC
    kind = name

    def run(m):
        x, y = np.asarray(a(m)).astype(I64), np.asarray(b(m)).astype(I64)
        c = m.mask_of(cin).astype(I64) if cin is not None else 0
        if kind in ("v_add_co_u32", "v_addc_co_u32"):
            t = x + y + c
            out, carry = t, t > 0xFFFFFFFF
        elif kind in ("v_sub_co_u32", "v_subb_co_u32"):
            t = x - y - c
            out, carry = t, t < 0
        else:
            t = y - x - c
            out, carry = t, t < 0
        write(m, (np.broadcast_to(out, (m.nw, m.L)) & 0xFFFFFFFF).astype(U32))
        mask, _ = m.lanes()
        m.write_mask(cout, np.broadcast_to(carry, (m.nw, m.L)) & mask)
    return Step(inst, run)


for _n in ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
           "v_subbrev_co_u32"):
    op(_n)(_carry_builder)


@op("v_mad_u64_u32", "v_mad_i64_i32")
def _mad64(inst, ctx):
    ops = operands(inst)
    signed = base_name(inst.op) == "v_mad_i64_i32"
    a, b = src(ops[2], "i32" if signed else "u32"), src(ops[3], "i32" if signed else "u32")
    c = src(ops[4], "i64" if signed else "u64")
    write = dst_writer(ops[0], "b64", ctx)
    cout = ops[1].index

    def run(m):
        if signed:
            x = np.asarray(a(m)).astype(I64) * np.asarray(b(m)).astype(I64)
            cc = np.asarray(c(m)).astype(I64)
            s = x + cc
            carry = ((x >= 0) == (cc >= 0)) & ((s >= 0) != (x >= 0))
            write(m, s.view(U64) if isinstance(s, np.ndarray) else np.asarray(s).view(U64))
        else:
            x = np.asarray(a(m)).astype(U64) * np.asarray(b(m)).astype(U64)
            s = x + np.asarray(c(m), U64)
            carry = s < x
            write(m, s)
        if cout != NULL:
            mask, _ = m.lanes()
            m.write_mask(cout, np.broadcast_to(carry, (m.nw, m.L)) & mask)
    return Step(inst, run)


@op("v_div_scale_f32")
def _div_scale(inst, ctx):
    """D = S0 unscaled, VCC (the sdst) = 0: inputs are never rescaled, and v_div_fixup_f32 returns
    the correctly rounded quotient regardless."""
    ops = operands(inst)
    s0 = src(ops[2], "f32")
    write = dst_writer(ops[0], "f32", ctx)
    cout = ops[1].index

    def run(m):
        write(m, s0(m))
        m.write_mask(cout, np.zeros((m.nw, m.L), bool))
    return Step(inst, run)


# ---- lane reads, writes and permutes ------------------------------------------------------------

@op("v_readfirstlane_b32")
def _readfirstlane(inst, ctx):
    ops = operands(inst)
    s = src(ops[1], "b32")
    d = ops[0].index

    def run(m):
        v = np.broadcast_to(s(m), (m.nw, m.L))
        ex = m.exec_mask()
        first = np.where(ex.any(axis=1), ex.argmax(axis=1), 0)
        m.write_s(d, v[np.arange(m.nw), first])
    return Step(inst, run)


@op("v_readlane_b32")
def _readlane(inst, ctx):
    ops = operands(inst)
    s, lane = src(ops[1], "b32"), raw_reader(ops[2])
    d = ops[0].index

    def run(m):
        v = np.broadcast_to(s(m), (m.nw, m.L))
        ln = np.broadcast_to(np.asarray(lane(m)).reshape(-1, 1), (m.nw, 1))[:, 0].astype(np.int64) % m.L
        m.write_s(d, v[np.arange(m.nw), ln])
    return Step(inst, run)


@op("v_writelane_b32")
def _writelane(inst, ctx):
    ops = operands(inst)
    s, lane = raw_reader(ops[1]), raw_reader(ops[2])
    regs, i = v_regs(ops[0]), ops[0].index

    def run(m):
        val = np.broadcast_to(np.asarray(s(m)).reshape(-1, 1), (m.nw, 1))
        ln = np.broadcast_to(np.asarray(lane(m)).reshape(-1, 1), (m.nw, 1)).astype(np.int64) % m.L
        mask = (m.lane_id[None, :] == ln) & m.act[:, None]
        m.write_v(getattr(m, regs), i, np.broadcast_to(val, (m.nw, m.L)), mask)
    return Step(inst, run)


@op("v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32")
def _mbcnt(inst, ctx):
    ops = operands(inst)
    mask_src, add = src(ops[1], "u32"), src(ops[2], "u32")
    hi = "hi" in inst.op
    write = dst_writer(ops[0], "u32", ctx)
    lanes = np.arange(ctx.wave)
    below = np.where(lanes >= 32, 32, lanes) if not hi else np.clip(lanes - 32, 0, 32)
    keep = np.where(below >= 32, 0xFFFFFFFF, (1 << below) - 1).astype(U64)

    def run(m):
        s = np.asarray(mask_src(m), U32).astype(U64)
        cnt = np.bitwise_count(np.broadcast_to(s, (m.nw, m.L)) & keep[None, :]).astype(U32)
        write(m, cnt + add(m))
    return Step(inst, run)


@op("v_permlanex16_b32", "v_permlane16_b32")
def _permlane16(inst, ctx):
    """Lane i reads lane ``sel(i % 16)`` of the other row of its 32-lane half (x16) or of its own
    row (16); the 16 four-bit selectors come from src1 (lanes 0-7) and src2 (8-15)."""
    ops = operands(inst)
    s = raw_reader(ops[1])
    s1, s2 = raw_reader(ops[2]), raw_reader(ops[3])
    regs, i = v_regs(ops[0]), ops[0].index
    cross = "x16" in inst.op
    lanes = np.arange(ctx.wave)
    opsel = mod_list(inst, "op_sel", 2)
    fetch_inactive, bound_zero = bool(opsel[0]), bool(opsel[1])

    def run(m):
        v = np.broadcast_to(s(m), (m.nw, m.L))
        lo = np.broadcast_to(np.asarray(s1(m)).reshape(-1, 1), (m.nw, 1)).astype(U64)
        hi = np.broadcast_to(np.asarray(s2(m)).reshape(-1, 1), (m.nw, 1)).astype(U64)
        sel64 = lo | (hi << U64(32))
        k = (lanes & 15).astype(U64)
        sel = ((sel64 >> (U64(4) * k[None, :])) & U64(15)).astype(np.int64)
        row = lanes >> 4
        src_row = (row ^ 1) if cross else row
        src_lane = (src_row * 16)[None, :] + sel
        out = np.take_along_axis(v, src_lane, axis=1)
        ex = m.exec_mask()
        src_on = np.take_along_axis(ex, src_lane, axis=1) | fetch_inactive
        mask, _ = m.lanes()
        if bound_zero:
            out = np.where(src_on, out, U32(0))
        else:
            mask = mask & src_on
        m.write_v(getattr(m, regs), i, out, mask)
    return Step(inst, run)


@op("v_permlane16_swap_b32", "v_permlane32_swap_b32")
def _permlane_swap(inst, ctx):
    """gfx950: swap the odd 16-lane rows of vdst with the even rows of vsrc (16), or the upper 32
    lanes of vdst with the lower 32 of vsrc (32).  Both registers are written."""
    ops = operands(inst)
    a, b = ops[0], ops[1]
    lanes = np.arange(ctx.wave)
    if "16" in base_name(inst.op).split("_")[1]:
        a_lanes = lanes[(lanes >> 4) & 1 == 1]          # odd rows of vdst
        b_lanes = a_lanes - 16                          # even rows of vsrc
    else:
        a_lanes = lanes[lanes >= 32]
        b_lanes = a_lanes - 32

    def run(m):
        ra, rb = getattr(m, v_regs(a)), getattr(m, v_regs(b))
        va, vb = ra[a.index].copy(), rb[b.index].copy()
        mask, _ = m.lanes()
        new_a, new_b = va.copy(), vb.copy()
        new_a[:, a_lanes] = vb[:, b_lanes]
        new_b[:, b_lanes] = va[:, a_lanes]
        ma = np.zeros_like(mask)
        ma[:, a_lanes] = mask[:, a_lanes]
        mb = np.zeros_like(mask)
        mb[:, b_lanes] = mask[:, b_lanes]
        m.write_v(ra, a.index, new_a, ma)
        m.write_v(rb, b.index, new_b, mb)
    return Step(inst, run)


@op("v_s_rcp_f32", "v_s_exp_f32", "v_s_log_f32", "v_s_rsq_f32", "v_s_sqrt_f32")
def _pseudo_scalar(inst, ctx):
    """gfx12 pseudo-scalar transcendentals: an SGPR result of a scalar operand."""
    ops = operands(inst)
    s = src(ops[1], "f32")
    fn = {"v_s_rcp_f32": lambda a: F32(1) / a, "v_s_exp_f32": np.exp2, "v_s_log_f32": np.log2,
          "v_s_rsq_f32": lambda a: F32(1) / np.sqrt(a), "v_s_sqrt_f32": np.sqrt}[base_name(inst.op)]
    d = ops[0].index
    return Step(inst, lambda m: m.write_s(d, np.asarray(fn(s(m)), F32).view(U32)))


@op("v_bitop3_b32", "v_bitop3_b16")
def _bitop3(inst, ctx):
    """gfx950: each result bit is ``table`` bit ``(a << 2) | (b << 1) | c`` of the three source bits."""
    ops = operands(inst)
    table = mod_int(inst, "bitop3")
    ty = "u16" if inst.op.endswith("b16") else "u32"
    opsel = mod_list(inst, "op_sel", 4)
    a, b, c = (src(o, ty, hi=bool(opsel[k]) and ty == "u16") for k, o in enumerate(ops[1:4]))
    write = dst_writer(ops[0], ty, ctx, hi=bool(opsel[3]) and ty == "u16")
    full = U32(0xFFFF if ty == "u16" else 0xFFFFFFFF)

    def run(m):
        x, y, z = (np.asarray(f(m)).astype(U32) for f in (a, b, c))
        out = np.zeros(np.broadcast(x, y, z).shape, U32)
        for t in range(8):
            if table >> t & 1:
                out |= ((x if t & 4 else ~x) & (y if t & 2 else ~y) & (z if t & 1 else ~z))
        write(m, out & full)
    return Step(inst, run)


# ---- packed (VOP3P) -----------------------------------------------------------------------------

_PK = {"v_pk_add_f32": lambda a, b: a + b, "v_pk_mul_f32": lambda a, b: a * b, "v_pk_fma_f32": _fma,
       "v_pk_add_f16": lambda a, b: a + b, "v_pk_mul_f16": lambda a, b: a * b,
       "v_pk_fma_f16": lambda a, b, c: (np.asarray(a, F32) * b + c).astype(F16),
       "v_pk_max_f16": np.fmax, "v_pk_min_f16": np.fmin, "v_pk_mov_b32": lambda a, b: None}


@op(*_PK)
def _packed(inst, ctx):
    """Two lanes of math per lane: op_sel picks which half (dword for the f32 forms) of each
    source feeds the low result, op_sel_hi which feeds the high one; neg_lo / neg_hi negate."""
    name = base_name(inst.op)
    fn = _PK[name]
    ops = operands(inst)
    dst, srcs = ops[0], ops[1:]
    n = len(srcs)
    opsel = mod_list(inst, "op_sel", n)
    opsel_hi = mod_list(inst, "op_sel_hi", n, default=1)
    neg_lo = mod_list(inst, "neg_lo", n)
    neg_hi = mod_list(inst, "neg_hi", n)
    f32 = name.endswith("f32") or name.endswith("b32")
    regs, di = v_regs(dst), dst.index

    def part(o, sel):
        if f32:
            if o.kind == "const":
                return raw_reader(o, "f32")
            return raw_reader(o, "b32", dword=sel)
        r = raw_reader(o, "f16")
        return (lambda m: np.asarray(r(m)) >> U32(16)) if sel else r

    lo_readers = [part(o, opsel[k]) for k, o in enumerate(srcs)]
    hi_readers = [part(o, opsel_hi[k]) for k, o in enumerate(srcs)]

    if name == "v_pk_mov_b32":
        # D.lo = op_sel[0] ? S0.hi : S0.lo, D.hi = op_sel[1] ? S1.hi : S1.lo (op_sel_hi unused)
        lo_src, hi_src = part(srcs[0], opsel[0]), part(srcs[1], opsel[1])

        def mov(m):
            rf = getattr(m, regs)
            lo, hi = lo_src(m), hi_src(m)
            m.write_v(rf, di, lo)
            m.write_v(rf, di + 1, hi)
        return Step(inst, mov)

    def typed(x, neg):
        v = np.asarray(x).view(F32) if f32 else np.asarray(x).astype(U16).view(F16)
        return -v if neg else v

    def run(m):
        lo = fn(*[typed(r(m), neg_lo[k]) for k, r in enumerate(lo_readers)])
        hi = fn(*[typed(r(m), neg_hi[k]) for k, r in enumerate(hi_readers)])
        rf = getattr(m, regs)
        if f32:
            m.write_v(rf, di, np.asarray(lo, F32).view(U32))
            m.write_v(rf, di + 1, np.asarray(hi, F32).view(U32))
        else:
            bits = np.asarray(lo, F16).view(U16).astype(U32) | (np.asarray(hi, F16).view(U16).astype(U32) << U32(16))
            m.write_v(rf, di, bits)
    return Step(inst, run)
