"""Memory instructions on the emulator: SMEM loads, FLAT / GLOBAL loads, stores and atomics,
MUBUF (buffer) loads and stores with range checks and direct-to-LDS loads.  The ``inp`` buffer
(s[92:93]) is the memory the microprograms read and write; results come back in registers.

Facts pinned here (issue 9): CDNA FLAT with SADDR off has no scalar base; gfx940+ atomics return
the old value under sc0 (glc on gfx11); out-of-range MUBUF lanes load 0 and raw-buffer range
checks include soffset; inactive lanes touch no memory."""

from __future__ import annotations

import numpy as np
import pytest
from _isa import run, tools  # noqa: F401

from _emu import run_asm

M32 = 0xFFFFFFFF


def pattern(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def test_s_load_widths_and_offsets():
    data = pattern(64)
    out = run_asm("gfx942", """
        s_load_dword s10, s[92:93], 0x8
        s_load_dwordx2 s[12:13], s[92:93], 0x10
        s_load_dwordx4 s[16:19], s[92:93], 0x20
        s_load_dwordx8 s[20:27], s[92:93], 0x40
        s_mov_b32 s4, 0x60
        s_load_dwordx16 s[28:43], s[92:93], s4
        s_waitcnt lgkmcnt(0)
    """, ["s10", "s12", "s13", "s19", "s27", "s28", "s43"], inp=data)
    v = {k: int(x[0]) for k, x in out.items()}
    assert v["s10"] == data[2] and (v["s12"], v["s13"]) == (data[4], data[5]) and v["s19"] == data[11]
    assert v["s27"] == data[23] and v["s28"] == data[24] and v["s43"] == data[39]


def test_s_load_gfx12_names():
    data = pattern(64, 2)
    out = run_asm("gfx1200", """
        s_load_b32 s10, s[92:93], 0x4
        s_load_b64 s[12:13], s[92:93], 0x8
        s_load_b128 s[16:19], s[92:93], 0x10
        s_load_b256 s[20:27], s[92:93], 0x20
        s_load_b512 s[28:43], s[92:93], null offset:0x40
        s_load_b96 s[44:46], s[92:93], 0x4
        s_wait_kmcnt 0
    """, ["s10", "s13", "s19", "s27", "s43", "s46"], inp=data)
    v = {k: int(x[0]) for k, x in out.items()}
    assert (v["s10"], v["s13"], v["s19"], v["s27"], v["s43"], v["s46"]) == \
        (data[1], data[3], data[7], data[15], data[31], data[3])


LOADS9 = {  # gfx942 global load -> (bytes, how the loaded value lands in the register)
    "global_load_ubyte": lambda w, old: w & 0xFF,
    "global_load_sbyte": lambda w, old: ((w & 0xFF) - ((w & 0x80) << 1)) & M32,
    "global_load_ushort": lambda w, old: w & 0xFFFF,
    "global_load_sshort": lambda w, old: ((w & 0xFFFF) - ((w & 0x8000) << 1)) & M32,
    "global_load_dword": lambda w, old: w,
    "global_load_short_d16": lambda w, old: (old & 0xFFFF0000) | (w & 0xFFFF),
    "global_load_short_d16_hi": lambda w, old: (old & 0xFFFF) | ((w & 0xFFFF) << 16),
    "global_load_ubyte_d16": lambda w, old: (old & 0xFFFF0000) | (w & 0xFF),
    "global_load_ubyte_d16_hi": lambda w, old: (old & 0xFFFF) | ((w & 0xFF) << 16),
}


@pytest.mark.parametrize("name", sorted(LOADS9))
def test_global_sub_dword_loads(name):
    """Zero / sign extension, and D16 loads keep the other half of the register."""
    data = pattern(128, 3)
    data[:8] = [0x80, 0xFF81, 0x12348000, 0x7F, 0xFFFFFFFF, 0, 0xABCD1234, 0x5A5A]
    out = run_asm("gfx942", f"""
        v_lshlrev_b32 v1, 2, v254
        v_mov_b32 v10, 0x13572468
        {name} v10, v1, s[92:93]
        flat_load_dword v11, v[2:3] offset:4
        s_waitcnt vmcnt(0)
    """.replace("flat_load_dword v11, v[2:3] offset:4", ""), ["v10"], inp=data)
    want = np.array([LOADS9[name](int(w), 0x13572468) for w in data[:64]], np.uint32)
    assert np.array_equal(out["v10"], want)


def test_global_load_widths_saddr_and_vaddr64():
    """global_load_dwordx2/3/4 with SADDR (32-bit VGPR offset) and with SADDR off (64-bit VGPR
    address, no scalar base), plus flat loads and signed instruction offsets."""
    data = pattern(512, 4)
    out = run_asm("gfx942", """
        v_lshlrev_b32 v1, 4, v254
        global_load_dwordx4 v[4:7], v1, s[92:93]
        global_load_dwordx3 v[8:10], v1, s[92:93] offset:16
        global_load_dwordx2 v[12:13], v1, s[92:93] offset:-0
        v_mov_b32 v15, s93
        v_add_co_u32 v14, vcc, s92, v1
        v_addc_co_u32 v15, vcc, 0, v15, vcc
        global_load_dword v16, v[14:15], off offset:12
        flat_load_dword v17, v[14:15] offset:8
        flat_load_dwordx2 v[18:19], v[14:15]
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v4", "v7", "v8", "v10", "v12", "v13", "v16", "v17", "v18", "v19"], inp=data)
    lane = np.arange(64)
    q = data.reshape(-1)
    assert np.array_equal(out["v4"], q[4 * lane]) and np.array_equal(out["v7"], q[4 * lane + 3])
    assert np.array_equal(out["v8"], q[4 * lane + 4]) and np.array_equal(out["v10"], q[4 * lane + 6])
    assert np.array_equal(out["v12"], q[4 * lane]) and np.array_equal(out["v13"], q[4 * lane + 1])
    assert np.array_equal(out["v16"], q[4 * lane + 3])
    assert np.array_equal(out["v17"], q[4 * lane + 2])
    assert np.array_equal(out["v18"], q[4 * lane]) and np.array_equal(out["v19"], q[4 * lane + 1])


def _readback(arch: str, n: int) -> str:
    ld = "global_load_dword" if arch.startswith("gfx9") else "global_load_b32"
    wait = "s_waitcnt vmcnt(0)" if arch in ("gfx942", "gfx950", "gfx1100") else "s_wait_loadcnt 0"
    return "\n".join([f"v_lshlrev_b32 v240, 2, v254"] + [f"{ld} v{200 + k}, v240, s[92:93] offset:{k * 256}"
                                                             for k in range(n)] + [wait])


def test_global_stores_all_widths_and_inactive_lanes():
    """Stores of every width; lanes with exec off store nothing."""
    arch = "gfx942"
    data = pattern(64 * 16, 5)
    out = run_asm(arch, """
        v_lshlrev_b32 v1, 2, v254
        v_mov_b32 v10, 0x11223344
        v_mov_b32 v11, 0x55667788
        v_mov_b32 v12, 0x99aabbcc
        v_mov_b32 v13, 0xddeeff00
        s_mov_b32 exec_lo, 0x0000ffff
        s_mov_b32 exec_hi, 0
        global_store_dword v1, v10, s[92:93]
        s_mov_b64 exec, -1
        global_store_byte v1, v11, s[92:93] offset:256
        global_store_short v1, v11, s[92:93] offset:512
        global_store_short_d16_hi v1, v11, s[92:93] offset:768
        global_store_byte_d16_hi v1, v12, s[92:93] offset:1024
        v_lshlrev_b32 v2, 4, v254
        global_store_dwordx4 v2, v[10:13], s[92:93] offset:1280
        s_waitcnt vmcnt(0)
    """ + "\n" + _readback(arch, 5) + """
        v_lshlrev_b32 v241, 4, v254
        global_load_dwordx4 v[220:223], v241, s[92:93] offset:1280
        global_load_dwordx3 v[224:226], v241, s[92:93] offset:1280
        s_waitcnt vmcnt(0)
        global_store_dwordx2 v241, v[220:221], s[92:93] offset:1280
        global_store_dwordx3 v241, v[224:226], s[92:93] offset:1280
    """, ["v200", "v201", "v202", "v203", "v204", "v220", "v223", "v226"], inp=data)
    lane = np.arange(64)
    d = data[:512].reshape(8, 64)
    assert np.array_equal(out["v200"], np.where(lane < 16, 0x11223344, d[0]))
    assert np.array_equal(out["v201"], (d[1] & 0xFFFFFF00) | 0x88)
    assert np.array_equal(out["v202"], (d[2] & 0xFFFF0000) | 0x7788)
    assert np.array_equal(out["v203"], (d[3] & 0xFFFF0000) | 0x5566)
    assert np.array_equal(out["v204"], (d[4] & 0xFFFFFF00) | 0xAA)
    assert (out["v220"] == 0x11223344).all() and (out["v223"] == 0xDDEEFF00).all() and (out["v226"] == 0x99AABBCC).all()


ATOMICS = {  # kind -> (gfx942 name, gfx11 name, update(old, data) with data the lane's value)
    "add": ("global_atomic_add", "global_atomic_add_u32", lambda o, d: (o + d) & M32),
    "sub": ("global_atomic_sub", "global_atomic_sub_u32", lambda o, d: (o - d) & M32),
    "swap": ("global_atomic_swap", "global_atomic_swap_b32", lambda o, d: d),
    "and": ("global_atomic_and", "global_atomic_and_b32", lambda o, d: o & d),
    "or": ("global_atomic_or", "global_atomic_or_b32", lambda o, d: o | d),
    "xor": ("global_atomic_xor", "global_atomic_xor_b32", lambda o, d: o ^ d),
    "smax": ("global_atomic_smax", "global_atomic_max_i32", lambda o, d: o if _s(o) >= _s(d) else d),
    "smin": ("global_atomic_smin", "global_atomic_min_i32", lambda o, d: o if _s(o) <= _s(d) else d),
    "umax": ("global_atomic_umax", "global_atomic_max_u32", lambda o, d: max(o, d)),
    "umin": ("global_atomic_umin", "global_atomic_min_u32", lambda o, d: min(o, d)),
    "inc": ("global_atomic_inc", "global_atomic_inc_u32", lambda o, d: 0 if o >= d else o + 1),
    "dec": ("global_atomic_dec", "global_atomic_dec_u32", lambda o, d: d if o == 0 or o > d else o - 1),
}


def _s(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


@pytest.mark.parametrize("kind", sorted(ATOMICS))
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_atomics_return_the_old_value_in_lane_order(kind, arch):
    """Every lane updates one word with its own value, lanes in order; the returning form (sc0 on
    gfx940+, glc on gfx11) gives each lane the value before its update."""
    L = 64 if arch == "gfx942" else 32
    name = ATOMICS[kind][0 if arch == "gfx942" else 1]
    ret = "sc0" if arch == "gfx942" else "glc"
    ld = "global_load_dword" if arch == "gfx942" else "global_load_b32"
    values = (np.arange(L, dtype=np.int64) * 0x01010101 + 0x7FFFFFF0) & M32
    data = np.zeros(2 * L, np.uint32)
    data[0] = 0x80000005
    data[L:] = values
    out = run_asm(arch, f"""
        v_lshlrev_b32 v1, 2, v254
        {ld} v2, v1, s[92:93] offset:{4 * L}
        s_waitcnt vmcnt(0)
        v_mov_b32 v3, 0
        {name} v10, v3, v2, s[92:93] {ret}
        s_waitcnt vmcnt(0)
        {ld} v11, v3, s[92:93]
        s_waitcnt vmcnt(0)
    """, ["v10", "v11"], inp=data)
    mem, olds = int(data[0]), []
    for d in values.tolist():
        olds.append(mem)
        mem = ATOMICS[kind][2](mem, d)
    assert out["v10"].tolist() == olds
    assert int(out["v11"][0]) == mem


def test_atomic_cmpswap_and_non_returning_forms():
    """cmpswap's data is {new, compare}: memory takes new when it equals compare; an atomic
    printed without a destination returns nothing (the register keeps its value)."""
    data = np.zeros(64, np.uint32)
    data[0], data[1] = 7, 100
    out = run_asm("gfx942", """
        v_mov_b32 v1, 0
        v_mov_b32 v6, 5
        v_mov_b32 v7, 7
        global_atomic_cmpswap v12, v1, v[6:7], s[92:93] sc0
        v_mov_b32 v2, 1
        v_mov_b32 v13, 0x1234
        global_atomic_add v1, v2, s[92:93] offset:4
        s_waitcnt vmcnt(0)
        global_load_dword v14, v1, s[92:93]
        global_load_dword v15, v1, s[92:93] offset:4
        s_waitcnt vmcnt(0)
    """, ["v12", "v13", "v14", "v15"], inp=data)
    assert int(out["v12"][0]) == 7 and (out["v12"][1:] == 5).all()   # lane 0 swaps 7 -> 5; the rest see 5
    assert int(out["v14"][0]) == 5 and (out["v13"] == 0x1234).all()
    assert int(out["v15"][0]) == 100 + 64


def test_flat_atomics():
    data = np.zeros(64, np.uint32)
    out = run_asm("gfx942", """
        v_mov_b32 v2, s92
        v_mov_b32 v3, s93
        v_mov_b32 v4, 3
        flat_atomic_add v10, v[2:3], v4 sc0
        flat_atomic_umax v11, v[2:3], v254 sc0
        flat_atomic_or v12, v[2:3], v4 sc0
        flat_atomic_swap v13, v[2:3], v4 offset:4 sc0
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v10", "v11", "v12", "v13"], inp=data)
    assert out["v10"].tolist() == [3 * k for k in range(64)]
    mem = 3 * 64
    assert (out["v11"] == mem).all()                 # every lane id is below 192: the max never moves
    assert int(out["v12"][0]) == mem and (out["v12"][1:] == (mem | 3)).all()   # lane 0 sees 192, then 195
    assert int(out["v13"][0]) == 0 and (out["v13"][1:] == 3).all()


# ---- MUBUF -------------------------------------------------------------------------------------------

def _rsrc(num_records: int, stride: int = 0) -> str:
    """V# in s[20:23]: base = the inp buffer, stride, num_records (gfx9 dword 3 flags 0x27000)."""
    return f"""
        s_mov_b32 s20, s92
        s_and_b32 s21, s93, 0xffff
        s_or_b32 s21, s21, {stride << 16}
        s_mov_b32 s22, {num_records}
        s_mov_b32 s23, 0x27000
    """


def test_buffer_load_store_offen_and_the_range_check_includes_soffset():
    """offen: address = base + vaddr + soffset + offset; a dword is loaded only when its whole
    range is below num_records, counting soffset; out-of-range lanes load 0 and store nothing."""
    data = pattern(256, 7)
    out = run_asm("gfx942", _rsrc(200) + """
        v_lshlrev_b32 v1, 2, v254
        s_mov_b32 s24, 16
        buffer_load_dword v10, v1, s[20:23], s24 offen
        buffer_load_dword v11, v1, s[20:23], 0 offen offset:8
        buffer_load_dwordx2 v[12:13], v1, s[20:23], 0 offen
        buffer_load_dwordx4 v[14:17], v1, s[20:23], s24 offen offset:4
        buffer_load_ushort v18, v1, s[20:23], 0 offen offset:2
        s_waitcnt vmcnt(0)
        v_mov_b32 v19, 0xabcdef01
        buffer_store_dword v19, v1, s[20:23], s24 offen offset:32
        s_waitcnt vmcnt(0)
        global_load_dword v20, v1, s[92:93] offset:48
        s_waitcnt vmcnt(0)
    """, ["v10", "v11", "v12", "v13", "v14", "v17", "v18", "v20"], inp=data)
    lane = np.arange(64)
    off = 4 * lane

    def word(byte_off):
        ok = byte_off + 4 <= 200
        return np.where(ok, data[np.minimum(byte_off // 4, 255)], 0)

    assert np.array_equal(out["v10"], word(off + 16))
    assert np.array_equal(out["v11"], word(off + 8))
    assert np.array_equal(out["v12"], word(off)) and np.array_equal(out["v13"], word(off + 4))
    assert np.array_equal(out["v14"], word(off + 20)) and np.array_equal(out["v17"], word(off + 32))
    half = np.where(off + 2 + 2 <= 200, data[off // 4] >> 16, 0)
    assert np.array_equal(out["v18"], half)
    stored = np.where(off + 48 + 4 <= 200, 0xABCDEF01, data[(off + 48) // 4 % 256])
    assert np.array_equal(out["v20"], stored)


def test_buffer_idxen_structured():
    data = pattern(256, 8)
    out = run_asm("gfx942", _rsrc(40, stride=16) + """
        buffer_load_dword v10, v254, s[20:23], 0 idxen offset:4
        s_waitcnt vmcnt(0)
    """, ["v10"], inp=data)
    lane = np.arange(64)
    assert np.array_equal(out["v10"], np.where(lane < 40, data[np.minimum(lane * 4 + 1, 255)], 0))


def test_buffer_load_lds_writes_lds_at_m0():
    """buffer_load_dword ... lds: each lane's dword goes to LDS at M0 + offset + lane * 4."""
    data = pattern(256, 9)
    out = run_asm("gfx942", _rsrc(1024) + """
        v_lshlrev_b32 v1, 2, v254
        s_mov_b32 m0, 128
        buffer_load_dword v1, s[20:23], 0 offen lds
        s_waitcnt vmcnt(0)
        v_lshlrev_b32 v2, 2, v254
        ds_read_b32 v10, v2 offset:128
        s_waitcnt lgkmcnt(0)
    """, ["v10"], inp=data, lds=1024)
    assert np.array_equal(out["v10"], data[:64])


def test_buffer_sub_dword_and_wide_forms():
    data = pattern(256, 10)
    out = run_asm("gfx942", _rsrc(1024) + """
        v_lshlrev_b32 v1, 4, v254
        buffer_load_dwordx3 v[10:12], v1, s[20:23], 0 offen
        buffer_load_ubyte v13, v1, s[20:23], 0 offen
        buffer_load_sbyte v14, v1, s[20:23], 0 offen offset:3
        buffer_load_sshort v15, v1, s[20:23], 0 offen offset:2
        v_mov_b32 v16, 0x11112222
        buffer_load_short_d16 v16, v1, s[20:23], 0 offen
        v_mov_b32 v17, 0x11112222
        buffer_load_short_d16_hi v17, v1, s[20:23], 0 offen
        v_mov_b32 v18, 0x11112222
        buffer_load_ubyte_d16 v18, v1, s[20:23], 0 offen
        v_mov_b32 v19, 0x11112222
        buffer_load_ubyte_d16_hi v19, v1, s[20:23], 0 offen
        s_waitcnt vmcnt(0)
        v_mov_b32 v20, 0xa1b2c3d4
        buffer_store_byte v20, v1, s[20:23], 0 offen offset:8
        buffer_store_short v20, v1, s[20:23], 0 offen offset:4
        buffer_store_short_d16_hi v20, v1, s[20:23], 0 offen offset:12
        buffer_store_byte_d16_hi v20, v1, s[20:23], 0 offen offset:0
        v_mov_b32 v21, v20
        v_mov_b32 v22, v20
        v_mov_b32 v23, v20
        buffer_store_dwordx2 v[20:21], v1, s[20:23], 0 offen offset:512
        buffer_store_dwordx3 v[20:22], v1, s[20:23], 0 offen offset:1024
        buffer_store_dwordx4 v[20:23], v1, s[20:23], 0 offen offset:1536
        s_waitcnt vmcnt(0)
        buffer_load_dwordx4 v[24:27], v1, s[20:23], 0 offen
        s_waitcnt vmcnt(0)
    """, ["v10", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v24", "v25", "v26", "v27"], inp=data)
    q = data.reshape(-1, 4)[:64]
    s8 = lambda x: (x - ((x & 0x80) << 1)) & M32  # noqa: E731
    s16 = lambda x: (x - ((x & 0x8000) << 1)) & M32  # noqa: E731
    assert np.array_equal(out["v10"], q[:, 0]) and np.array_equal(out["v12"], q[:, 2])
    assert np.array_equal(out["v13"], q[:, 0] & 0xFF) and np.array_equal(out["v14"], s8(q[:, 0] >> 24))
    assert np.array_equal(out["v15"], s16(q[:, 0] >> 16))
    assert np.array_equal(out["v16"], 0x11110000 | (q[:, 0] & 0xFFFF))
    assert np.array_equal(out["v17"], 0x2222 | ((q[:, 0] & 0xFFFF) << 16))
    assert np.array_equal(out["v18"], 0x11110000 | (q[:, 0] & 0xFF))
    assert np.array_equal(out["v19"], 0x2222 | ((q[:, 0] & 0xFF) << 16))
    h = slice(0, 32)     # lanes 32+ are overwritten by the wide stores at +512 .. +1536 of lanes 0-31
    assert np.array_equal(out["v24"][h], (q[h, 0] & 0xFFFFFF00) | 0xB2)          # byte_d16_hi: bits 16-23
    assert np.array_equal(out["v25"][h], (q[h, 1] & 0xFFFF0000) | 0xC3D4)
    assert np.array_equal(out["v26"][h], (q[h, 2] & 0xFFFFFF00) | 0xD4)
    assert np.array_equal(out["v27"][h], (q[h, 3] & 0xFFFF0000) | 0xA1B2)
    assert (out["v24"][32:] == 0xA1B2C3D4).all()


def test_flat_and_global_store_aliases_gfx11():
    arch = "gfx1100"
    data = pattern(1024, 11)
    out = run_asm(arch, """
        v_lshlrev_b32 v1, 4, v254
        v_mov_b32 v10, 0x01020304
        v_mov_b32 v11, 0x05060708
        v_mov_b32 v12, 0x090a0b0c
        v_mov_b32 v13, 0x0d0e0f10
        global_store_b128 v1, v[10:13], s[92:93]
        global_store_b64 v1, v[10:11], s[92:93] offset:512
        global_store_b96 v1, v[10:12], s[92:93] offset:1024
        global_store_b16 v1, v13, s[92:93] offset:1536
        global_store_b8 v1, v13, s[92:93] offset:1540
        global_store_d16_hi_b16 v1, v13, s[92:93] offset:1544
        v_mov_b32 v2, s92
        v_mov_b32 v3, s93
        v_add_co_u32 v2, vcc_lo, v2, v1
        v_add_co_ci_u32_e32 v3, vcc_lo, 0, v3, vcc_lo
        flat_store_b32 v[2:3], v10 offset:12
        flat_store_b16 v[2:3], v11 offset:8
        flat_store_d16_hi_b16 v[2:3], v11 offset:4
        s_waitcnt vmcnt(0)
        global_load_b128 v[20:23], v1, s[92:93]
        global_load_b96 v[24:26], v1, s[92:93] offset:1024
        global_load_b64 v[28:29], v1, s[92:93] offset:1536
        flat_load_b32 v30, v[2:3] offset:512
        flat_load_u16 v31, v[2:3] offset:514
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v20", "v21", "v22", "v23", "v24", "v26", "v28", "v29", "v30", "v31"], inp=data)
    q = data.reshape(-1, 4)
    assert (out["v20"] == 0x01020304).all() and (out["v23"] == 0x01020304).all()      # flat_store_b32 at +12
    assert (out["v21"] == 0x05060506).all()          # flat d16_hi store at +4 over the b128 store's 0x05060708
    assert (out["v22"] == 0x090A0708).all()          # flat b16 store at +8 over 0x090a0b0c
    assert (out["v24"] == 0x01020304).all() and (out["v26"] == 0x090A0B0C).all()
    lane = np.arange(32)
    assert np.array_equal(out["v28"], (q[96 + lane, 0] & 0xFFFF0000) | 0x0F10)        # b16 at +1536
    assert np.array_equal(out["v29"], (q[96 + lane, 1] & 0xFFFFFF00) | 0x10)          # b8 at +1540
    assert (out["v30"] == 0x01020304).all() and (out["v31"] == 0x0102).all()


COVERS = set(LOADS9) | {
    "s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8", "s_load_dwordx16", "s_load_b32",
    "s_load_b64", "s_load_b128", "s_load_b256", "s_load_b512", "s_load_b96", "s_load_dwordx3",
    "global_load_dwordx2", "global_load_dwordx3", "global_load_dwordx4", "flat_load_dword", "flat_load_dwordx2",
    "global_store_dword", "global_store_byte", "global_store_short", "global_store_short_d16_hi",
    "global_store_byte_d16_hi", "global_store_dwordx4", "global_store_dwordx2", "global_store_dwordx3",
    "global_atomic_cmpswap", "flat_atomic_add", "flat_atomic_umax", "flat_atomic_or", "flat_atomic_swap",
    "buffer_load_dword", "buffer_load_dwordx2", "buffer_load_dwordx3", "buffer_load_dwordx4", "buffer_load_ushort",
    "buffer_load_ubyte", "buffer_load_sbyte", "buffer_load_sshort", "buffer_load_short_d16",
    "buffer_load_short_d16_hi", "buffer_load_ubyte_d16", "buffer_load_ubyte_d16_hi", "buffer_store_dword",
    "buffer_store_byte", "buffer_store_short", "buffer_store_short_d16_hi", "buffer_store_byte_d16_hi",
    "buffer_store_dwordx2", "buffer_store_dwordx3", "buffer_store_dwordx4", "global_store_b128", "global_store_b64",
    "global_store_b96", "global_store_b16", "global_store_b8", "global_store_d16_hi_b16", "flat_store_b32",
    "flat_store_b16", "flat_store_d16_hi_b16", "global_load_b128", "global_load_b96", "global_load_b64",
    "flat_load_b32", "flat_load_u16",
} | {v[0] for v in ATOMICS.values()} | {v[1] for v in ATOMICS.values()}


# ---- flat forms and gfx11 names of what the global tests cover -------------------------------------

def _flat_base(arch: str, shift: int = 2) -> str:
    """v[2:3] = inp + (lane << shift)."""
    carry = "v_add_co_u32 v2, vcc, v2, v1\nv_addc_co_u32 v3, vcc, 0, v3, vcc" if arch == "gfx942" else \
        "v_add_co_u32 v2, vcc_lo, v2, v1\nv_add_co_ci_u32_e32 v3, vcc_lo, 0, v3, vcc_lo"
    return f"v_lshlrev_b32 v1, {shift}, v254\nv_mov_b32 v2, s92\nv_mov_b32 v3, s93\n{carry}"


@pytest.mark.parametrize("name", sorted(LOADS9))
def test_flat_sub_dword_loads(name):
    data = pattern(128, 13)
    data[:8] = [0x80, 0xFF81, 0x12348000, 0x7F, 0xFFFFFFFF, 0, 0xABCD1234, 0x5A5A]
    flat = name.replace("global_", "flat_")
    out = run_asm("gfx942", _flat_base("gfx942") + f"""
        v_mov_b32 v10, 0x13572468
        {flat} v10, v[2:3]
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v10"], inp=data)
    assert np.array_equal(out["v10"], np.array([LOADS9[name](int(w), 0x13572468) for w in data[:64]], np.uint32))


GFX11_LOADS = {"global_load_b32": "global_load_dword", "global_load_u8": "global_load_ubyte",
               "global_load_i8": "global_load_sbyte", "global_load_u16": "global_load_ushort",
               "global_load_i16": "global_load_sshort", "global_load_d16_b16": "global_load_short_d16",
               "global_load_d16_hi_b16": "global_load_short_d16_hi", "global_load_d16_u8": "global_load_ubyte_d16",
               "global_load_d16_hi_u8": "global_load_ubyte_d16_hi"}


@pytest.mark.parametrize("name", sorted(GFX11_LOADS))
def test_gfx11_global_load_names(name):
    data = pattern(64, 14)
    data[:4] = [0x80, 0xFF81, 0x12348000, 0x7F]
    out = run_asm("gfx1100", f"""
        v_lshlrev_b32 v1, 2, v254
        v_mov_b32 v10, 0x13572468
        {name} v10, v1, s[92:93]
        s_waitcnt vmcnt(0)
    """, ["v10"], inp=data)
    fn = LOADS9[GFX11_LOADS[name]]
    assert np.array_equal(out["v10"], np.array([fn(int(w), 0x13572468) for w in data[:32]], np.uint32))


@pytest.mark.parametrize("name", sorted(GFX11_LOADS))
def test_gfx11_flat_load_names(name):
    data = pattern(64, 15)
    data[:4] = [0x80, 0xFF81, 0x12348000, 0x7F]
    flat = name.replace("global_", "flat_")
    out = run_asm("gfx1100", _flat_base("gfx1100") + f"""
        v_mov_b32 v10, 0x13572468
        {flat} v10, v[2:3]
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v10"], inp=data)
    fn = LOADS9[GFX11_LOADS[name]]
    assert np.array_equal(out["v10"], np.array([fn(int(w), 0x13572468) for w in data[:32]], np.uint32))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_flat_stores_and_wide_loads(arch):
    """Each lane owns 32 bytes: stores of every width at their offsets, read back with wide loads."""
    n9 = arch == "gfx942"
    st = {"b8": "flat_store_byte" if n9 else "flat_store_b8", "b16": "flat_store_short" if n9 else "flat_store_b16",
          "b32": "flat_store_dword" if n9 else "flat_store_b32", "b64": "flat_store_dwordx2" if n9 else "flat_store_b64",
          "b96": "flat_store_dwordx3" if n9 else "flat_store_b96", "b128": "flat_store_dwordx4" if n9 else "flat_store_b128",
          "hi16": "flat_store_short_d16_hi" if n9 else "flat_store_d16_hi_b16",
          "hi8": "flat_store_byte_d16_hi" if n9 else "flat_store_d16_hi_b8"}
    ld = {"b128": "flat_load_dwordx4" if n9 else "flat_load_b128", "b96": "flat_load_dwordx3" if n9 else "flat_load_b96",
          "b64": "flat_load_dwordx2" if n9 else "flat_load_b64"}
    L = 64 if n9 else 32
    out = run_asm(arch, _flat_base(arch, 5) + f"""
        v_mov_b32 v10, 0x01020304
        v_mov_b32 v11, 0x05060708
        v_mov_b32 v12, 0x090a0b0c
        v_mov_b32 v13, 0x0d0e0f10
        {st['b128']} v[2:3], v[10:13]
        v_mov_b32 v14, v11
        v_mov_b32 v15, v12
        v_mov_b32 v16, v13
        {st['b96']} v[2:3], v[14:16] offset:16
        {st['b64']} v[2:3], v[12:13] offset:24
        {st['b32']} v[2:3], v13 offset:4
        {st['b16']} v[2:3], v10 offset:8
        {st['b8']} v[2:3], v11 offset:10
        {st['hi16']} v[2:3], v12 offset:12
        {st['hi8']} v[2:3], v13 offset:15
        s_waitcnt vmcnt(0) lgkmcnt(0)
        {ld['b128']} v[20:23], v[2:3]
        {ld['b96']} v[24:26], v[2:3] offset:16
        {ld['b64']} v[28:29], v[2:3] offset:24
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, [f"v{r}" for r in (20, 21, 22, 23, 24, 25, 26, 28, 29)], inp=np.zeros(8 * L, np.uint32))
    got = [int(out[f"v{r}"][3]) for r in (20, 21, 22, 23, 24, 25, 26, 28, 29)]
    # word 2: b16 0x0304 at 8, b8 0x08 at 10, byte 11 from the b128 (0x09); word 3: d16_hi 0x090a at 12,
    # byte 14 from the b128 (0x0e), d16_hi b8 (bits 23:16 of 0x0d0e0f10 = 0x0e) at 15
    assert got == [0x01020304, 0x0D0E0F10, 0x09080304, 0x0E0E090A, 0x05060708, 0x090A0B0C, 0x090A0B0C, 0x090A0B0C,
                   0x0D0E0F10]


@pytest.mark.parametrize("kind", sorted(ATOMICS))
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_flat_atomics_every_kind(kind, arch):
    L = 64 if arch == "gfx942" else 32
    name = ATOMICS[kind][0 if arch == "gfx942" else 1].replace("global_", "flat_")
    ret = "sc0" if arch == "gfx942" else "glc"
    values = (np.arange(L, dtype=np.int64) * 0x01010101 + 0x7FFFFFF0) & M32
    data = np.zeros(2 * L, np.uint32)
    data[0] = 0x80000005
    data[L:] = values
    ld = "flat_load_dword" if arch == "gfx942" else "flat_load_b32"
    out = run_asm(arch, _flat_base(arch) + f"""
        {ld} v4, v[2:3] offset:{4 * L}
        s_waitcnt vmcnt(0) lgkmcnt(0)
        v_mov_b32 v2, s92
        v_mov_b32 v3, s93
        {name} v10, v[2:3], v4 {ret}
        s_waitcnt vmcnt(0) lgkmcnt(0)
        {ld} v11, v[2:3]
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v10", "v11"], inp=data)
    mem, olds = int(data[0]), []
    for d in values.tolist():
        olds.append(mem)
        mem = ATOMICS[kind][2](mem, d)
    assert out["v10"].tolist() == olds and int(out["v11"][0]) == mem


@pytest.mark.parametrize("arch,name", [("gfx942", "flat_atomic_cmpswap"), ("gfx1100", "flat_atomic_cmpswap_b32"),
                                       ("gfx1100", "global_atomic_cmpswap_b32")])
def test_cmpswap_flat_and_gfx11(arch, name):
    data = np.zeros(64, np.uint32)
    data[0] = 7
    ret = "sc0" if arch == "gfx942" else "glc"
    addr = "v[2:3]" if name.startswith("flat") else "v1, "
    body = ("v_mov_b32 v2, s92\nv_mov_b32 v3, s93\n" if name.startswith("flat") else "v_mov_b32 v1, 0\n")
    tail = "" if name.startswith("flat") else " s[92:93]"
    out = run_asm(arch, body + f"""
        v_mov_b32 v6, 5
        v_mov_b32 v7, 7
        {name} v12, {addr.rstrip(', ')}, v[6:7]{',' + tail if tail else ''} {ret}
        s_waitcnt vmcnt(0) lgkmcnt(0)
    """, ["v12"], inp=data)
    assert int(out["v12"][0]) == 7 and (out["v12"][1:] == 5).all()


def test_gfx11_global_store_b32():
    out = run_asm("gfx1100", """
        v_lshlrev_b32 v1, 2, v254
        v_add_nc_u32 v2, 100, v254
        global_store_b32 v1, v2, s[92:93]
        v_mov_b32 v3, 0x00ab0000
        global_store_d16_hi_b8 v1, v3, s[92:93] offset:2
        s_waitcnt vmcnt(0)
        global_load_b32 v10, v1, s[92:93]
        s_waitcnt vmcnt(0)
    """, ["v10"], inp=np.zeros(32, np.uint32))
    assert np.array_equal(out["v10"], (100 + np.arange(32)) | 0xAB0000)


COVERS |= {n.replace("global_", "flat_") for n in LOADS9} | set(GFX11_LOADS) | {
    n.replace("global_", "flat_") for n in GFX11_LOADS} | {
    "flat_store_byte", "flat_store_short", "flat_store_dword", "flat_store_dwordx2", "flat_store_dwordx3",
    "flat_store_dwordx4", "flat_store_short_d16_hi", "flat_store_byte_d16_hi", "flat_load_dwordx4",
    "flat_load_dwordx3", "flat_load_dwordx2", "flat_store_b8", "flat_store_b16", "flat_store_b32", "flat_store_b64",
    "flat_store_b96", "flat_store_b128", "flat_store_d16_hi_b16", "flat_store_d16_hi_b8", "flat_load_b128",
    "flat_load_b96", "flat_load_b64", "flat_atomic_cmpswap", "flat_atomic_cmpswap_b32", "global_atomic_cmpswap_b32",
    "global_store_b32", "global_load_b32", "global_store_d16_hi_b8"} | {v[0].replace("global_", "flat_") for v in ATOMICS.values()} | {
    v[1].replace("global_", "flat_") for v in ATOMICS.values()}
