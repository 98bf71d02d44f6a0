"""Scalar ALU instructions on the emulator (SOP1, SOP2, SOPC, SOPK, the 64-bit forms, exec
save / restore, scalar float ops), one assembled microprogram per opcode, checked against the
ISA's formulas written here: results and SCC (SCC is read back with s_cselect_b32)."""

from __future__ import annotations

import numpy as np
import pytest
from _isa import run, tools  # noqa: F401

M32 = 0xFFFFFFFF
PAIRS = [(5, 3), (3, 5), (0xFFFFFFFF, 1), (0x80000000, 0x80000000), (0x7FFFFFFF, 1), (0, 0), (123456789, 0xFFFF0001),
         (0x12345678, 37)]


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def bfe(x, spec, signed):
    off, w = spec & 31, (spec >> 16) & 0x7F
    if w == 0:
        return 0
    v = (x >> off) & ((1 << w) - 1)
    if signed and w < 32 and v >> (w - 1):
        v -= 1 << w
    return v & M32


def f(bits_: int) -> float:
    return float(np.uint32(bits_).view(np.float32))


def b(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


# name -> (result(a, b, scc_in), scc(a, b, scc_in) or None when SCC is not written)
SOP2 = {
    "s_add_u32": (lambda a, c, s: (a + c) & M32, lambda a, c, s: int(a + c > M32)),
    "s_sub_u32": (lambda a, c, s: (a - c) & M32, lambda a, c, s: int(c > a)),
    "s_addc_u32": (lambda a, c, s: (a + c + s) & M32, lambda a, c, s: int(a + c + s > M32)),
    "s_subb_u32": (lambda a, c, s: (a - c - s) & M32, lambda a, c, s: int(c + s > a)),
    "s_add_i32": (lambda a, c, s: (a + c) & M32, lambda a, c, s: int(not -2**31 <= s32(a) + s32(c) < 2**31)),
    "s_sub_i32": (lambda a, c, s: (a - c) & M32, lambda a, c, s: int(not -2**31 <= s32(a) - s32(c) < 2**31)),
    "s_and_b32": (lambda a, c, s: a & c, lambda a, c, s: int(a & c != 0)),
    "s_or_b32": (lambda a, c, s: a | c, lambda a, c, s: int(a | c != 0)),
    "s_xor_b32": (lambda a, c, s: a ^ c, lambda a, c, s: int(a ^ c != 0)),
    "s_andn2_b32": (lambda a, c, s: a & ~c & M32, lambda a, c, s: int(a & ~c & M32 != 0)),
    "s_orn2_b32": (lambda a, c, s: (a | ~c) & M32, lambda a, c, s: int((a | ~c) & M32 != 0)),
    "s_nand_b32": (lambda a, c, s: ~(a & c) & M32, lambda a, c, s: int(~(a & c) & M32 != 0)),
    "s_nor_b32": (lambda a, c, s: ~(a | c) & M32, lambda a, c, s: int(~(a | c) & M32 != 0)),
    "s_xnor_b32": (lambda a, c, s: ~(a ^ c) & M32, lambda a, c, s: int(~(a ^ c) & M32 != 0)),
    "s_lshl_b32": (lambda a, c, s: (a << (c & 31)) & M32, lambda a, c, s: int((a << (c & 31)) & M32 != 0)),
    "s_lshr_b32": (lambda a, c, s: a >> (c & 31), lambda a, c, s: int(a >> (c & 31) != 0)),
    "s_ashr_i32": (lambda a, c, s: (s32(a) >> (c & 31)) & M32, lambda a, c, s: int(s32(a) >> (c & 31) != 0)),
    "s_mul_i32": (lambda a, c, s: (s32(a) * s32(c)) & M32, None),
    "s_mul_hi_u32": (lambda a, c, s: (a * c) >> 32, None),
    "s_mul_hi_i32": (lambda a, c, s: ((s32(a) * s32(c)) >> 32) & M32, None),
    "s_min_i32": (lambda a, c, s: a if s32(a) < s32(c) else c, lambda a, c, s: int(s32(a) < s32(c))),
    "s_max_i32": (lambda a, c, s: a if s32(a) > s32(c) else c, lambda a, c, s: int(s32(a) > s32(c))),
    "s_min_u32": (lambda a, c, s: min(a, c), lambda a, c, s: int(a < c)),
    "s_max_u32": (lambda a, c, s: max(a, c), lambda a, c, s: int(a > c)),
    "s_bfe_u32": (lambda a, c, s: bfe(a, c, False), lambda a, c, s: int(bfe(a, c, False) != 0)),
    "s_bfe_i32": (lambda a, c, s: bfe(a, c, True), lambda a, c, s: int(bfe(a, c, True) != 0)),
    "s_cselect_b32": (lambda a, c, s: a if s else c, None),
    "s_lshl1_add_u32": (lambda a, c, s: ((a << 1) + c) & M32, lambda a, c, s: int((a << 1) + c > M32)),
    "s_lshl2_add_u32": (lambda a, c, s: ((a << 2) + c) & M32, lambda a, c, s: int((a << 2) + c > M32)),
    "s_lshl3_add_u32": (lambda a, c, s: ((a << 3) + c) & M32, lambda a, c, s: int((a << 3) + c > M32)),
    "s_lshl4_add_u32": (lambda a, c, s: ((a << 4) + c) & M32, lambda a, c, s: int((a << 4) + c > M32)),
    "s_pack_ll_b32_b16": (lambda a, c, s: (a & 0xFFFF) | ((c & 0xFFFF) << 16), None),
    "s_pack_lh_b32_b16": (lambda a, c, s: (a & 0xFFFF) | (c & 0xFFFF0000), None),
    "s_pack_hh_b32_b16": (lambda a, c, s: (a >> 16) | (c & 0xFFFF0000), None),
    "s_absdiff_i32": (lambda a, c, s: abs(s32(a) - s32(c)) & M32, lambda a, c, s: int(abs(s32(a) - s32(c)) & M32 != 0)),
}
GFX12_RENAMES = {"s_add_u32": "s_add_co_u32", "s_sub_u32": "s_sub_co_u32", "s_addc_u32": "s_add_co_ci_u32",
                 "s_subb_u32": "s_sub_co_ci_u32", "s_add_i32": "s_add_co_i32", "s_sub_i32": "s_sub_co_i32",
                 "s_andn2_b32": "s_and_not1_b32", "s_orn2_b32": "s_or_not1_b32"}
SOP1 = {
    "s_mov_b32": (lambda a: a, None),
    "s_not_b32": (lambda a: ~a & M32, lambda a: int(~a & M32 != 0)),
    "s_abs_i32": (lambda a: abs(s32(a)) & M32, lambda a: int(abs(s32(a)) & M32 != 0)),
    "s_bcnt1_i32_b32": (lambda a: bin(a).count("1"), lambda a: int(a != 0)),
    "s_brev_b32": (lambda a: int(f"{a:032b}"[::-1], 2), None),
    "s_sext_i32_i16": (lambda a: s32((a & 0xFFFF) - (0x10000 if a & 0x8000 else 0)) & M32, None),
    "s_sext_i32_i8": (lambda a: ((a & 0xFF) - (0x100 if a & 0x80 else 0)) & M32, None),
    "s_ff1_i32_b32": (lambda a: ((a & -a).bit_length() - 1) & M32 if a else M32, None),
    "s_flbit_i32_b32": (lambda a: 32 - a.bit_length() if a else M32, None),
}
RENAMES1 = {"s_ff1_i32_b32": "s_ctz_i32_b32", "s_flbit_i32_b32": "s_clz_i32_u32"}


def _scc_probe(k: int) -> str:
    return f"s_cselect_b32 s{60 + k}, 1, 0"


@pytest.mark.parametrize("arch", ["gfx942", "gfx1200"])
@pytest.mark.parametrize("name", sorted(SOP2))
def test_sop2(name, arch):
    if name in ("s_absdiff_i32",) and arch != "gfx942":
        pytest.skip("s_absdiff_i32 is gfx9 only")
    if name.startswith("s_lshl") and name.endswith("_add_u32") and arch != "gfx942":
        pytest.skip("s_lshlN_add_u32 are gfx9 only")
    op = GFX12_RENAMES.get(name, name) if arch == "gfx1200" else name
    res_fn, scc_fn = SOP2[name]
    body, outs, want = [], [], []
    for k, (a, c) in enumerate(PAIRS):
        scc_in = k % 2
        body += [f"s_mov_b32 s4, {a}", f"s_mov_b32 s5, {c}", f"s_cmp_eq_u32 {scc_in}, 1", f"{op} s{10 + k}, s4, s5",
                 _scc_probe(k)]
        outs += [f"s{10 + k}", f"s{60 + k}"]
        want.append((res_fn(a, c, scc_in), scc_fn(a, c, scc_in) if scc_fn else scc_in))
    out = run(arch, "\n".join(body), outs)
    for k, (r, scc) in enumerate(want):
        assert int(out[f"s{10 + k}"][0]) == r, (name, PAIRS[k], hex(int(out[f"s{10 + k}"][0])), hex(r))
        assert int(out[f"s{60 + k}"][0]) == scc, (name, PAIRS[k], "scc")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1200"])
@pytest.mark.parametrize("name", sorted(SOP1))
def test_sop1(name, arch):
    op = RENAMES1.get(name, name) if arch == "gfx1200" else name
    res_fn, scc_fn = SOP1[name]
    body, outs = [], []
    for k, (a, _c) in enumerate(PAIRS):
        body += ["s_cmp_eq_u32 1, 1", f"s_mov_b32 s4, {a}", f"{op} s{10 + k}, s4", _scc_probe(k)]
        outs += [f"s{10 + k}", f"s{60 + k}"]
    out = run(arch, "\n".join(body), outs)
    for k, (a, _c) in enumerate(PAIRS):
        assert int(out[f"s{10 + k}"][0]) == res_fn(a), (name, hex(a))
        assert int(out[f"s{60 + k}"][0]) == (scc_fn(a) if scc_fn else 1)


CMP = {"eq": lambda a, c: a == c, "lg": lambda a, c: a != c, "gt": lambda a, c: a > c, "ge": lambda a, c: a >= c,
       "lt": lambda a, c: a < c, "le": lambda a, c: a <= c}


@pytest.mark.parametrize("arch", ["gfx942", "gfx1200"])
def test_sopc_compares(arch):
    body, outs, want = [], [], []
    k = 0
    for ty in ("u32", "i32"):
        for kind, fn in CMP.items():
            for a, c in PAIRS[:4]:
                body += [f"s_mov_b32 s4, {a}", f"s_mov_b32 s5, {c}", f"s_cmp_{kind}_{ty} s4, s5", _scc_probe(k)]
                outs.append(f"s{60 + k}")
                x, y = (s32(a), s32(c)) if ty == "i32" else (a, c)
                want.append(int(fn(x, y)))
                k += 1
                if k == 24:
                    out = run(arch, "\n".join(body), outs)
                    assert [int(out[o][0]) for o in outs] == want
                    body, outs, want, k = [], [], [], 0
    if body:
        out = run(arch, "\n".join(body), outs)
        assert [int(out[o][0]) for o in outs] == want


def test_s_cmp_u64():
    arch = "gfx942"
    out = run(arch, """
        s_mov_b32 s4, 7
        s_mov_b32 s5, 1
        s_mov_b32 s6, 7
        s_mov_b32 s7, 2
        s_cmp_eq_u64 s[4:5], s[6:7]
        s_cselect_b32 s60, 1, 0
        s_cmp_lg_u64 s[4:5], s[6:7]
        s_cselect_b32 s61, 1, 0
    """, ["s60", "s61"])
    assert int(out["s60"][0]) == 0 and int(out["s61"][0]) == 1


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_sopk(arch):
    out = run(arch, """
        s_movk_i32 s10, 0x8001
        s_mov_b32 s11, 0x7fffffff
        s_addk_i32 s11, 0x1
        s_cselect_b32 s60, 1, 0
        s_mov_b32 s12, 10
        s_addk_i32 s12, 0xfffe
        s_mov_b32 s13, 6
        s_mulk_i32 s13, 0xfffd
        s_mov_b32 s14, 5
        s_cmpk_gt_i32 s14, 0xffff
        s_cselect_b32 s61, 1, 0
        s_cmpk_lt_u32 s14, 0xffff
        s_cselect_b32 s62, 1, 0
        s_cmpk_eq_u32 s14, 5
        s_cselect_b32 s63, 1, 0
        s_mov_b32 s15, 1
        s_cmp_eq_u32 0, 0
        s_cmovk_i32 s15, 0x1234
    """, ["s10", "s11", "s60", "s12", "s13", "s61", "s62", "s63", "s15"])
    v = {k: int(x[0]) for k, x in out.items()}
    assert v["s10"] == 0xFFFF8001                     # sign-extended 16-bit immediate
    assert v["s11"] == 0x80000000 and v["s60"] == 1   # signed overflow sets SCC
    assert v["s12"] == 8 and v["s13"] == (-18) & M32
    assert v["s61"] == 1 and v["s62"] == 1 and v["s63"] == 1   # 5 > -1 signed; 5 < 0xffff unsigned
    assert v["s15"] == 0x1234


S64 = {
    "s_and_b64": lambda a, c: a & c, "s_or_b64": lambda a, c: a | c, "s_xor_b64": lambda a, c: a ^ c,
    "s_andn2_b64": lambda a, c: a & ~c, "s_orn2_b64": lambda a, c: a | ~c, "s_nand_b64": lambda a, c: ~(a & c),
    "s_nor_b64": lambda a, c: ~(a | c), "s_xnor_b64": lambda a, c: ~(a ^ c),
}


@pytest.mark.parametrize("name", sorted(S64))
def test_sop2_b64(name):
    a, c = 0x0123456789ABCDEF, 0xFFFF0000FFFF0000
    out = run("gfx942", f"""
        s_mov_b32 s4, {a & M32}
        s_mov_b32 s5, {a >> 32}
        s_mov_b32 s6, {c & M32}
        s_mov_b32 s7, {c >> 32}
        {name} s[10:11], s[4:5], s[6:7]
        s_cselect_b32 s60, 1, 0
    """, ["s10", "s11", "s60"])
    r = S64[name](a, c) & (2**64 - 1)
    assert int(out["s10"][0]) | (int(out["s11"][0]) << 32) == r
    assert int(out["s60"][0]) == int(r != 0)


def test_64bit_moves_shifts_and_counts():
    out = run("gfx942", """
        s_mov_b32 s4, 0x89abcdef
        s_mov_b32 s5, 0x80000001
        s_mov_b64 s[10:11], s[4:5]
        s_not_b64 s[12:13], s[4:5]
        s_lshl_b64 s[14:15], s[4:5], 36
        s_lshr_b64 s[16:17], s[4:5], 4
        s_ashr_i64 s[18:19], s[4:5], 60
        s_bcnt1_i32_b64 s20, s[4:5]
        s_cmp_eq_u32 0, 1
        s_cselect_b64 s[22:23], s[4:5], s[12:13]
        s_mov_b32 s24, 0xf0
        s_bitset1_b32 s24, 2
        s_bitset0_b32 s24, 4
    """, ["s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s22", "s23", "s24"])
    v = {k: int(x[0]) for k, x in out.items()}
    x = 0x8000000189ABCDEF
    p = lambda lo: v[f"s{lo}"] | (v[f"s{lo + 1}"] << 32)  # noqa: E731
    assert p(10) == x and p(12) == (~x) & (2**64 - 1)
    assert p(14) == (x << 36) & (2**64 - 1) and p(16) == x >> 4
    assert p(18) == ((x - 2**64) >> 60) & (2**64 - 1)
    assert v["s20"] == bin(x).count("1")
    assert p(22) == (~x) & (2**64 - 1)          # SCC 0 selects the second operand
    assert v["s24"] == (0xF0 | 4) & ~16


def test_gfx12_64bit_arith():
    out = run("gfx1200", """
        s_mov_b32 s4, 0xffffffff
        s_mov_b32 s5, 1
        s_mov_b32 s6, 3
        s_mov_b32 s7, 0
        s_add_nc_u64 s[10:11], s[4:5], s[6:7]
        s_sub_nc_u64 s[12:13], s[6:7], s[4:5]
        s_mul_u64 s[14:15], s[4:5], s[6:7]
    """, ["s10", "s11", "s12", "s13", "s14", "s15"])
    v = {k: int(x[0]) for k, x in out.items()}
    p = lambda lo: v[f"s{lo}"] | (v[f"s{lo + 1}"] << 32)  # noqa: E731
    x, y = 0x1FFFFFFFF, 3
    assert p(10) == x + y and p(12) == (y - x) & (2**64 - 1) and p(14) == (x * y) & (2**64 - 1)


SAVEEXEC = {"and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
            "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
            "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e)}


@pytest.mark.parametrize("kind", sorted(SAVEEXEC))
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_saveexec(kind, arch):
    """D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0 (read back after restoring exec)."""
    L = 64 if arch == "gfx942" else 32
    mask = (1 << L) - 1
    e0, src = 0xF0F0F0F0F0F0F0F0 & mask, 0xFF00FF00FF00FF00 & mask
    name = kind
    if arch != "gfx942":
        name = {"andn2": "and_not1", "orn2": "or_not1"}.get(kind, kind)
    if L == 64:
        body = f"""
            s_mov_b32 exec_lo, {e0 & M32}
            s_mov_b32 exec_hi, {e0 >> 32}
            s_mov_b32 s4, {src & M32}
            s_mov_b32 s5, {src >> 32}
            s_{name}_saveexec_b64 s[10:11], s[4:5]
            s_cselect_b32 s60, 1, 0
            s_mov_b32 s12, exec_lo
            s_mov_b32 s13, exec_hi
        """
        outs = ["s10", "s11", "s12", "s13", "s60"]
    else:
        body = f"""
            s_mov_b32 exec_lo, {e0}
            s_mov_b32 s4, {src}
            s_{name}_saveexec_b32 s10, s4
            s_cselect_b32 s60, 1, 0
            s_mov_b32 s12, exec_lo
        """
        outs = ["s10", "s12", "s60"]
    out = run(arch, body, outs)
    v = {k: int(x[0]) for k, x in out.items()}
    new = SAVEEXEC[kind](src, e0) & mask
    assert (v["s10"] | (v.get("s11", 0) << 32)) == e0
    assert (v["s12"] | (v.get("s13", 0) << 32)) == new
    assert v["s60"] == int(new != 0)


def test_not0_saveexec_gfx11():
    out = run("gfx1100", """
        s_mov_b32 exec_lo, 0xff00ff00
        s_mov_b32 s4, 0xf0f0f0f0
        s_and_not0_saveexec_b32 s10, s4
        s_mov_b32 s12, exec_lo
        s_mov_b32 exec_lo, 0xff00ff00
        s_or_not0_saveexec_b32 s11, s4
        s_mov_b32 s13, exec_lo
    """, ["s10", "s12", "s11", "s13"])
    v = {k: int(x[0]) for k, x in out.items()}
    assert v["s10"] == 0xFF00FF00 and v["s12"] == (~0xF0F0F0F0 & 0xFF00FF00) & M32
    assert v["s13"] == (~0xF0F0F0F0 | 0xFF00FF00) & M32


def test_scalar_float_ops_gfx12():
    out = run("gfx1200", f"""
        s_mov_b32 s4, {b(1.5)}
        s_mov_b32 s5, {b(-2.25)}
        s_mul_f32 s10, s4, s5
        s_add_f32 s11, s4, s5
        s_sub_f32 s12, s4, s5
        s_max_f32 s13, s4, s5
        s_min_f32 s14, s4, s5
        s_mov_b32 s6, 7
        s_cvt_f32_u32 s15, s6
        s_mov_b32 s7, -7
        s_cvt_f32_i32 s16, s7
        s_cvt_u32_f32 s17, s4
        s_cvt_i32_f32 s18, s5
        s_trunc_f32 s19, s5
        s_floor_f32 s20, s5
        s_ceil_f32 s21, s5
        s_mov_b32 s22, {b(10.0)}
        s_fmac_f32 s22, s4, s5
        s_fmamk_f32 s23, s4, {b(2.0)}, s5
        s_fmaak_f32 s24, s4, s5, {b(0.5)}
        s_cmp_lt_f32 s5, s4
        s_cselect_b32 s25, 1, 0
        s_cmp_nge_f32 s5, s4
        s_cselect_b32 s26, 1, 0
    """, [f"s{k}" for k in range(10, 27)])
    v = {k: int(x[0]) for k, x in out.items()}
    assert [f(v[f"s{k}"]) for k in (10, 11, 12, 13, 14, 15, 16)] == [-3.375, -0.75, 3.75, 1.5, -2.25, 7.0, -7.0]
    assert v["s17"] == 1 and v["s18"] == (-2) & M32
    assert [f(v[f"s{k}"]) for k in (19, 20, 21, 22, 23, 24)] == [-2.0, -3.0, -2.0, 10.0 - 3.375, 0.75, -2.875]
    assert v["s25"] == 1 and v["s26"] == 1


def test_s_getpc_b64_points_past_itself():
    """s_getpc_b64 gives the address of the next instruction: s_getpc then s_load of the code at
    that address reads the encoding of the instruction that follows."""
    out = run("gfx942", """
        s_getpc_b64 s[10:11]
        s_load_dword s12, s[10:11], 0x0
        s_waitcnt lgkmcnt(0)
    """, ["s12"])
    # the encoding of 's_load_dword s12, s[10:11], 0x0': SMEM op 0, sdata 12 << 6, sbase 10 / 2
    assert int(out["s12"][0]) == 0xC0020000 | (12 << 6) | 5


COVERS = set(SOP2) | set(SOP1) | set(GFX12_RENAMES.values()) | set(RENAMES1.values()) | set(S64) | {
    f"s_cmp_{k}_{t}" for k in CMP for t in ("u32", "i32")} | {
    "s_cmp_eq_u64", "s_cmp_lg_u64", "s_movk_i32", "s_addk_i32", "s_mulk_i32", "s_cmpk_gt_i32", "s_cmpk_lt_u32",
    "s_cmpk_eq_u32", "s_cmovk_i32", "s_mov_b64", "s_not_b64", "s_lshl_b64", "s_lshr_b64", "s_ashr_i64",
    "s_bcnt1_i32_b64", "s_cselect_b64", "s_bitset0_b32", "s_bitset1_b32", "s_add_nc_u64", "s_sub_nc_u64",
    "s_mul_u64", "s_and_not0_saveexec_b32", "s_or_not0_saveexec_b32", "s_mul_f32", "s_add_f32", "s_sub_f32",
    "s_max_f32", "s_min_f32", "s_cvt_f32_u32", "s_cvt_f32_i32", "s_cvt_u32_f32", "s_cvt_i32_f32", "s_trunc_f32",
    "s_floor_f32", "s_ceil_f32", "s_fmac_f32", "s_fmamk_f32", "s_fmaak_f32", "s_cmp_lt_f32", "s_cmp_nge_f32",
    "s_getpc_b64", "s_and_not1_saveexec_b32", "s_or_not1_saveexec_b32", "s_max_num_f32", "s_min_num_f32",
} | {f"s_{k}_saveexec_b64" for k in SAVEEXEC} | {f"s_{k}_saveexec_b32" for k in SAVEEXEC}


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_sopk_compares_every_kind(arch):
    """s_cmpk_<kind>_i32 sign-extends its 16-bit immediate, _u32 zero-extends it."""
    body, outs, want, k = [], [], [], 0
    for ty in ("i32", "u32"):
        for kind, fn in CMP.items():
            for reg, imm in ((5, 0xFFFF), (0xFFFFFFFF, 0xFFFF), (0x8000, 0x8000), (3, 7)):
                body += [f"s_mov_b32 s4, {reg:#x}", f"s_cmpk_{kind}_{ty} s4, {imm:#x}", _scc_probe(k)]
                outs.append(f"s{60 + k}")
                x, y = (s32(reg), s32(imm | (0xFFFF0000 if imm & 0x8000 else 0))) if ty == "i32" else (reg, imm)
                want.append(int(fn(x, y)))
                k += 1
        out = run(arch, "\n".join(body), outs)
        assert [int(out[o][0]) for o in outs] == want, ty
        body, outs, want, k = [], [], [], 0


def test_scalar_float_compares_gfx12():
    """s_cmp_<kind>_f32 / _f16 with NaN, signed zeros and infinities (the n* kinds are true on NaN)."""
    kinds = {"lt": lambda a, c: a < c, "eq": lambda a, c: a == c, "le": lambda a, c: a <= c, "gt": lambda a, c: a > c,
             "lg": lambda a, c: (a < c) | (a > c), "ge": lambda a, c: a >= c, "o": lambda a, c: ~(np.isnan(a) | np.isnan(c)),
             "u": lambda a, c: np.isnan(a) | np.isnan(c), "nge": lambda a, c: ~(a >= c),
             "nlg": lambda a, c: ~((a < c) | (a > c)), "ngt": lambda a, c: ~(a > c), "nle": lambda a, c: ~(a <= c),
             "neq": lambda a, c: ~(a == c), "nlt": lambda a, c: ~(a < c)}
    pairs = [(1.0, 2.0), (-0.0, 0.0), (np.nan, 1.0), (np.inf, -np.inf)]
    for ty, dt, ut in (("f32", np.float32, np.uint32), ("f16", np.float16, np.uint16)):
        for chunk in (list(kinds.items())[:5], list(kinds.items())[5:10], list(kinds.items())[10:]):
            body, outs, want, k = [], [], [], 0
            for kind, fn in chunk:
                for a, c in pairs:
                    ba, bc = (int(np.array([v], dt).view(ut)[0]) for v in (a, c))
                    body += [f"s_mov_b32 s4, {ba:#x}", f"s_mov_b32 s5, {bc:#x}", f"s_cmp_{kind}_{ty} s4, s5",
                             _scc_probe(k)]
                    outs.append(f"s{60 + k}")
                    with np.errstate(invalid="ignore"):
                        want.append(int(bool(fn(np.array(a, dt), np.array(c, dt)))))
                    k += 1
            out = run("gfx1200", "\n".join(body), outs)
            assert [int(out[o][0]) for o in outs] == want, (ty, [k for k, _ in chunk])


def test_not1_b64_gfx11():
    out = run("gfx1100", """
        s_mov_b64 s[4:5], 0xff00ff00
        s_mov_b32 s5, 0x0f0f0f0f
        s_mov_b64 s[6:7], -1
        s_mov_b32 s6, 0x00ff00ff
        s_and_not1_b64 s[10:11], s[4:5], s[6:7]
        s_or_not1_b64 s[12:13], s[4:5], s[6:7]
    """, ["s10", "s11", "s12", "s13"])
    v = {k: int(x[0]) for k, x in out.items()}
    a = 0x0F0F0F0F_FF00FF00
    c = 0xFFFFFFFF_00FF00FF
    M64 = (1 << 64) - 1
    assert v["s10"] | (v["s11"] << 32) == a & ~c & M64
    assert v["s12"] | (v["s13"] << 32) == (a | ~c) & M64


COVERS |= {f"s_cmpk_{k}_{t}" for k in CMP for t in ("i32", "u32")} | {
    f"s_cmp_{k}_{t}" for k in ("lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt")
    for t in ("f32", "f16")} | {"s_and_not1_b64", "s_or_not1_b64"}
