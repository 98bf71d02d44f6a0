"""Program control on the emulator: loops and every conditional branch, waves of one workgroup
taking different paths, s_endpgm in some waves only (the others' barrier still releases),
barriers that order LDS traffic between waves (gfx12's split barrier too), the pacing
instructions that are no-ops here, and the errors for what it does not run (unknown opcodes,
messages other than VGPR deallocation, running into s_code_end)."""

from __future__ import annotations

import numpy as np
import pytest
from _isa import tools  # noqa: F401

from _emu import gen, run_asm, wave_size
from pyhipattn.emulate.errors import EmulatorError, UnknownInstructionError

ARCHES = ["gfx942", "gfx1100", "gfx1200"]


def _n(arch: str) -> dict[str, str]:
    g = gen(arch)
    return {"add": "s_add_u32" if g < 12 else "s_add_co_u32", "vadd": "v_add_u32" if g == 9 else "v_add_nc_u32",
            "barrier": "s_barrier" if g < 12 else "s_barrier_signal -1\ns_barrier_wait -1",
            "lgkm": "s_waitcnt lgkmcnt(0)" if g < 12 else "s_wait_dscnt 0",
            "dsw": "ds_write_b32" if g == 9 else "ds_store_b32", "dsr": "ds_read_b32" if g == 9 else "ds_load_b32",
            "shift": str(int(np.log2(wave_size(arch))))}


def _wave_id(arch: str) -> str:
    return f"v_readfirstlane_b32 s10, v254\ns_lshr_b32 s10, s10, {_n(arch)['shift']}"


@pytest.mark.parametrize("arch", ARCHES)
def test_counted_loop(arch):
    n = _n(arch)
    out = run_asm(arch, f"""
        s_mov_b32 s10, 0
        s_mov_b32 s11, 0
    LOOP:
        {n['add']} s11, s11, s10
        {n['add']} s10, s10, 1
        s_cmp_lt_u32 s10, 10
        s_cbranch_scc1 LOOP
        v_mov_b32 v1, s11
        v_mov_b32 v2, s10
    """, ["v1", "v2"])
    assert (out["v1"] == 45).all() and (out["v2"] == 10).all()


@pytest.mark.parametrize("arch", ARCHES)
def test_every_conditional_branch(arch):
    """Each branch taken or not as its condition says: bits 2, 16 and 64 are the fall-throughs."""
    L = wave_size(arch)
    vcc0 = "s_mov_b64 vcc, 0" if L == 64 else "s_mov_b32 vcc_lo, 0"
    vcc1 = "s_mov_b64 vcc, 1" if L == 64 else "s_mov_b32 vcc_lo, 1"
    ex0 = "s_mov_b64 exec, 0" if L == 64 else "s_mov_b32 exec_lo, 0"
    exhi = "s_mov_b32 exec_lo, 0\ns_mov_b32 exec_hi, 1" if L == 64 else "s_mov_b32 exec_lo, 1"
    exall = "s_mov_b64 exec, -1" if L == 64 else "s_mov_b32 exec_lo, -1"
    out = run_asm(arch, f"""
        s_mov_b32 s20, 0
        {vcc0}
        s_cbranch_vccz T1
        s_or_b32 s20, s20, 1
    T1: {vcc1}
        s_cbranch_vccz T2
        s_or_b32 s20, s20, 2
    T2: s_cbranch_vccnz T3
        s_or_b32 s20, s20, 4
    T3: {ex0}
        s_cbranch_execz T4
        s_or_b32 s20, s20, 8
    T4: {exhi}
        s_cbranch_execz T5
        s_or_b32 s20, s20, 16
    T5: s_cbranch_execnz T6
        s_or_b32 s20, s20, 32
    T6: {exall}
        s_cmp_eq_u32 s20, s20
        s_cbranch_scc0 T7
        s_or_b32 s20, s20, 64
    T7: s_cmp_eq_u32 s20, s20
        s_cbranch_scc1 T8
        s_or_b32 s20, s20, 128
    T8: s_cmp_lg_u32 s20, s20
        s_cbranch_scc1 T9
        s_or_b32 s20, s20, 256
    T9: s_branch T10
        s_or_b32 s20, s20, 512
    T10:
        v_mov_b32 v1, s20
    """, ["v1"])
    assert (out["v1"] == 2 | 16 | 64 | 256).all(), hex(int(out["v1"][0]))


