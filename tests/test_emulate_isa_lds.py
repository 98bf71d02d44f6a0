"""LDS (DS) instructions on the emulator: reads and writes of every width, read2 / write2 and
their stride-64 forms, D16 halves, inactive lanes, the lane permutes and swizzles, and gfx950's
transposing load.  Facts pinned (issue 9): D16 LDS loads keep the other half of the register
(``_hi`` writes the high half); LDS loads on inactive lanes do not touch memory (an address far
out of range on an inactive lane is harmless); DS lane permutes wrap the lane index."""

from __future__ import annotations

import numpy as np
import pytest
from _isa import tools  # noqa: F401

from _emu import run_asm

M32 = 0xFFFFFFFF


def pat(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _fill_lds(arch: str) -> str:
    """LDS bytes [0, 1024) = inp words 0..255 (each lane copies 16-byte pieces)."""
    cdna = arch.startswith("gfx9")
    L = 64 if cdna else 32
    ld = "global_load_dwordx4" if cdna else "global_load_b128"
    wait = "s_waitcnt vmcnt(0)" if arch != "gfx1200" else "s_wait_loadcnt 0"
    st = "ds_write_b128" if cdna else "ds_store_b128"
    lines = ["v_lshlrev_b32 v240, 4, v254"]
    for k in range(1024 // (16 * L)):
        off = k * 16 * L
        lines += [f"{ld} v[244:247], v240, s[92:93] offset:{off}", wait, f"{st} v240, v[244:247] offset:{off}"]
    lines.append("s_waitcnt lgkmcnt(0)" if arch != "gfx1200" else "s_wait_dscnt 0")
    return "\n".join(lines)


def _bytes(data: np.ndarray) -> np.ndarray:
    return data.view(np.uint8)


def _word_at(b: np.ndarray, off) -> np.ndarray:
    off = np.asarray(off)
    return (b[off].astype(np.uint32) | (b[off + 1].astype(np.uint32) << 8) | (b[off + 2].astype(np.uint32) << 16)
            | (b[off + 3].astype(np.uint32) << 24))


def test_ds_reads_of_every_width_gfx9():
    arch = "gfx942"
    data = pat(256, 1)
    out = run_asm(arch, _fill_lds(arch) + """
        v_lshlrev_b32 v1, 2, v254
        ds_read_b32 v10, v1 offset:4
        ds_read_b64 v[12:13], v1 offset:8
        ds_read_b96 v[16:18], v1
        ds_read_b128 v[20:23], v1 offset:16
        ds_read_u8 v24, v1 offset:1
        ds_read_i8 v25, v1 offset:3
        ds_read_u16 v26, v1 offset:2
        ds_read_i16 v27, v1 offset:2
        v_mov_b32 v28, 0x11112222
        ds_read_u16_d16 v28, v1
        v_mov_b32 v29, 0x11112222
        ds_read_u16_d16_hi v29, v1
        v_mov_b32 v30, 0x11112222
        ds_read_u8_d16 v30, v1
        v_mov_b32 v31, 0x11112222
        ds_read_u8_d16_hi v31, v1
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v12", "v13", "v16", "v18", "v20", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"],
        inp=data, lds=1024)
    w = data
    lane = np.arange(64)
    assert np.array_equal(out["v10"], w[lane + 1])
    assert np.array_equal(out["v12"], w[lane + 2]) and np.array_equal(out["v13"], w[lane + 3])
    assert np.array_equal(out["v16"], w[lane]) and np.array_equal(out["v18"], w[lane + 2])
    assert np.array_equal(out["v20"], w[lane + 4]) and np.array_equal(out["v23"], w[lane + 7])
    s8 = lambda x: (x - ((x & 0x80) << 1)) & M32  # noqa: E731
    s16 = lambda x: (x - ((x & 0x8000) << 1)) & M32  # noqa: E731
    assert np.array_equal(out["v24"], (w[lane] >> 8) & 0xFF) and np.array_equal(out["v25"], s8(w[lane] >> 24))
    assert np.array_equal(out["v26"], w[lane] >> 16) and np.array_equal(out["v27"], s16(w[lane] >> 16))
    assert np.array_equal(out["v28"], 0x11110000 | (w[lane] & 0xFFFF))          # D16 keeps the high half
    assert np.array_equal(out["v29"], 0x2222 | ((w[lane] & 0xFFFF) << 16))      # _hi keeps the low half
    assert np.array_equal(out["v30"], 0x11110000 | (w[lane] & 0xFF))
    assert np.array_equal(out["v31"], 0x2222 | ((w[lane] & 0xFF) << 16))


def test_ds_read2_forms_scale_their_offsets():
    arch = "gfx942"
    data = pat(2048, 2)
    out = run_asm(arch, """
        v_lshlrev_b32 v240, 4, v254
        global_load_dwordx4 v[244:247], v240, s[92:93]
        s_waitcnt vmcnt(0)
        ds_write_b128 v240, v[244:247]
        v_lshlrev_b32 v1, 2, v254
        ds_read2_b32 v[10:11], v1 offset0:1 offset1:5
        ds_read2_b64 v[12:15], v1 offset0:2 offset1:9
        ds_read2st64_b32 v[16:17], v1 offset1:2
        ds_read2st64_b64 v[18:21], v1 offset1:1
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11", "v12", "v13", "v14", "v16", "v17", "v18", "v20"], inp=data, lds=4096)
    w = data[:1024]
    lane = np.arange(64)
    assert np.array_equal(out["v10"], w[lane + 1]) and np.array_equal(out["v11"], w[lane + 5])
    assert np.array_equal(out["v12"], w[lane + 4]) and np.array_equal(out["v13"], w[lane + 5])  # 8-byte units
    assert np.array_equal(out["v14"], w[lane + 18])
    assert np.array_equal(out["v16"], w[lane]) and np.array_equal(out["v17"], w[lane + 128])     # 64 dwords units
    assert np.array_equal(out["v18"], w[lane]) and np.array_equal(out["v20"], w[lane + 128])     # 64 qwords units


def test_ds_writes_of_every_width_and_write2():
    arch = "gfx942"
    out = run_asm(arch, """
        v_lshlrev_b32 v1, 5, v254
        v_mov_b32 v2, 0x11223344
        v_mov_b32 v3, 0x55667788
        v_mov_b32 v4, 0x99aabbcc
        v_mov_b32 v5, 0xddeeff00
        v_mov_b32 v6, 0
        ds_write_b128 v1, v[2:5]
        ds_write_b32 v1, v6 offset:16
        ds_write_b32 v1, v6 offset:20
        ds_write_b32 v1, v6 offset:24
        ds_write_b32 v1, v6 offset:28
        ds_write_b8 v1, v2 offset:16
        ds_write_b16 v1, v3 offset:18
        ds_write_b16_d16_hi v1, v4 offset:20
        ds_write_b8_d16_hi v1, v5 offset:23
        ds_write_b64 v1, v[2:3] offset:24
        ds_write_b96 v1, v[2:4] offset:4
        ds_write2_b32 v1, v5, v2 offset0:0 offset1:1
        s_waitcnt lgkmcnt(0)
        ds_read_b128 v[10:13], v1
        ds_read_b128 v[14:17], v1 offset:16
        v_lshlrev_b32 v7, 3, v254
        ds_write2_b64 v7, v[2:3], v[4:5] offset0:128 offset1:200
        ds_write2st64_b32 v7, v2, v3 offset0:20 offset1:21
        ds_write2st64_b64 v7, v[2:3], v[4:5] offset0:12 offset1:13
        s_waitcnt lgkmcnt(0)
        ds_read_b64 v[18:19], v7 offset:1024
        ds_read_b64 v[20:21], v7 offset:1600
        ds_read_b32 v22, v7 offset:5120
        ds_read_b32 v23, v7 offset:5376
        ds_read_b64 v[24:25], v7 offset:6144
        ds_read_b64 v[26:27], v7 offset:6656
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24",
          "v26", "v27"], lds=8192)
    v = {k: int(x[5]) for k, x in out.items()}
    assert (v["v10"], v["v11"], v["v12"], v["v13"]) == (0xDDEEFF00, 0x11223344, 0x55667788, 0x99AABBCC)
    assert v["v14"] == (0x7788 << 16) | 0x44                  # b8 at 16, b16 at 18
    assert v["v15"] == (0xEE << 24) | 0x99AA                  # d16_hi b16 at 20, d16_hi b8 (bits 23:16) at 23
    assert (v["v16"], v["v17"]) == (0x11223344, 0x55667788)
    assert (v["v18"], v["v19"], v["v20"], v["v21"]) == (0x11223344, 0x55667788, 0x99AABBCC, 0xDDEEFF00)
    assert (v["v22"], v["v23"]) == (0x11223344, 0x55667788)
    assert (v["v24"], v["v26"], v["v27"]) == (0x11223344, 0x99AABBCC, 0xDDEEFF00)


def test_inactive_lanes_do_not_touch_lds():
    """An inactive lane's address may be anywhere: it is never used (no fault, nothing written)."""
    arch = "gfx942"
    out = run_asm(arch, """
        v_lshlrev_b32 v1, 2, v254
        v_mov_b32 v2, 0x7777
        ds_write_b32 v1, v2
        s_waitcnt lgkmcnt(0)
        v_cmp_gt_u32_e32 vcc, 8, v254
        v_mov_b32 v3, 0x7fff0000
        v_cndmask_b32_e32 v3, v3, v1, vcc
        s_and_saveexec_b64 s[4:5], vcc
        v_mov_b32 v4, 0x1234
        ds_write_b32 v3, v4
        v_mov_b32 v10, 0
        ds_read_b32 v10, v3
        s_waitcnt lgkmcnt(0)
        s_or_b64 exec, exec, s[4:5]
        ds_read_b32 v11, v1
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11"], lds=256)
    lane = np.arange(64)
    assert np.array_equal(out["v10"], np.where(lane < 8, 0x1234, 0))
    assert np.array_equal(out["v11"], np.where(lane < 8, 0x1234, 0x7777))


def test_lds_accesses_past_the_end_read_zero_and_write_nothing():
    arch = "gfx942"
    out = run_asm(arch, """
        v_mov_b32 v1, 252
        v_mov_b32 v2, 0xabcd
        ds_write_b32 v1, v2
        ds_write_b32 v1, v2 offset:4
        ds_read_b32 v10, v1
        ds_read_b32 v11, v1 offset:4
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11"], lds=256)
    assert (out["v10"] == 0xABCD).all() and (out["v11"] == 0).all()


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_ds_bpermute_and_permute_wrap_the_lane_index(arch):
    L = 64 if arch == "gfx942" else 32
    data = pat(L, 3)
    ld = "global_load_dword" if arch == "gfx942" else "global_load_b32"
    out = run_asm(arch, f"""
        v_lshlrev_b32 v1, 2, v254
        {ld} v2, v1, s[92:93]
        s_waitcnt vmcnt(0)
        v_mul_lo_u32 v3, v254, 12
        ds_bpermute_b32 v10, v3, v2
        ds_bpermute_b32 v11, v3, v2 offset:8
        ds_permute_b32 v12, v3, v2
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11", "v12"], inp=data)
    lane = np.arange(L)
    src = (lane * 3) % L
    assert np.array_equal(out["v10"], data[src])                         # lane l reads lane 3l mod L
    assert np.array_equal(out["v11"], data[(lane * 3 + 2) % L])
    want = np.zeros(L, np.uint32)
    for l in lane:                                                       # lane l writes lane 3l mod L; later wins
        want[(3 * l) % L] = data[l]
    assert np.array_equal(out["v12"], want)


def test_ds_bpermute_gives_zero_from_an_inactive_lane():
    arch = "gfx942"
    out = run_asm(arch, """
        v_add_u32 v2, 100, v254
        v_xor_b32 v3, 1, v254
        v_lshlrev_b32 v3, 2, v3
        v_mov_b32 v10, 7
        s_mov_b32 exec_lo, 0x55555555
        s_mov_b32 exec_hi, 0xffffffff
        ds_bpermute_b32 v10, v3, v2
        s_waitcnt lgkmcnt(0)
    """, ["v10"])
    lane = np.arange(64)
    src = lane ^ 1
    src_on = (src >= 32) | (src % 2 == 0)
    me_on = (lane >= 32) | (lane % 2 == 0)
    assert np.array_equal(out["v10"], np.where(me_on, np.where(src_on, 100 + src, 0), 7))


@pytest.mark.parametrize("offset,src", [
    ("swizzle(SWAP,16)", lambda l: l ^ 16), ("swizzle(REVERSE,8)", lambda l: l ^ 7),
    ("swizzle(BROADCAST,4,1)", lambda l: (l & ~3) | 1), ("swizzle(QUAD_PERM,3,2,1,0)", lambda l: (l & ~3) | (3 - (l & 3))),
    ('swizzle(BITMASK_PERM,"01pip")', lambda l: (l & ~31) | ((l & 0b00111) ^ 0b00010) | 0b01000),   # p/i keep, i flips
    ("0x041f", lambda l: l ^ 1),
])
def test_ds_swizzle(offset, src):
    arch = "gfx942"
    out = run_asm(arch, f"""
        v_add_u32 v2, 1000, v254
        ds_swizzle_b32 v10, v2 offset:{offset}
        s_waitcnt lgkmcnt(0)
    """, ["v10"])
    lane = np.arange(64)
    want = 1000 + np.array([(l & ~31) | (src(l) & 31) for l in lane])
    assert np.array_equal(out["v10"], want), offset


def test_ds_read_b64_tr_b16_gfx950():
    """Each 16-lane block's loads (lane 4r + c reads 4 b16 elements of row r, columns 4c..4c+3)
    come back transposed: lane i holds column i, rows 0..3 (its element e is element i % 4 of
    lane 4e + i // 4)."""
    arch = "gfx950"
    vals = np.arange(1024, dtype=np.uint32) | ((np.arange(1024, dtype=np.uint32) + 5000) << 16)
    out = run_asm(arch, _fill_lds(arch) + """
        v_lshlrev_b32 v1, 3, v254
        ds_read_b64_tr_b16 v[10:11], v1
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v11"], inp=vals[:256], lds=1024)
    halves = vals[:256].view(np.uint16)                 # LDS as b16 elements
    lane = np.arange(64)
    loaded = halves[(lane * 4)[:, None] + np.arange(4)]     # (lane, element) as loaded
    blk, i = lane // 16, lane % 16
    res = np.stack([loaded[16 * blk + 4 * e + i // 4, i % 4] for e in range(4)], axis=1)
    want10 = res[:, 0].astype(np.uint32) | (res[:, 1].astype(np.uint32) << 16)
    want11 = res[:, 2].astype(np.uint32) | (res[:, 3].astype(np.uint32) << 16)
    assert np.array_equal(out["v10"], want10) and np.array_equal(out["v11"], want11)


def test_ds_gfx11_names():
    arch = "gfx1100"
    data = pat(256, 4)
    out = run_asm(arch, _fill_lds(arch) + """
        v_lshlrev_b32 v1, 2, v254
        ds_load_b32 v10, v1
        ds_load_b64 v[12:13], v1
        ds_load_b96 v[14:16], v1
        ds_load_u16 v17, v1
        ds_load_u8 v18, v1
        ds_load_i8 v52, v1 offset:3
        v_mov_b32 v53, 0x11112222
        ds_load_u8_d16_hi v53, v1
        v_mov_b32 v54, 0x11112222
        ds_load_u8_d16 v54, v1
        ds_load_i16 v19, v1
        v_mov_b32 v20, 0x11112222
        ds_load_u16_d16 v20, v1
        v_mov_b32 v21, 0x11112222
        ds_load_u16_d16_hi v21, v1
        ds_load_2addr_b32 v[22:23], v1 offset0:1 offset1:2
        ds_load_2addr_b64 v[24:27], v1 offset1:1
        ds_load_2addr_stride64_b32 v[28:29], v1 offset1:1
        ds_load_2addr_stride64_b64 v[30:33], v1 offset1:1
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v2, 0xfeedface
        v_mov_b32 v3, 0x01020304
        v_mov_b32 v4, 0x0a0b0c0d
        v_lshlrev_b32 v5, 5, v254
        ds_store_b96 v5, v[2:4] offset:1024
        ds_store_b64 v5, v[3:4] offset:1032
        ds_store_b32 v5, v4 offset:1028
        ds_store_b16 v5, v2 offset:1040
        ds_store_b8 v5, v4 offset:1042
        ds_store_b16_d16_hi v5, v2 offset:1044
        ds_store_b8_d16_hi v5, v3 offset:1043
        v_add_nc_u32 v7, 1048, v5
        ds_store_2addr_b32 v7, v2, v3 offset0:0 offset1:1
        s_waitcnt lgkmcnt(0)
        ds_load_b128 v[34:37], v5 offset:1024
        ds_load_b128 v[38:41], v5 offset:1040
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v6, 4, v254
        ds_store_2addr_b64 v6, v[2:3], v[3:4] offset0:0 offset1:1
        ds_store_2addr_stride64_b32 v6, v4, v2 offset0:1 offset1:2
        ds_store_2addr_stride64_b64 v6, v[3:4], v[2:3] offset0:2 offset1:3
        s_waitcnt lgkmcnt(0)
        ds_load_b128 v[42:45], v6
        ds_load_b32 v46, v6 offset:256
        ds_load_b32 v47, v6 offset:512
        ds_load_b64 v[48:49], v6 offset:1024
        ds_load_b64 v[50:51], v6 offset:1536
        s_waitcnt lgkmcnt(0)
    """, ["v10", "v12", "v14", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v26", "v28", "v29",
          "v30", "v32"] + [f"v{r}" for r in range(34, 55)], inp=data, lds=2048)
    w, lane = data, np.arange(32)
    assert np.array_equal(out["v10"], w[lane]) and np.array_equal(out["v12"], w[lane])
    assert np.array_equal(out["v16"], w[lane + 2]) and np.array_equal(out["v17"], w[lane] & 0xFFFF)
    assert np.array_equal(out["v18"], w[lane] & 0xFF)
    assert np.array_equal(out["v52"], ((w[lane] >> 24) - ((w[lane] >> 24 & 0x80) << 1)) & M32)
    assert np.array_equal(out["v53"], 0x2222 | ((w[lane] & 0xFF) << 16))
    assert np.array_equal(out["v54"], 0x11110000 | (w[lane] & 0xFF))
    assert np.array_equal(out["v19"], ((w[lane] & 0xFFFF) - ((w[lane] & 0x8000) << 1)) & M32)
    assert np.array_equal(out["v20"], 0x11110000 | (w[lane] & 0xFFFF))
    assert np.array_equal(out["v21"], 0x2222 | ((w[lane] & 0xFFFF) << 16))
    assert np.array_equal(out["v22"], w[lane + 1]) and np.array_equal(out["v23"], w[lane + 2])
    assert np.array_equal(out["v24"], w[lane]) and np.array_equal(out["v26"], w[lane + 2])
    assert np.array_equal(out["v28"], w[lane]) and np.array_equal(out["v29"], w[lane + 64])
    assert np.array_equal(out["v30"], w[lane]) and np.array_equal(out["v32"], w[lane + 128])
    a, b, c = 0xFEEDFACE, 0x01020304, 0x0A0B0C0D
    got = lambda r0, n: tuple(int(out[f"v{r}"][7]) for r in range(r0, r0 + n))     # noqa: E731
    # 1024: b96 (a,b,c) then b64 (b,c) at +8 and b32 c at +4 -> a, c, b, c
    assert got(34, 4) == (a, c, b, c)
    # 1040: b16 a.lo, b8 c.lo at +2, b8_d16_hi b.bits23:16 at +3; 1044: b16_d16_hi a.hi; 1048/1052: write2 a, b
    assert got(38, 1)[0] == (0x02 << 24) | (0x0D << 16) | 0xFACE
    assert got(39, 1)[0] & 0xFFFF == 0xFEED and got(40, 2) == (a, b)
    assert got(42, 4) == (a, b, b, c)                                   # 2addr_b64 at 0 and 8
    assert got(46, 2) == (c, a)                                         # stride64 b32 at 256, 512
    assert got(48, 2) == (b, c) and got(50, 2) == (a, b)                # stride64 b64 at 1024, 1536


COVERS = {
    "ds_read_b32", "ds_read_b64", "ds_read_b96", "ds_read_b128", "ds_read_u8", "ds_read_i8", "ds_read_u16",
    "ds_read_i16", "ds_read_u16_d16", "ds_read_u16_d16_hi", "ds_read_u8_d16", "ds_read_u8_d16_hi", "ds_read2_b32",
    "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64", "ds_write_b128", "ds_write_b32", "ds_write_b8",
    "ds_write_b16", "ds_write_b16_d16_hi", "ds_write_b8_d16_hi", "ds_write_b64", "ds_write_b96", "ds_write2_b32",
    "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64", "ds_bpermute_b32", "ds_permute_b32",
    "ds_swizzle_b32", "ds_read_b64_tr_b16", "ds_load_b32", "ds_load_b64", "ds_load_b96", "ds_load_b128",
    "ds_load_u16", "ds_load_u8", "ds_load_i16", "ds_load_u16_d16", "ds_load_u16_d16_hi", "ds_load_2addr_b32",
    "ds_load_2addr_b64", "ds_load_2addr_stride64_b32", "ds_load_2addr_stride64_b64", "ds_store_b32", "ds_store_b64",
    "ds_store_b96", "ds_store_b128", "ds_store_b16", "ds_store_b8", "ds_store_b16_d16_hi", "ds_store_2addr_b32",
    "ds_store_2addr_b64", "ds_store_2addr_stride64_b32", "ds_store_2addr_stride64_b64", "ds_store_b8_d16_hi",
    "ds_load_i8", "ds_load_u8_d16", "ds_load_u8_d16_hi",
}
