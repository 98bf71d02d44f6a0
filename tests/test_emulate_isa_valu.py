"""Vector ALU instructions on the emulator, one test per opcode, each an assembled
microprogram whose results are checked against the ISA documents' formulas (numpy here).

Inputs are per-lane vectors loaded from memory into v1, v2, v3 (lane-varying, with edge values:
0, 1, 0xffffffff, 0x80000000, shift amounts >= 32; floats with +-0, inf, a denormal)."""

from __future__ import annotations

import numpy as np
import pytest
from _isa import CDNA, RDNA, as_f32, eq_f32, f32, rand_f32, rand_u32, run, tools  # noqa: F401

import ml_dtypes

M32 = 0xFFFFFFFF


def i32(x):
    return np.asarray(x, np.uint32).view(np.int32).astype(np.int64)


def u64(x):
    return np.asarray(x, np.uint32).astype(np.uint64)


def wrap(x):
    return (np.asarray(x).astype(np.int64) & M32).astype(np.uint32) if np.asarray(x).dtype != np.uint64 else \
        (np.asarray(x) & np.uint64(M32)).astype(np.uint32)


def fma32(a, b, c):
    """D = round_f32(a * b + c), one rounding (float64 is exact enough for these inputs)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(np.float32)


def bfe(x, off, w, signed):
    off, w = np.asarray(off) & 31, np.asarray(w) & 31
    out = []
    for xi, oi, wi in zip(np.asarray(x, np.uint32).tolist(), off.tolist(), w.tolist()):
        if wi == 0:
            out.append(0)
            continue
        v = (xi >> oi) & ((1 << wi) - 1)
        if signed and v >> (wi - 1):
            v -= 1 << wi
        out.append(v & M32)
    return np.array(out, np.uint32)


def s24(x):
    x = np.asarray(x, np.uint32).astype(np.int64) & 0xFFFFFF
    return np.where(x >= 0x800000, x - 0x1000000, x)


def brev(x):
    return np.array([int(f"{v:032b}"[::-1], 2) for v in np.asarray(x, np.uint32).tolist()], np.uint32)


def perm_ref(s0, s1, sel):
    out = []
    for a, b, s in zip(np.asarray(s0, np.uint32).tolist(), np.asarray(s1, np.uint32).tolist(),
                       np.asarray(sel, np.uint32).tolist()):
        pool = b | (a << 32)
        r = 0
        for i in range(4):
            k = (s >> (8 * i)) & 0xFF
            if k < 8:
                byte = (pool >> (8 * k)) & 0xFF
            elif k == 8:
                byte = 0xFF if b & (1 << 15) else 0
            elif k == 9:
                byte = 0xFF if b & (1 << 31) else 0
            elif k == 10:
                byte = 0xFF if a & (1 << 15) else 0
            elif k == 11:
                byte = 0xFF if a & (1 << 31) else 0
            elif k == 12:
                byte = 0
            else:
                byte = 0xFF
            r |= byte << (8 * i)
        out.append(r)
    return np.array(out, np.uint32)


F = np.float32
# name: (arches, asm template with {op}, operand kinds "u" integer / "f" float inputs, expected(a, b, c) -> uint32 bits)
OPS = {
    "v_add_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(as_f32(a) + as_f32(b))),
    "v_sub_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(as_f32(a) - as_f32(b))),
    "v_subrev_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(as_f32(b) - as_f32(a))),
    "v_mul_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(as_f32(a) * as_f32(b))),
    "v_max_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(np.fmax(as_f32(a), as_f32(b)))),
    "v_min_f32": (None, "{op} v10, v1, v2", "ff", lambda a, b, c: f32(np.fmin(as_f32(a), as_f32(b)))),
    "v_fma_f32": (None, "{op} v10, v1, v2, v3", "fff", lambda a, b, c: f32(fma32(as_f32(a), as_f32(b), as_f32(c)))),
    "v_fmac_f32": (None, "v_mov_b32 v10, v3\n{op} v10, v1, v2", "fff",
                   lambda a, b, c: f32(fma32(as_f32(a), as_f32(b), as_f32(c)))),
    "v_fmamk_f32": (None, "{op} v10, v1, 0x40400000, v2", "ff", lambda a, b, c: f32(fma32(as_f32(a), 3.0, as_f32(b)))),
    "v_fmaak_f32": (None, "{op} v10, v1, v2, 0xbf000000", "ff", lambda a, b, c: f32(fma32(as_f32(a), as_f32(b), -0.5))),
    "v_max3_f32": (None, "{op} v10, v1, v2, v3", "fff",
                   lambda a, b, c: f32(np.fmax(np.fmax(as_f32(a), as_f32(b)), as_f32(c)))),
    "v_min3_f32": (None, "{op} v10, v1, v2, v3", "fff",
                   lambda a, b, c: f32(np.fmin(np.fmin(as_f32(a), as_f32(b)), as_f32(c)))),
    "v_med3_f32": (None, "{op} v10, v1, v2, v3", "fff",
                   lambda a, b, c: f32(np.median(np.stack([as_f32(a), as_f32(b), as_f32(c)]), axis=0))),
    "v_exp_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.exp2(as_f32(a)))),
    "v_log_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.log2(as_f32(a)))),
    "v_rcp_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(F(1) / as_f32(a))),
    "v_rcp_iflag_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(F(1) / as_f32(a))),
    "v_rsq_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(F(1) / np.sqrt(as_f32(a)))),
    "v_sqrt_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.sqrt(as_f32(a)))),
    "v_trunc_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.trunc(as_f32(a)))),
    "v_floor_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.floor(as_f32(a)))),
    "v_ceil_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.ceil(as_f32(a)))),
    "v_rndne_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(np.rint(as_f32(a)))),
    "v_fract_f32": (None, "{op} v10, v1", "f", lambda a, b, c: f32(as_f32(a) - np.floor(as_f32(a)))),
    "v_ldexp_f32": (None, "v_and_b32 v2, 15, v2\n{op} v10, v1, v2", "fu",
                    lambda a, b, c: f32(np.ldexp(as_f32(a), np.asarray(b, np.uint32) & 15).astype(F))),
    "v_cvt_f32_u32": (None, "{op} v10, v1", "u", lambda a, b, c: f32(np.asarray(a, np.uint32).astype(F))),
    "v_cvt_f32_i32": (None, "{op} v10, v1", "u", lambda a, b, c: f32(i32(a).astype(F))),
    "v_cvt_u32_f32": (None, "{op} v10, v1", "f",
                      lambda a, b, c: np.clip(np.nan_to_num(np.trunc(as_f32(a).astype(np.float64)), nan=0),
                                              0, M32).astype(np.uint32)),
    "v_cvt_i32_f32": (None, "{op} v10, v1", "f",
                      lambda a, b, c: wrap(np.clip(np.nan_to_num(np.trunc(as_f32(a).astype(np.float64)), nan=0),
                                                   -2**31, 2**31 - 1).astype(np.int64))),
    "v_cvt_pk_bf16_f32": (("gfx950",), "{op} v10, v1, v2", "ff",
                          lambda a, b, c: as_f32(a).astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32)
                          | (as_f32(b).astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32) << 16)),
    "v_cvt_pk_f16_f32": (("gfx950",), "{op} v10, v1, v2", "ff",
                         lambda a, b, c: as_f32(a).astype(np.float16).view(np.uint16).astype(np.uint32)
                         | (as_f32(b).astype(np.float16).view(np.uint16).astype(np.uint32) << 16)),
    "v_pack_b32_f16": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: (np.asarray(a, np.uint32) & 0xFFFF)
                       | ((np.asarray(b, np.uint32) & 0xFFFF) << 16)),
    "v_mov_b32": (None, "{op} v10, v1", "u", lambda a, b, c: a),
    "v_and_b32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: a & b),
    "v_or_b32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: a | b),
    "v_xor_b32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: a ^ b),
    "v_xnor_b32": (RDNA, "{op} v10, v1, v2", "uu", lambda a, b, c: ~(a ^ b)),
    "v_not_b32": (None, "{op} v10, v1", "u", lambda a, b, c: ~a),
    "v_lshlrev_b32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(u64(b) << (u64(a) & np.uint64(31)))),
    "v_lshrrev_b32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: b >> (a & 31)),
    "v_ashrrev_i32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(i32(b) >> (np.asarray(a) & 31))),
    "v_bfe_u32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: bfe(a, b, c, False)),
    "v_bfe_i32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: bfe(a, b, c, True)),
    "v_bfi_b32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: (a & b) | (~a & c)),
    "v_bfrev_b32": (None, "{op} v10, v1", "u", lambda a, b, c: brev(a)),
    "v_add3_u32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(u64(a) + u64(b) + u64(c))),
    "v_and_or_b32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: (a & b) | c),
    "v_or3_b32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: a | b | c),
    "v_xor3_b32": (RDNA, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: a ^ b ^ c),
    "v_lshl_or_b32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(u64(a) << (u64(b) & np.uint64(31))) | c),
    "v_lshl_add_u32": (None, "{op} v10, v1, v2, v3", "uuu",
                       lambda a, b, c: wrap(u64(wrap(u64(a) << (u64(b) & np.uint64(31)))) + u64(c))),
    "v_add_lshl_u32": (None, "{op} v10, v1, v2, v3", "uuu",
                       lambda a, b, c: wrap(u64(wrap(u64(a) + u64(b))) << (u64(c) & np.uint64(31)))),
    "v_xad_u32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(u64(a ^ b) + u64(c))),
    "v_mul_lo_u32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(u64(a) * u64(b))),
    "v_mul_hi_u32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: ((u64(a) * u64(b)) >> np.uint64(32)).astype(np.uint32)),
    "v_mul_hi_i32": (None, "{op} v10, v1, v2", "uu",
                     lambda a, b, c: wrap(np.array([(x * y) >> 32 for x, y in zip(i32(a).tolist(), i32(b).tolist())]))),
    "v_mul_u32_u24": (None, "{op} v10, v1, v2", "uu",
                      lambda a, b, c: wrap((u64(a) & np.uint64(0xFFFFFF)) * (u64(b) & np.uint64(0xFFFFFF)))),
    "v_mul_hi_u32_u24": (None, "{op} v10, v1, v2", "uu",
                         lambda a, b, c: (((u64(a) & np.uint64(0xFFFFFF)) * (u64(b) & np.uint64(0xFFFFFF)))
                                          >> np.uint64(32)).astype(np.uint32)),
    "v_mul_i32_i24": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(s24(a) * s24(b))),
    "v_mad_u32_u24": (None, "{op} v10, v1, v2, v3", "uuu",
                      lambda a, b, c: wrap((u64(a) & np.uint64(0xFFFFFF)) * (u64(b) & np.uint64(0xFFFFFF)) + u64(c))),
    "v_mad_i32_i24": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(s24(a) * s24(b) + i32(c))),
    "v_max_i32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(np.maximum(i32(a), i32(b)))),
    "v_min_i32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: wrap(np.minimum(i32(a), i32(b)))),
    "v_max_u32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: np.maximum(a, b)),
    "v_min_u32": (None, "{op} v10, v1, v2", "uu", lambda a, b, c: np.minimum(a, b)),
    "v_max3_i32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(np.maximum(np.maximum(i32(a), i32(b)), i32(c)))),
    "v_min3_i32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: wrap(np.minimum(np.minimum(i32(a), i32(b)), i32(c)))),
    "v_max3_u32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_u32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_perm_b32": (None, "{op} v10, v1, v2, v3", "uuu", lambda a, b, c: perm_ref(a, b, c)),
    "v_alignbit_b32": (None, "{op} v10, v1, v2, v3", "uuu",
                       lambda a, b, c: (((u64(a) << np.uint64(32)) | u64(b)) >> (u64(c) & np.uint64(31))).astype(np.uint32)),
    "v_bcnt_u32_b32": (None, "{op} v10, v1, v2", "uu",
                       lambda a, b, c: wrap(np.array([bin(x).count("1") for x in a.tolist()]) + i32(b))),
}
ALIASES = {  # gfx9 spelling -> gfx11+ spelling of the same operation
    "v_add_u32": "v_add_nc_u32", "v_sub_u32": "v_sub_nc_u32", "v_subrev_u32": "v_subrev_nc_u32",
}
INT_ARITH = {
    "v_add_u32": lambda a, b: wrap(u64(a) + u64(b)),
    "v_sub_u32": lambda a, b: wrap(u64(a) - u64(b) + np.uint64(1 << 32)),
    "v_subrev_u32": lambda a, b: wrap(u64(b) - u64(a) + np.uint64(1 << 32)),
}


#: ops whose ISA definition leaves the sign of a zero result to the implementation: finite inputs only
FINITE_ONLY = {"v_med3_f32"}


def _inputs(arch, kinds, seed, specials=True):
    return [rand_f32(arch, seed + k, specials) if t == "f" else rand_u32(arch, seed + k) for k, t in enumerate(kinds)]


def _cases():
    for name, (arches, *_rest) in OPS.items():
        for arch in (arches or ("gfx942", "gfx1100")):
            yield pytest.param(name, arch, id=f"{name}-{arch}")


APPROX = {"v_exp_f32": 1, "v_log_f32": 1, "v_rcp_f32": 1, "v_rcp_iflag_f32": 1, "v_rsq_f32": 1, "v_sqrt_f32": 1}


@pytest.mark.parametrize("name,arch", list(_cases()))
def test_vop(name, arch):
    """One VALU opcode on every lane (v10 = op(v1, v2, v3)); transcendentals within 1 ulp (the
    ISA's stated accuracy; the emulator computes them exactly)."""
    _, template, kinds, want = OPS[name]
    ins = _inputs(arch, kinds, sum(map(ord, name)), name not in FINITE_ONLY)
    got = run(arch, template.format(op=name), ["v10"], ins)["v10"]
    expect = want(*[np.asarray(x).view(np.uint32) for x in ins], *([None] * (3 - len(ins))))
    if "f" in kinds or name.endswith("_f32"):
        eq_f32(got, np.asarray(expect, np.uint32).view(np.float32), APPROX.get(name, 0))
    else:
        assert np.array_equal(got, np.asarray(expect, np.uint32)), (name, got[:8], np.asarray(expect)[:8])


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("name", sorted(INT_ARITH))
def test_add_sub_without_carry(name, arch):
    op = name if arch.startswith("gfx9") else ALIASES[name]
    a, b = rand_u32(arch, 5), rand_u32(arch, 6)
    got = run(arch, f"{op} v10, v1, v2", ["v10"], [a, b])["v10"]
    assert np.array_equal(got, INT_ARITH[name](a, b))


@pytest.mark.parametrize("arch", ["gfx942"])
def test_v_add_i32_and_v_sub_i32(arch):
    a, b = rand_u32(arch, 7), rand_u32(arch, 8)
    out = run(arch, "v_add_i32 v10, v1, v2\nv_sub_i32 v11, v1, v2", ["v10", "v11"], [a, b])
    assert np.array_equal(out["v10"], wrap(u64(a) + u64(b)))
    assert np.array_equal(out["v11"], wrap(u64(a) - u64(b) + np.uint64(1 << 32)))


# ---- 16-bit ----------------------------------------------------------------------------------------

def test_16bit_ops_gfx9_write_the_low_half():
    """gfx9: 16-bit VOP1/VOP2 results go to bits 0-15 (f16 conversions); op_sel/SDWA are tested apart."""
    arch = "gfx942"
    a = rand_f32(arch, 11, specials=False)
    h = rand_u32(arch, 12)
    out = run(arch, """
        v_cvt_f16_f32 v10, v1
        v_cvt_f32_f16 v11, v2
        v_lshlrev_b16 v12, v3, v2
        v_mov_b32 v13, 0
        v_cvt_f16_f32 v13, v1
    """, ["v10", "v11", "v12", "v13"], [a, h, h >> 27])
    f16 = a.astype(np.float16).view(np.uint16).astype(np.uint32)
    assert np.array_equal(out["v10"] & 0xFFFF, f16)
    eq_f32(out["v11"], (h & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float32))
    assert np.array_equal(out["v12"] & 0xFFFF, ((h & 0xFFFF) << ((h >> 27) & 15)) & 0xFFFF)
    assert np.array_equal(out["v13"], f16)


def test_true16_halves_gfx11():
    """gfx11: ``v1.l`` / ``v1.h`` address 16-bit halves and keep the other half."""
    arch = "gfx1100"
    a = rand_f32(arch, 13, specials=False)
    h = rand_u32(arch, 14)
    out = run(arch, """
        v_mov_b32 v10, v2
        v_cvt_f16_f32_e32 v10.l, v1
        v_mov_b32 v11, v2
        v_cvt_f16_f32_e32 v11.h, v1
        v_mov_b32 v12, 0x12345678
        v_mov_b16_e32 v12.h, v2.l
        v_mov_b32 v13, v2
        v_or_b16 v13.h, v13.h, 5 op_sel:[1,0,1]
    """, ["v10", "v11", "v12", "v13"], [a, h])
    f16 = a.astype(np.float16).view(np.uint16).astype(np.uint32)
    assert np.array_equal(out["v10"], (h & 0xFFFF0000) | f16)
    assert np.array_equal(out["v11"], (h & 0xFFFF) | (f16 << 16))
    assert np.array_equal(out["v12"], 0x5678 | ((h & 0xFFFF) << 16))
    assert np.array_equal(out["v13"], (h & 0xFFFF) | ((((h >> 16) | 5) & 0xFFFF) << 16))


def test_op_sel_selects_source_halves_gfx9():
    arch = "gfx942"
    a, b = rand_u32(arch, 15), rand_u32(arch, 16)
    out = run(arch, "v_pack_b32_f16 v10, v1, v2 op_sel:[1,0,0]\nv_pack_b32_f16 v11, v1, v2 op_sel:[0,1,0]",
              ["v10", "v11"], [a, b])
    assert np.array_equal(out["v10"], (a >> 16) | ((b & 0xFFFF) << 16))
    assert np.array_equal(out["v11"], (a & 0xFFFF) | (b & 0xFFFF0000))


def test_v_cvt_pkrtz_f16_f32_rounds_toward_zero():
    arch = "gfx942"
    a = np.full(64, 1.0 + 2 ** -11 + 2 ** -13, np.float32)    # between two f16 values, nearer the upper
    b = -a
    out = run(arch, "v_cvt_pkrtz_f16_f32 v10, v1, v2", ["v10"], [a, b])["v10"]
    lo = np.float16(1.0 + 2 ** -10) if False else np.float16(1.0)       # toward zero: 1.0
    assert (out & 0xFFFF == np.array(lo).view(np.uint16)).all()
    assert (out >> 16 == np.array(-lo).view(np.uint16)).all()


# ---- neg / abs / clamp / omod / inline constants ----------------------------------------------------

@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_input_modifiers_clamp_and_omod(arch):
    a, b = rand_f32(arch, 21, specials=False), rand_f32(arch, 22, specials=False)
    out = run(arch, """
        v_add_f32_e64 v10, -v1, |v2|
        v_mul_f32_e64 v11, -|v1|, v2 clamp
        v_add_f32_e64 v12, v1, v2 mul:2
        v_add_f32_e64 v13, v1, v2 div:2
        v_add_f32 v14, 0.5, v1
        v_add_f32 v15, -4.0, v1
        v_add_f32 v16, 0.15915494, v1
        v_add_u32_e32 v17, 64, v1
        v_add_u32_e32 v18, -16, v1
    """.replace("v_add_u32", "v_add_u32" if arch.startswith("gfx9") else "v_add_nc_u32"),
        ["v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18"], [a, b])
    eq_f32(out["v10"], -a + np.abs(b))
    eq_f32(out["v11"], np.clip(-np.abs(a) * b, 0, 1))
    eq_f32(out["v12"], (a + b) * np.float32(2))
    eq_f32(out["v13"], (a + b) * np.float32(0.5))
    eq_f32(out["v14"], np.float32(0.5) + a)
    eq_f32(out["v15"], np.float32(-4.0) + a)
    eq_f32(out["v16"], np.uint32(0x3E22F983).view(np.float32) + a)     # 1/(2 pi) as an inline constant
    au = a.view(np.uint32)
    assert np.array_equal(out["v17"], wrap(u64(au) + np.uint64(64)))
    assert np.array_equal(out["v18"], wrap(u64(au) + np.uint64(M32 - 15)))


# ---- VOPC -----------------------------------------------------------------------------------------

CMP = {
    "f": lambda a, b: np.zeros_like(a, bool), "lt": lambda a, b: a < b, "eq": lambda a, b: a == b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "lg": lambda a, b: (a < b) | (a > b),
    "ge": lambda a, b: a >= b, "o": lambda a, b: ~np.isnan(a) & ~np.isnan(b),
    "u": lambda a, b: np.isnan(a) | np.isnan(b), "nge": lambda a, b: ~(a >= b),
    "nlg": lambda a, b: ~((a < b) | (a > b)), "ngt": lambda a, b: ~(a > b), "nle": lambda a, b: ~(a <= b),
    "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b), "tru": lambda a, b: np.ones_like(a, bool),
    "ne": lambda a, b: a != b, "t": lambda a, b: np.ones_like(a, bool),
}
FLOAT_KINDS = ("f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru")
INT_KINDS = ("f", "lt", "eq", "le", "gt", "ne", "ge", "t")
TYPES = {"f32": FLOAT_KINDS, "f16": FLOAT_KINDS, "f64": FLOAT_KINDS, "i32": INT_KINDS, "u32": INT_KINDS, "i16": INT_KINDS,
         "u16": INT_KINDS, "i64": INT_KINDS, "u64": INT_KINDS}


def _typed(x, ty):
    x = np.asarray(x, np.uint32)
    return {"f32": x.view(np.float32), "i32": x.view(np.int32), "u32": x,
            "f16": (x & 0xFFFF).astype(np.uint16).view(np.float16),
            "i16": (x & 0xFFFF).astype(np.uint16).view(np.int16), "u16": (x & 0xFFFF).astype(np.uint16)}[ty]


def _mask_bits(m):
    return sum(1 << i for i, v in enumerate(m) if v)


@pytest.mark.parametrize("x", [False, True], ids=["cmp", "cmpx"])
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("ty", sorted(TYPES))
def test_vopc_every_kind(arch, ty, x):
    """v_cmp_<kind>_<type> into an SGPR mask (or v_cmpx into exec) for each kind, with half the
    lanes disabled: inactive lanes' bits are 0.  64-bit types compare register pairs."""
    L = 64 if arch == "gfx942" else 32
    rng = np.random.default_rng(len(ty))
    wide = ty.endswith("64")
    if ty == "f64":
        vals = np.array([0.0, -0.0, 1.0, -2.0, np.inf, np.nan, 3.5, -1e-300], np.float64)
        pair = [rng.choice(vals, L).view(np.uint64) for _ in range(2)]
        ins = [w for p in pair for w in ((p & 0xFFFFFFFF).astype(np.uint32), (p >> 32).astype(np.uint32))]
        xa, ya = pair[0].view(np.float64), pair[1].view(np.float64)
    elif ty in ("f32", "f16"):
        vals = np.array([0.0, -0.0, 1.0, -2.0, np.inf, np.nan, 3.5, -1e-3], np.float32)
        a = rng.choice(vals, L).astype(np.float32)
        b = rng.choice(vals, L).astype(np.float32)
        if ty == "f16":
            a = a.astype(np.float16).view(np.uint16).astype(np.uint32)
            b = b.astype(np.float16).view(np.uint16).astype(np.uint32)
        else:
            a, b = a.view(np.uint32), b.view(np.uint32)
        ins, xa, ya = [a, b], _typed(a, ty), _typed(b, ty)
    else:
        vals = np.array([0, 1, 2, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFF8000, 5], np.uint32)
        ins = [rng.choice(vals, L) for _ in range(4 if wide else 2)]
        if wide:
            xw = ins[0].astype(np.uint64) | (ins[1].astype(np.uint64) << 32)
            yw = ins[2].astype(np.uint64) | (ins[3].astype(np.uint64) << 32)
            xa, ya = (xw.view(np.int64), yw.view(np.int64)) if ty == "i64" else (xw, yw)
        else:
            xa, ya = _typed(ins[0], ty), _typed(ins[1], ty)
    kinds = [k for k in TYPES[ty] if not (arch != "gfx942" and ty.endswith("16") and ty[0] in "iu" and k in ("f", "t"))]
    if arch == "gfx1100" and ty.startswith("f"):
        kinds.append("t")                                   # gfx11 also spells tru as t
    sreg = "s[20:21]" if L == 64 else "s20"
    exec_half = "s_mov_b32 exec_lo, 0x55555555\ns_mov_b32 exec_hi, 0x55555555" if L == 64 else \
        "s_mov_b32 exec_lo, 0x55555555"
    body, outs = [], []
    if wide:
        body.append("v_mov_b32 v20, v1\nv_mov_b32 v21, v2\nv_mov_b32 v22, v3\nv_mov_b32 v23, v4")
    for k, kind in enumerate(kinds):
        src = "v[20:21], v[22:23]" if wide else "v1, v2"
        if x:                                               # gfx9 cmpx also writes an SGPR; gfx11 only exec
            body.append(f"v_cmpx_{kind}_{ty}_e64 {sreg + ', ' if L == 64 else ''}{src}")
            body.append(f"s_mov_b32 s{30 + 2 * k}, exec_lo")
            if L == 64:
                body.append(f"s_mov_b32 s{31 + 2 * k}, exec_hi")
            body.append(exec_half)
        else:
            body.append(f"v_cmp_{kind}_{ty}_e64 {sreg}, {src}")
            body.append(f"s_mov_b32 s{30 + 2 * k}, s20")
            if L == 64:
                body.append(f"s_mov_b32 s{31 + 2 * k}, s21")
        outs += [f"s{30 + 2 * k}"] + ([f"s{31 + 2 * k}"] if L == 64 else [])
    out = run(arch, exec_half + "\n" + "\n".join(body), outs, ins)
    active = (np.arange(L) % 2) == 0
    for k, kind in enumerate(kinds):
        want = CMP[kind](xa, ya) & active
        got = int(out[f"s{30 + 2 * k}"][0]) | ((int(out[f"s{31 + 2 * k}"][0]) << 32) if L == 64 else 0)
        assert got == _mask_bits(want), (ty, kind, hex(got), hex(_mask_bits(want)))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_vopc_e32_writes_vcc_and_cmpx_writes_exec(arch):
    L = 64 if arch == "gfx942" else 32
    a = np.arange(L, dtype=np.uint32)
    vcc = "vcc" if L == 64 else "vcc_lo"
    cmpx = "v_cmpx_gt_u32_e32 vcc, 10, v1" if L == 64 else "v_cmpx_gt_u32_e32 10, v1"
    out = run(arch, f"""
        v_cmp_lt_u32_e32 {vcc}, 20, v1
        s_mov_b32 s30, vcc_lo
        {"s_mov_b32 s31, vcc_hi" if L == 64 else ""}
        {cmpx}
        s_mov_b32 s32, exec_lo
        {"s_mov_b32 s33, exec_hi" if L == 64 else ""}
    """, ["s30", "s32"] + (["s31", "s33"] if L == 64 else []), [a])
    lo = lambda k: int(out[k][0])  # noqa: E731
    vcc_bits = lo("s30") | ((lo("s31") << 32) if L == 64 else 0)
    exec_bits = lo("s32") | ((lo("s33") << 32) if L == 64 else 0)
    assert vcc_bits == _mask_bits(a > 20)
    assert exec_bits == _mask_bits(a < 10)


def test_v_cmp_class_f32():
    arch = "gfx942"
    vals = np.array([np.nan, -np.inf, -1.0, -1e-40, -0.0, 0.0, 1e-40, 1.0, np.inf, 2.0] * 7, np.float32)[:64]
    out = run(arch, "v_cmp_class_f32_e64 s[20:21], v1, v2\ns_mov_b32 s30, s20\ns_mov_b32 s31, s21",
              ["s30", "s31"], [vals, np.full(64, (1 << 2) | (1 << 5) | (1 << 9), np.uint32)])
    got = int(out["s30"][0]) | (int(out["s31"][0]) << 32)
    want = (np.isneginf(vals)) | ((vals == 0) & np.signbit(vals)) | np.isposinf(vals)
    assert got == _mask_bits(want)


@pytest.mark.parametrize("arch,ty,x", [("gfx942", "f16", False), ("gfx942", "f64", False), ("gfx942", "f32", True),
                                        ("gfx1100", "f16", True), ("gfx1100", "f64", True)])
def test_v_cmp_class_f16_f64_and_cmpx(arch, ty, x):
    """Every class bit alone, on a value of each class (f16 and f64 keep their own subnormal ranges)."""
    L = 64 if arch == "gfx942" else 32
    ft = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[ty]
    sub = np.finfo(ft).tiny / 4
    vals = np.array([np.nan, -np.inf, -1.0, -sub, -0.0, 0.0, sub, 1.0, np.inf, 2.0], ft)
    v = np.resize(vals, L)
    bitsv = v.view({"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[ty]).astype(np.uint64)
    lane = np.arange(L)
    bit = (lane + lane // 10) % 10                  # lane i tests value i % 10 against class bit `bit`
    mask = (np.uint32(1) << bit.astype(np.uint32)).astype(np.uint32)
    mask[lane % 7 == 3] |= np.uint32(1 << 8)       # and some lanes also ask for +normal
    if ty == "f64":
        ins, src = [(bitsv & 0xFFFFFFFF).astype(np.uint32), (bitsv >> 32).astype(np.uint32), mask], "v[20:21], v3"
        pre = "v_mov_b32 v20, v1\nv_mov_b32 v21, v2\n"
    else:
        ins, src, pre = [bitsv.astype(np.uint32), mask], "v1, v2", ""
    sreg = "s[20:21]" if L == 64 else "s20"
    if x:
        body = pre + f"v_cmpx_class_{ty}_e64 {sreg + ', ' if L == 64 else ''}{src}\ns_mov_b32 s30, exec_lo\n" + \
            ("s_mov_b32 s31, exec_hi" if L == 64 else "")
    else:
        body = pre + f"v_cmp_class_{ty}_e64 {sreg}, {src}\ns_mov_b32 s30, s20\n" + ("s_mov_b32 s31, s21" if L == 64 else "")
    out = run(arch, body, ["s30"] + (["s31"] if L == 64 else []), ins)
    got = int(out["s30"][0]) | ((int(out["s31"][0]) << 32) if L == 64 else 0)
    cls = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 8])[lane % 10]
    want = ((mask >> cls.astype(np.uint32)) & 1).astype(bool)
    assert 0 < want.sum() < L
    assert got == _mask_bits(want), (hex(got), hex(_mask_bits(want)))


# ---- v_cndmask, carries, 64-bit multiply-add, div_scale ---------------------------------------------

@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1200"])
def test_v_cndmask_b32(arch):
    L = 64 if arch == "gfx942" else 32
    a, b = rand_u32(arch, 31), rand_u32(arch, 32)
    vcc = "vcc" if L == 64 else "vcc_lo"
    sreg = "s[20:21]" if L == 64 else "s20"
    out = run(arch, f"""
        v_cmp_gt_u32_e32 {vcc}, v1, v2
        v_cndmask_b32_e32 v10, v1, v2, {vcc}
        v_cmp_lt_u32_e64 {sreg}, v1, v2
        v_cndmask_b32_e64 v11, v1, -1, {sreg}
    """, ["v10", "v11"], [a, b])
    assert np.array_equal(out["v10"], np.where(a > b, b, a))
    assert np.array_equal(out["v11"], np.where(a < b, M32, a))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_carry_ops(arch):
    L = 64 if arch == "gfx942" else 32
    a, b = rand_u32(arch, 41), rand_u32(arch, 42)
    vcc = "vcc" if L == 64 else "vcc_lo"
    if L == 64:
        body = f"""
            v_add_co_u32_e32 v10, vcc, v1, v2
            v_addc_co_u32_e32 v11, vcc, v1, v2, vcc
            v_sub_co_u32_e32 v12, vcc, v1, v2
            v_subb_co_u32_e32 v13, vcc, v1, v2, vcc
            v_subrev_co_u32_e32 v14, vcc, v1, v2
            v_subbrev_co_u32_e32 v15, vcc, v1, v2, vcc
            s_mov_b32 s30, vcc_lo
            s_mov_b32 s31, vcc_hi
        """
    else:
        body = """
            v_add_co_u32 v10, vcc_lo, v1, v2
            v_add_co_ci_u32_e32 v11, vcc_lo, v1, v2, vcc_lo
            v_sub_co_u32 v12, vcc_lo, v1, v2
            v_sub_co_ci_u32_e32 v13, vcc_lo, v1, v2, vcc_lo
            v_subrev_co_u32 v14, vcc_lo, v1, v2
            v_subrev_co_ci_u32_e32 v15, vcc_lo, v1, v2, vcc_lo
            s_mov_b32 s30, vcc_lo
            s_mov_b32 s31, 0
        """
    out = run(arch, body, ["v10", "v11", "v12", "v13", "v14", "v15", "s30", "s31"], [a, b])
    A, B = a.astype(np.int64), b.astype(np.int64)
    c1 = (A + B) > M32
    assert np.array_equal(out["v10"], wrap(A + B))
    s2 = A + B + c1
    c2 = s2 > M32
    assert np.array_equal(out["v11"], wrap(s2))
    c3 = B > A
    assert np.array_equal(out["v12"], wrap(A - B))
    d4 = A - B - c3
    assert np.array_equal(out["v13"], wrap(d4))
    c4 = d4 < 0
    assert np.array_equal(out["v14"], wrap(B - A))
    c5 = A > B
    d6 = B - A - c5
    assert np.array_equal(out["v15"], wrap(d6))
    final = int(out["s30"][0]) | (int(out["s31"][0]) << 32)
    assert final == _mask_bits(d6 < 0)
    _ = (c2, c4)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1200"])
def test_v_mad_u64_u32_and_i64_i32(arch):
    a, b = rand_u32(arch, 51), rand_u32(arch, 52)
    c, d = rand_u32(arch, 53), rand_u32(arch, 54)
    sdst = "s[20:21]" if arch == "gfx942" else "s20"
    mad_u, mad_i = ("v_mad_u64_u32", "v_mad_i64_i32") if arch == "gfx942" else ("v_mad_co_u64_u32", "v_mad_co_i64_i32")
    out = run(arch, f"""
        v_mov_b32 v20, v3
        v_mov_b32 v21, v4
        {mad_u} v[10:11], {sdst}, v1, v2, v[20:21]
        {mad_i} v[12:13], {sdst}, v1, v2, v[20:21]
    """, ["v10", "v11", "v12", "v13"], [a, b, c, d])
    add = c.astype(np.uint64) | (d.astype(np.uint64) << 32)
    u = [(int(x) * int(y) + int(z)) & (2**64 - 1) for x, y, z in zip(a, b, add)]
    s = [(int(x) * int(y) + int(np.int64(np.uint64(z).view(np.int64)))) & (2**64 - 1)
         for x, y, z in zip(i32(a), i32(b), add)]
    assert np.array_equal(out["v10"].astype(np.uint64) | (out["v11"].astype(np.uint64) << 32), np.array(u, np.uint64))
    assert np.array_equal(out["v12"].astype(np.uint64) | (out["v13"].astype(np.uint64) << 32), np.array(s, np.uint64))


def test_division_sequence_gives_the_correctly_rounded_quotient():
    """v_div_scale / v_rcp / v_fma / v_div_fmas / v_div_fixup (what the compiler emits for a/b)."""
    arch = "gfx942"
    n, d = rand_f32(arch, 61, specials=False), rand_f32(arch, 62, specials=False) + np.float32(0.25)
    out = run(arch, """
        v_div_scale_f32 v3, s[20:21], v2, v2, v1
        v_div_scale_f32 v4, vcc, v1, v2, v1
        v_rcp_f32 v5, v3
        v_fma_f32 v6, -v3, v5, 1.0
        v_fma_f32 v5, v6, v5, v5
        v_mul_f32 v6, v4, v5
        v_fma_f32 v7, -v3, v6, v4
        v_fma_f32 v6, v7, v5, v6
        v_fma_f32 v3, -v3, v6, v4
        v_div_fmas_f32 v3, v3, v5, v6
        v_div_fixup_f32 v10, v3, v2, v1
    """, ["v10"], [n, d])["v10"]
    eq_f32(out, n / d)


def test_v_readfirstlane_readlane_writelane():
    arch = "gfx942"
    a = rand_u32(arch, 71)
    out = run(arch, """
        s_mov_b64 exec, 0xf0
        v_readfirstlane_b32 s30, v1
        s_mov_b64 exec, -1
        v_readlane_b32 s31, v1, 37
        s_mov_b32 s4, 9
        v_readlane_b32 s32, v1, s4
        v_mov_b32 v10, 0
        v_writelane_b32 v10, s31, 3
    """, ["s30", "s31", "s32", "v10"], [a])
    assert out["s30"][0] == a[4] and out["s31"][0] == a[37] and out["s32"][0] == a[9]
    want = np.zeros(64, np.uint32)
    want[3] = a[37]
    assert np.array_equal(out["v10"], want)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_v_mbcnt_counts_the_lanes_below(arch):
    L = 64 if arch == "gfx942" else 32
    body = "v_mbcnt_lo_u32_b32 v10, -1, 0\n" + ("v_mbcnt_hi_u32_b32 v10, -1, v10\n" if L == 64 else "")
    body += "s_mov_b32 s4, 0x55555555\nv_mbcnt_lo_u32_b32 v11, s4, 7"
    out = run(arch, body, ["v10", "v11"])
    lane = np.arange(L)
    assert np.array_equal(out["v10"], lane)
    assert np.array_equal(out["v11"], 7 + np.array([bin(0x55555555 & ((1 << min(i, 32)) - 1)).count("1") for i in lane]))


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1200"])
def test_v_permlanex16_and_permlane16_take_literal_selectors(arch):
    """Lane i reads lane sel[i % 16] of the other row of its half (x16) / of its own row (16);
    selectors: 4 bits per lane, src1 for lanes 0-7, src2 for 8-15 (literals allowed)."""
    a = rand_u32(arch, 81)
    out = run(arch, """
        s_mov_b32 s4, 0xfedcba98
        s_mov_b32 s5, 0x89abcdef
        v_mov_b32 v10, 0
        v_permlanex16_b32 v10, v1, 0x76543210, s4
        v_mov_b32 v11, 0
        v_permlane16_b32 v11, v1, 0x01234567, s5
    """, ["v10", "v11"], [a])
    lane = np.arange(32)
    assert np.array_equal(out["v10"], a[(lane ^ 16)])                           # identity selectors, other row
    sels = 0x01234567 | (0x89ABCDEF << 32)                                     # selector k: nibble k
    sel = np.array([(sels >> (4 * k)) & 15 for k in range(16)])
    assert np.array_equal(out["v11"], a[(lane & ~15) + sel[lane & 15]])


def test_v_permlane_swaps_gfx950():
    arch = "gfx950"
    a, b = rand_u32(arch, 91), rand_u32(arch, 92)
    out = run(arch, """
        v_mov_b32 v10, v1
        v_mov_b32 v11, v2
        v_permlane32_swap_b32 v10, v11
        v_mov_b32 v12, v1
        v_mov_b32 v13, v2
        v_permlane16_swap_b32 v12, v13
    """, ["v10", "v11", "v12", "v13"], [a, b])
    lane = np.arange(64)
    assert np.array_equal(out["v10"], np.where(lane >= 32, b[lane - 32], a))          # upper half of vdst <- lower of vsrc
    assert np.array_equal(out["v11"], np.where(lane < 32, a[(lane + 32) % 64], b))
    odd = (lane >> 4) & 1 == 1
    assert np.array_equal(out["v12"], np.where(odd, b[lane - 16], a))                 # odd rows of vdst <- even rows of vsrc
    assert np.array_equal(out["v13"], np.where(~odd, a[(lane + 16) % 64], b))


def test_v_bitop3_gfx950():
    arch = "gfx950"
    a, b, c = rand_u32(arch, 101), rand_u32(arch, 102), rand_u32(arch, 103)
    out = run(arch, "v_bitop3_b32 v10, v1, v2, v3 bitop3:0x96\nv_bitop3_b32 v11, v1, v2, v3 bitop3:0xe8",
              ["v10", "v11"], [a, b, c])
    assert np.array_equal(out["v10"], a ^ b ^ c)                        # 0x96: odd parity
    assert np.array_equal(out["v11"], (a & b) | (a & c) | (b & c))      # 0xe8: majority


def test_v_bitop3_b16_gfx950():
    arch = "gfx950"
    a, b, c = rand_u32(arch, 104), rand_u32(arch, 105), rand_u32(arch, 106)
    out = run(arch, "v_mov_b32 v10, v1\nv_bitop3_b16 v10, v1, v2, v3 bitop3:0x80", ["v10"], [a, b, c])
    assert np.array_equal(out["v10"] & 0xFFFF, (a & b & c) & 0xFFFF)


def test_v_pk_f32_ops_with_op_sel_hi():
    arch = "gfx942"
    a0, a1, b0, b1, c0, c1 = (rand_f32(arch, 110 + k, specials=False) for k in range(6))
    out = run(arch, """
        v_pk_add_f32 v[10:11], v[2:3], v[4:5]
        v_pk_mul_f32 v[12:13], v[2:3], v[4:5] op_sel_hi:[1,0]
        v_pk_fma_f32 v[14:15], v[2:3], v[4:5], v[6:7] op_sel:[1,0,0] op_sel_hi:[0,1,1]
        v_pk_mov_b32 v[16:17], v[2:3], v[4:5] op_sel:[1,0]
    """, ["v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17"], [a0, a1, b0, b1, c0, c1], first=2)
    eq_f32(out["v10"], a0 + b0)
    eq_f32(out["v11"], a1 + b1)
    eq_f32(out["v12"], a0 * b0)
    eq_f32(out["v13"], a1 * b0)                 # op_sel_hi[1] = 0: the high result takes b's low dword
    eq_f32(out["v14"], fma32(a1, b0, c0))       # op_sel[0] = 1: the low result takes a's high dword
    eq_f32(out["v15"], fma32(a0, b1, c1))       # op_sel_hi[0] = 0: the high result takes a's low dword
    assert np.array_equal(out["v16"], a1.view(np.uint32)) and np.array_equal(out["v17"], b0.view(np.uint32))


def test_v_pk_f16_ops():
    arch = "gfx942"
    x = rand_f32(arch, 120, specials=False).astype(np.float16)
    y = rand_f32(arch, 121, specials=False).astype(np.float16)
    a = x.view(np.uint16).astype(np.uint32) | (y.view(np.uint16).astype(np.uint32) << 16)
    b = y.view(np.uint16).astype(np.uint32) | (x.view(np.uint16).astype(np.uint32) << 16)
    out = run(arch, """
        v_pk_add_f16 v10, v1, v2
        v_pk_mul_f16 v11, v1, v2 neg_lo:[1,0]
        v_pk_max_f16 v12, v1, v2
        v_pk_min_f16 v13, v1, v2
        v_pk_fma_f16 v14, v1, v2, v1
    """, ["v10", "v11", "v12", "v13", "v14"], [a, b])
    h = lambda r: ((r & 0xFFFF).astype(np.uint16).view(np.float16), (r >> 16).astype(np.uint16).view(np.float16))  # noqa: E731
    lo, hi = h(out["v10"])
    assert np.array_equal(lo, x + y) and np.array_equal(hi, y + x)
    lo, hi = h(out["v11"])
    assert np.array_equal(lo, -x * y) and np.array_equal(hi, y * x)
    lo, hi = h(out["v12"])
    assert np.array_equal(lo, np.fmax(x, y))
    lo, hi = h(out["v13"])
    assert np.array_equal(lo, np.fmin(x, y))
    lo, hi = h(out["v14"])
    assert np.array_equal(lo, (x.astype(np.float32) * y + x).astype(np.float16))


def test_64bit_vector_ops():
    arch = "gfx942"
    a, b, s = rand_u32(arch, 130), rand_u32(arch, 131), rand_u32(arch, 132) & 63
    out = run(arch, """
        v_mov_b64 v[10:11], v[2:3]
        v_lshlrev_b64 v[12:13], v4, v[2:3]
        v_lshrrev_b64 v[14:15], v4, v[2:3]
        v_and_b32 v5, 3, v4
        v_lshl_add_u64 v[16:17], v[2:3], v5, v[2:3]
    """, ["v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17"], [a, b, s], first=2)
    x = a.astype(np.uint64) | (b.astype(np.uint64) << 32)
    pair = lambda lo, hi: out[lo].astype(np.uint64) | (out[hi].astype(np.uint64) << 32)  # noqa: E731
    assert np.array_equal(pair("v10", "v11"), x)
    assert np.array_equal(pair("v12", "v13"), x << s.astype(np.uint64))
    assert np.array_equal(pair("v14", "v15"), x >> s.astype(np.uint64))
    assert np.array_equal(pair("v16", "v17"), (x << (s & 3).astype(np.uint64)) + x)


def test_f16_arith_and_u16_add():
    arch = "gfx942"
    x = rand_f32(arch, 140, specials=False).astype(np.float16)
    y = rand_f32(arch, 141, specials=False).astype(np.float16)
    a, b = x.view(np.uint16).astype(np.uint32), y.view(np.uint16).astype(np.uint32)
    out = run(arch, """
        v_add_f16 v10, v1, v2
        v_mul_f16 v11, v1, v2
        v_max_f16 v12, v1, v2
        v_add_u16 v13, v1, v2
        v_lshrrev_b16 v17, 3, v1
    """, ["v10", "v11", "v12", "v13", "v17"], [a, b])
    f = lambda r: (r & 0xFFFF).astype(np.uint16).view(np.float16)  # noqa: E731
    assert np.array_equal(f(out["v10"]), x + y) and np.array_equal(f(out["v11"]), x * y)
    assert np.array_equal(f(out["v12"]), np.fmax(x, y))
    assert np.array_equal(out["v13"] & 0xFFFF, (a + b) & 0xFFFF)
    assert np.array_equal(out["v17"] & 0xFFFF, a >> 3)


def test_16bit_logic_gfx11():
    arch = "gfx1100"
    a, b = rand_u32(arch, 142), rand_u32(arch, 143)
    out = run(arch, """
        v_mov_b32 v14, 0
        v_and_b16 v14.l, v1.l, v2.l
        v_mov_b32 v15, 0
        v_or_b16 v15.l, v1.l, v2.l
        v_mov_b32 v16, 0
        v_xor_b16 v16.l, v1.l, v2.l
    """, ["v14", "v15", "v16"], [a, b])
    assert np.array_equal(out["v14"], (a & b) & 0xFFFF) and np.array_equal(out["v15"], (a | b) & 0xFFFF)
    assert np.array_equal(out["v16"], (a ^ b) & 0xFFFF)


def test_v_mul_legacy_f32():
    """v_mul_legacy_f32: 0 times anything (inf, NaN) is 0."""
    arch = "gfx942"
    a, b = (rand_f32(arch, 150 + k, specials=False) for k in range(2))
    a[0], b[0], b[1], a[1] = 0.0, np.inf, 0.0, np.nan
    out = run(arch, "v_mul_legacy_f32 v10, v1, v2", ["v10"], [a, b])
    want = a * b
    want[:2] = 0.0
    eq_f32(out["v10"], want)


def test_gfx12_pseudo_scalar_transcendentals():
    arch = "gfx1200"
    out = run(arch, """
        s_mov_b32 s4, 0x40800000
        v_s_rcp_f32 s10, s4
        v_s_exp_f32 s11, s4
        v_s_log_f32 s12, s4
        v_s_rsq_f32 s13, s4
        v_s_sqrt_f32 s14, s4
    """, ["s10", "s11", "s12", "s13", "s14"])
    assert [float(np.uint32(out[k][0]).view(np.float32)) for k in ("s10", "s11", "s12", "s13", "s14")] == \
        [0.25, 16.0, 2.0, 0.5, 2.0]


def test_v_lshl_b32_and_cvt_f32_bf16():
    """v_lshl_b32 (S0 << S1, the gfx9 non-reversed form's semantic) and bf16 -> f32 (gfx950)."""
    from pyhipattn.emulate.valu import VOP

    a, s = rand_u32("gfx942", 160), rand_u32("gfx942", 161) & 31
    fn = VOP["v_lshl_b32"][2]
    assert np.array_equal(fn(a, s), wrap(u64(a) << u64(s)))
    arch = "gfx950"
    x = rand_f32(arch, 162, specials=False).astype(ml_dtypes.bfloat16)
    out = run(arch, "v_cvt_f32_bf16 v10, v1", ["v10"], [x.view(np.uint16).astype(np.uint32)])
    eq_f32(out["v10"], x.astype(np.float32))


COVERS = set(OPS) | set(INT_ARITH) | set(ALIASES.values()) | {
    "v_add_i32", "v_sub_i32", "v_cvt_f16_f32", "v_cvt_f32_f16", "v_lshlrev_b16", "v_mov_b16", "v_or_b16",
    "v_cvt_pkrtz_f16_f32", "v_cndmask_b32", "v_add_co_u32", "v_addc_co_u32", "v_sub_co_u32", "v_subb_co_u32",
    "v_subrev_co_u32", "v_subbrev_co_u32", "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32",
    "v_mad_u64_u32", "v_mad_i64_i32", "v_mad_co_u64_u32", "v_mad_co_i64_i32", "v_div_scale_f32", "v_div_fmas_f32",
    "v_div_fixup_f32", "v_readfirstlane_b32", "v_readlane_b32", "v_writelane_b32", "v_mbcnt_lo_u32_b32",
    "v_mbcnt_hi_u32_b32", "v_permlanex16_b32", "v_permlane16_b32", "v_permlane16_swap_b32", "v_permlane32_swap_b32",
    "v_bitop3_b32", "v_bitop3_b16", "v_pk_add_f32", "v_pk_mul_f32", "v_pk_fma_f32", "v_pk_mov_b32", "v_pk_add_f16",
    "v_pk_mul_f16", "v_pk_max_f16", "v_pk_min_f16", "v_pk_fma_f16", "v_mov_b64", "v_lshlrev_b64", "v_lshrrev_b64",
    "v_lshl_add_u64", "v_add_f16", "v_mul_f16", "v_max_f16", "v_add_u16", "v_and_b16", "v_xor_b16",
    "v_lshrrev_b16", "v_mul_legacy_f32", "v_s_rcp_f32", "v_s_exp_f32", "v_s_log_f32",
    "v_s_rsq_f32", "v_s_sqrt_f32", "v_lshl_b32", "v_cvt_f32_bf16", "v_max_num_f32", "v_min_num_f32",
    "v_max3_num_f32", "v_min3_num_f32",
} | {f"v_cmp{x}_{k}_{t}" for t, kinds in TYPES.items() for k in kinds for x in ("", "x")} \
  | {f"v_cmp{x}_class_{t}" for t in ("f16", "f32", "f64") for x in ("", "x")} \
  | {f"v_cmp{x}_t_{t}" for t in ("f16", "f32", "f64") for x in ("", "x")}


# ---- VOPD (gfx11 / gfx12 dual issue) ------------------------------------------------------------

def _dual_ops(arch: str) -> dict:
    """VOPD half -> (operands after the destination, numpy result from a, b, the old destination d, vcc)."""
    K = 2.0
    mx, mn = ("v_dual_max_num_f32", "v_dual_min_num_f32") if arch == "gfx1200" else ("v_dual_max_f32", "v_dual_min_f32")
    ops = {
        "v_dual_add_f32": ("v1, v2", lambda a, b, d, c: a + b), "v_dual_sub_f32": ("v1, v2", lambda a, b, d, c: a - b),
        "v_dual_subrev_f32": ("v1, v2", lambda a, b, d, c: b - a), "v_dual_mul_f32": ("v1, v2", lambda a, b, d, c: a * b),
        "v_dual_fmac_f32": ("v1, v2", lambda a, b, d, c: _fma32(a, b, d)),
        mx: ("v1, v2", lambda a, b, d, c: np.maximum(a, b)), mn: ("v1, v2", lambda a, b, d, c: np.minimum(a, b)),
        "v_dual_mov_b32": ("v1", lambda a, b, d, c: a),
        "v_dual_fmamk_f32": (f"v1, {K}, v2", lambda a, b, d, c: (a.astype(np.float64) * K + b).astype(np.float32)),
        "v_dual_fmaak_f32": (f"v1, v2, {K}", lambda a, b, d, c: (a.astype(np.float64) * b + K).astype(np.float32)),
        "v_dual_mul_dx9_zero_f32": ("v1, v2", lambda a, b, d, c: np.where((a == 0) | (b == 0), np.float32(0), a * b)),
        "v_dual_cndmask_b32": ("v1, v2", lambda a, b, d, c: np.where(c, b, a)),
    }
    y_only = {"v_dual_add_nc_u32": ("v1, v2", lambda a, b, d, c: (a.view(np.uint32) + b.view(np.uint32)).view(np.float32)),
              "v_dual_and_b32": ("v1, v2", lambda a, b, d, c: (a.view(np.uint32) & b.view(np.uint32)).view(np.float32)),
              "v_dual_lshlrev_b32": ("v1, v2", lambda a, b, d, c: (b.view(np.uint32) << (a.view(np.uint32) & 31)
                                                                   ).view(np.float32))}
    return ops, y_only


def _fma32(a, b, d):
    return (a.astype(np.float64) * b.astype(np.float64) + d.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1200"])
@pytest.mark.parametrize("side", ["x", "y"])
def test_vopd_every_half(arch, side):
    """Each VOPD opcode as the X half (paired with a mov that reads X's destination: it must see
    the old value) and as the Y half (paired with a mov X); fmac accumulates into the old value."""
    ops, y_only = _dual_ops(arch)
    table = {**ops, **y_only} if side == "y" else ops
    L = 32
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(L) * 3).astype(np.float32)
    b = (rng.standard_normal(L) * 3).astype(np.float32)
    a[:3] = [0.0, 2.0, -0.0]
    b[3] = 0.0
    d0 = (rng.standard_normal(L)).astype(np.float32)
    vcc = rng.random(L) < 0.5
    vcc_bits = int(sum(1 << i for i in range(L) if vcc[i]))
    body, outs, checks = [f"s_mov_b32 vcc_lo, {vcc_bits:#x}"], [], []
    for k, (name, (srcs, fn)) in enumerate(sorted(table.items())):
        dx, dy = 10 + 4 * k, 11 + 4 * k
        body.append(f"v_mov_b32 v{dx}, v3")
        body.append(f"v_mov_b32 v{dy}, v3")
        if side == "x":
            body.append(f"{name} v{dx}, {srcs} :: v_dual_mov_b32 v{dy}, v{dx}")
            checks.append((f"v{dx}", fn, name))
            checks.append((f"v{dy}", lambda a, b, d, c: d, name + " (Y saw X's old destination)"))
        else:
            ysrcs = srcs.replace("v1", "v5").replace("v2", "v6")     # banks apart from X's source v3
            body.append(f"v_dual_mov_b32 v{dx}, v3 :: {name} v{dy}, {ysrcs}")
            checks.append((f"v{dy}", fn, name))
        outs += [f"v{dx}", f"v{dy}"]
    inputs = [a, b, d0, np.zeros(L, np.float32), a, b]
    out = run(arch, "\n".join(body), outs, [x.view(np.uint32) for x in inputs])
    for reg, fn, name in checks:
        want = fn(a, b, d0, vcc)
        eq_f32(out[reg], np.asarray(want, np.float32))


COVERS |= {"v_dual"}


# ---- DPP and SDWA --------------------------------------------------------------------------------

def _dpp_src(ctrl: str, L: int) -> tuple[np.ndarray, np.ndarray]:
    """(source lane, in range) of each lane for a DPP control, from the ISA tables: a row is 16
    lanes; shifts and rotates to the right read lower lanes (row_shr:1 reads lane - 1)."""
    lane = np.arange(L)
    r, base = lane & 15, lane & ~15
    kind, _, arg = ctrl.partition(":")
    if kind == "quad_perm":
        sel = [int(x) for x in arg.strip("[]").split(",")]
        return (lane & ~3) | np.array(sel)[lane & 3], np.ones(L, bool)
    n = int(arg, 0) if arg else 0
    table = {
        "row_shl": (lane + n, r + n < 16), "row_shr": (lane - n, r - n >= 0),
        "row_ror": (base | ((r - n) & 15), np.ones(L, bool)),
        "row_mirror": (base | (15 - r), np.ones(L, bool)), "row_half_mirror": ((lane & ~7) | (7 - (lane & 7)), np.ones(L, bool)),
        "row_bcast": ((lane >> 4) * 16 - 1, lane >= 16) if n == 15 else (np.full(L, 31), lane >= 32),
        "wave_shl": (lane + 1, lane + 1 < L), "wave_shr": (lane - 1, lane >= 1),
        "wave_rol": ((lane + 1) % L, np.ones(L, bool)), "wave_ror": ((lane - 1) % L, np.ones(L, bool)),
        "row_share": (base | n, np.ones(L, bool)), "row_xmask": (base | (r ^ n), np.ones(L, bool)),
    }
    src, ok = table[kind]
    return np.where(ok, src, 0) % L, ok


DPP9 = ["quad_perm:[1,0,3,2]", "quad_perm:[3,3,0,1]", "row_shl:3", "row_shr:5", "row_ror:3", "row_ror:12", "row_mirror",
        "row_half_mirror", "row_bcast:15", "row_bcast:31", "wave_shl:1", "wave_shr:1", "wave_rol:1", "wave_ror:1"]
DPP11 = ["quad_perm:[2,3,0,1]", "row_shl:1", "row_shr:15", "row_ror:7", "row_mirror", "row_half_mirror", "row_share:5",
         "row_xmask:3"]


@pytest.mark.parametrize("arch,ctrl", [("gfx942", c) for c in DPP9] + [("gfx1100", c) for c in DPP11]
                         + [("gfx1200", c) for c in ("row_xmask:9", "row_share:0", "row_ror:1")])
@pytest.mark.parametrize("bound", [False, True])
def test_dpp_moves(arch, ctrl, bound):
    """v_mov_b32_dpp: each lane reads its source lane; an out-of-range source leaves the lane
    unwritten, or writes 0 with bound_ctrl."""
    L = 64 if arch == "gfx942" else 32
    src, ok = _dpp_src(ctrl, L)
    out = run(arch, f"""
        v_mov_b32 v10, 7
        v_mov_b32_dpp v10, v1 {ctrl} row_mask:0xf bank_mask:0xf {'bound_ctrl:1' if bound else ''}
    """, ["v10"], [(1000 + np.arange(L)).astype(np.uint32)])
    assert np.array_equal(out["v10"], np.where(ok, 1000 + src, 0 if bound else 7)), ctrl


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_dpp_row_and_bank_masks_and_inactive_sources(arch):
    """row_mask / bank_mask gate only the destination write; a disabled source lane counts as out of
    range (0 with bound_ctrl, else no write) unless fi:1 (gfx10+) fetches it anyway."""
    L = 64 if arch == "gfx942" else 32
    lane = np.arange(L)
    exec_half = "s_mov_b32 exec_lo, 0x55555555\ns_mov_b32 exec_hi, 0x55555555" if L == 64 else \
        "s_mov_b32 exec_lo, 0x55555555"
    body = f"""
        v_mov_b32 v10, 7
        v_mov_b32 v11, 7
        v_mov_b32 v12, 7
        v_mov_b32 v13, 7
        v_mov_b32_dpp v10, v1 quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0x6
        {exec_half}
        v_mov_b32_dpp v11, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
        v_mov_b32_dpp v12, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
        {'v_mov_b32_dpp v13, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf fi:1' if L == 32 else ''}
    """
    out = run(arch, body, ["v10", "v11", "v12", "v13"], [(1000 + lane).astype(np.uint32)])
    rows_on = ((0x5 >> (lane >> 4)) & 1).astype(bool) & ((0x6 >> ((lane >> 2) & 3)) & 1).astype(bool)
    assert np.array_equal(out["v10"], np.where(rows_on, 1000 + lane, 7))
    even = lane % 2 == 0                       # active lanes read their odd (disabled) neighbour
    assert np.array_equal(out["v11"], np.full(L, 7))
    assert np.array_equal(out["v12"], np.where(even, 0, 7))
    if L == 32:
        assert np.array_equal(out["v13"], np.where(even, 1000 + (lane ^ 1), 7))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_dpp_on_vop2_and_vop3_applies_to_src0_only(arch):
    L = 64 if arch == "gfx942" else 32
    lane = np.arange(L)
    a, b = (lane * 3 + 1).astype(np.float32), (lane * 0.5).astype(np.float32)
    vop3 = "v_fma_f32_e64_dpp v11, v1, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1" if L == 32 else ""
    out = run(arch, f"""
        v_mov_b32 v10, 0
        v_mov_b32 v11, 0
        v_add_f32_dpp v10, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        {vop3}
    """, ["v10", "v11"], [a.view(np.uint32), b.view(np.uint32)])
    shifted = np.where(lane & 15, a[(lane - 1) % L], 0).astype(np.float32)
    eq_f32(out["v10"], shifted + b)
    if L == 32:
        eq_f32(out["v11"], (shifted.astype(np.float64) * b + b).astype(np.float32))


def test_sdwa_selects_and_destination_forms():
    """gfx9 SDWA: src*_sel picks a byte / word (sext() sign-extends it), dst_sel writes a byte /
    word with the rest of the register kept (UNUSED_PRESERVE), zeroed (UNUSED_PAD) or
    sign-extended (UNUSED_SEXT)."""
    arch = "gfx942"
    x = rand_u32(arch, 77)
    y = rand_u32(arch, 78)
    old = np.uint32(0xDEADBEEF)
    out = run(arch, """
        v_mov_b32 v10, 0xdeadbeef
        v_mov_b32_sdwa v10, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2
        v_mov_b32 v11, 0xdeadbeef
        v_mov_b32_sdwa v11, v1 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:WORD_1
        v_mov_b32_sdwa v12, v1 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:WORD_1
        v_add_u32_sdwa v13, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1
        v_add_u32_sdwa v14, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_1
        v_cvt_f32_f16_sdwa v15, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
    """, ["v10", "v11", "v12", "v13", "v14", "v15"], [x, y])
    b = lambda v, k: (v >> (8 * k)) & 0xFF            # noqa: E731
    w = lambda v, k: (v >> (16 * k)) & 0xFFFF         # noqa: E731
    sx = lambda v, bits: (v.astype(np.int64) ^ (1 << (bits - 1))) - (1 << (bits - 1))  # noqa: E731
    assert np.array_equal(out["v10"], (old & 0xFFFF) | (b(x, 2) << 16))
    assert np.array_equal(out["v11"], (w(x, 1) & 0xFF) << 8)
    assert np.array_equal(out["v12"], (sx(w(x, 1), 16) & 0xFFFFFFFF).astype(np.uint32))
    assert np.array_equal(out["v13"], ((sx(b(x, 0), 8) + w(y, 1)) & 0xFFFFFFFF).astype(np.uint32))
    assert np.array_equal(out["v14"], b(x, 3) + b(y, 1))
    eq_f32(out["v15"], w(x, 1).astype(np.uint16).view(np.float16).astype(np.float32))