@pytest.mark.parametrize("arch", ARCHES)
def test_waves_of_one_workgroup_take_their_own_paths(arch):
    n, L = _n(arch), wave_size(arch)
    out = run_asm(arch, _wave_id(arch) + f"""
        s_and_b32 s11, s10, 1
        s_cbranch_scc0 EVEN
        v_mov_b32 v1, 111
        s_branch JOIN
    EVEN:
        v_mov_b32 v1, 222
    JOIN:
        s_cmp_eq_u32 s10, 2
        s_cbranch_scc1 SKIP
        {n['vadd']} v1, 1000, v1
    SKIP:
    """, ["v1"], threads=4 * L)
    want = np.array([(111 if w % 2 else 222) + (0 if w == 2 else 1000) for w in range(4)])
    assert np.array_equal(out["v1"], np.repeat(want[:, None], L, axis=1))


@pytest.mark.parametrize("arch", ARCHES)
def test_s_endpgm_in_some_waves_releases_the_others_barrier(arch):
    """Odd waves end while the even ones wait at a barrier (the even waves get there first: the
    emulator runs the lowest PC first); the barrier must let them go once the odd waves are gone.
    The odd waves never reach the epilogue, so their outputs stay 0."""
    n, L = _n(arch), wave_size(arch)
    out = run_asm(arch, _wave_id(arch) + f"""
        s_and_b32 s11, s10, 1
        s_cbranch_scc1 ODD
        v_mov_b32 v1, 7
        {n['barrier']}
        s_branch DONE
    ODD:
        s_endpgm
    DONE:
    """, ["v1"], threads=4 * L)
    want = np.array([0 if w % 2 else 7 for w in range(4)])
    assert np.array_equal(out["v1"], np.repeat(want[:, None], L, axis=1))


@pytest.mark.parametrize("arch", ARCHES)
def test_barrier_orders_lds_between_waves(arch):
    """Wave 0 writes its LDS slots late (after a loop, at a higher PC); waves 1-3 wait at the
    barrier and then read the next wave's slots, wave 3 reading wave 0's."""
    n, L = _n(arch), wave_size(arch)
    T = 4 * L
    out = run_asm(arch, _wave_id(arch) + f"""
        v_lshlrev_b32 v2, 2, v254
        {n['vadd']} v5, 5000, v254
        s_cmp_eq_u32 s10, 0
        s_cbranch_scc1 LATE
        {n['dsw']} v2, v5
    SYNC:
        {n['lgkm']}
        {n['barrier']}
        {n['vadd']} v3, {4 * L}, v2
        v_and_b32 v3, {4 * T - 1}, v3
        {n['dsr']} v1, v3
        {n['lgkm']}
        s_branch DONE
    LATE:
        s_mov_b32 s12, 20
    SPIN:
        s_sub_u32 s12, s12, 1
        s_cmp_lg_u32 s12, 0
        s_cbranch_scc1 SPIN
        {n['dsw']} v2, v5
        s_branch SYNC
    DONE:
    """, ["v1"], threads=T, lds=4 * T)
    tid = np.arange(T).reshape(4, L)
    assert np.array_equal(out["v1"], 5000 + (tid + L) % T)


NOPS = {
    "gfx942": ["s_nop 3", "s_waitcnt 0", "s_setprio 2", "s_sleep 1", "s_icache_inv", "s_dcache_inv", "s_dcache_wb",
               "s_ttracedata", "v_nop", "buffer_wbl2 sc1", "buffer_inv sc1", "s_barrier"],
    "gfx1100": ["s_nop 3", "s_waitcnt 0", "s_waitcnt_vscnt null, 0", "s_waitcnt_vmcnt null, 0",
                "s_waitcnt_lgkmcnt null, 0", "s_waitcnt_expcnt null, 0", "s_waitcnt_depctr 0xfffe", "s_wait_idle",
                "s_wait_event 0", "s_delay_alu instid0(VALU_DEP_1)", "s_clause 0x1", "s_setprio 2",
                "s_set_inst_prefetch_distance 0x1", "s_inst_prefetch 0x1", "s_sleep 1", "s_icache_inv",
                "s_dcache_inv", "s_ttracedata", "v_nop", "buffer_gl0_inv", "buffer_gl1_inv", "s_barrier",
                "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)"],
    "gfx1200": ["s_nop 3", "s_waitcnt_depctr 0xfffe", "s_wait_loadcnt 0", "s_wait_storecnt 0", "s_wait_dscnt 0",
                "s_wait_kmcnt 0", "s_wait_samplecnt 0", "s_wait_bvhcnt 0", "s_wait_expcnt 0", "s_wait_alu 0xfffe",
                "s_wait_idle", "s_wait_event 0", "s_wait_loadcnt_dscnt 0", "s_wait_storecnt_dscnt 0",
                "s_delay_alu instid0(VALU_DEP_1)", "s_clause 0x1", "s_setprio 2", "s_sleep 1", "s_icache_inv",
                "s_dcache_inv", "s_ttracedata", "v_nop", "global_inv scope:SCOPE_DEV", "global_wb scope:SCOPE_DEV",
                "global_wbinv scope:SCOPE_SYS", "s_barrier_signal -1", "s_barrier_wait -1",
                "s_prefetch_inst s[0:1], 0x0, null, 0", "s_prefetch_data s[0:1], 0x0, null, 0",
                "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)"],
}


@pytest.mark.parametrize("arch", ARCHES)
def test_pacing_instructions_change_nothing(arch):
    """Waits, nops, priorities, cache maintenance and prefetches between register writes: every
    value comes through.  (VGPR deallocation is a no-op here; on hardware it ends the program's
    use of VGPRs, so real code sends it right before s_endpgm.)"""
    n = _n(arch)
    body = [f"{n['vadd']} v1, 3, v254", "s_mov_b32 s20, 77"]
    for k, line in enumerate(NOPS[arch]):
        body += [line, f"{n['vadd']} v1, 1, v1"]
    out = run_asm(arch, "\n".join(body) + "\nv_mov_b32 v2, s20", ["v1", "v2"])
    L = wave_size(arch)
    assert np.array_equal(out["v1"], np.arange(L) + 3 + len(NOPS[arch])) and (out["v2"] == 77).all()


@pytest.mark.parametrize("arch,line,err,msg", [
    ("gfx942", "s_sendmsg sendmsg(MSG_INTERRUPT)", UnknownInstructionError, "message"),
    ("gfx1100", "s_sendmsg_rtn_b32 s4, sendmsg(MSG_RTN_GET_DOORBELL)", UnknownInstructionError,
     "s_sendmsg_rtn_b32"),
    ("gfx942", "v_sin_f32 v1, v2", UnknownInstructionError, "v_sin_f32.*not implemented"),
    ("gfx1100", "s_getreg_b32 s4, hwreg(HW_REG_MODE)", UnknownInstructionError, "s_getreg_b32"),
    ("gfx1100", "s_branch PAD\nPAD:\ns_code_end", EmulatorError, "s_code_end.*ran past its last instruction"),
])
def test_what_the_emulator_does_not_run_is_an_error(arch, line, err, msg):
    with pytest.raises(err, match=msg):
        run_asm(arch, line, ["v1"])


COVERS = {"s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz", "s_cbranch_execz",
          "s_cbranch_execnz", "s_endpgm", "s_barrier", "s_barrier_signal", "s_barrier_wait", "s_sendmsg",
          "s_code_end"} | {line.split()[0] for lines in NOPS.values() for line in lines}
