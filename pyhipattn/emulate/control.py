"""Program control: branches, s_endpgm, barriers, and the instructions that only pace the
hardware (waits, nops, priorities, cache invalidations and write-backs), which are no-ops for
an emulator whose loads and stores complete at once.

Branch targets come from the encoding: ``pc + 4 + 4 * simm16``.
"""

from __future__ import annotations

import numpy as np

from .isa import U32, Step, op, simm16
from .operands import EXEC, VCC

NOPS = ("s_nop", "s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_expcnt",
        "s_waitcnt_depctr", "s_wait_loadcnt", "s_wait_storecnt", "s_wait_dscnt", "s_wait_kmcnt",
        "s_wait_samplecnt", "s_wait_bvhcnt", "s_wait_expcnt", "s_wait_alu", "s_wait_idle", "s_wait_event",
        "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt", "s_delay_alu", "s_clause", "s_setprio",
        "s_set_inst_prefetch_distance", "s_inst_prefetch", "s_sleep", "s_icache_inv", "s_dcache_inv",
        "s_dcache_wb", "s_ttracedata", "v_nop", "buffer_wbl2", "buffer_inv", "buffer_gl0_inv", "buffer_gl1_inv",
        "global_inv", "global_wb", "global_wbinv", "s_barrier_signal", "s_prefetch_inst", "s_prefetch_data")


def _nop(inst, ctx):
    return Step(inst, None, kind="op")


for _n in NOPS:
    op(_n)(_nop)


@op("s_sendmsg")
def _sendmsg(inst, ctx):
    """Only the messages a compute kernel sends are accepted: dealloc VGPRs (a no-op here)."""
    text = " ".join(inst.operands)
    if "DEALLOC_VGPRS" not in text and "MSG_DEALLOC" not in text:
        from .errors import UnknownInstructionError

        raise UnknownInstructionError(f"message {text!r}")
    return Step(inst, None)


@op("s_endpgm")
def _endpgm(inst, ctx):
    return Step(inst, None, kind="end")


@op("s_code_end")
def _code_end(inst, ctx):
    """The padding after a kernel's code: compiles (objects end with it) but executing it means
    the program ran past its end."""
    def run(m):
        from .errors import EmulatorError

        raise EmulatorError(f"executed s_code_end (padding after the code) at pc {inst.pc:#x}: the program ran "
                            "past its last instruction")
    return Step(inst, run)


@op("s_barrier", "s_barrier_wait")
def _barrier(inst, ctx):
    # gfx12's split barrier: s_barrier_signal is a no-op and s_barrier_wait waits for every wave of
    # the workgroup to arrive at a wait (stronger than the hardware; equal for well-formed code).
    return Step(inst, None, kind="barrier")


def _branch(cond):
    def build(inst, ctx):
        target = inst.pc + 4 + 4 * simm16(inst)
        return Step(inst, None, kind="branch", target=target, cond=cond(ctx))
    return build


def _exec_zero(m):
    z = m.S[:, EXEC] == 0
    return z & (m.S[:, EXEC + 1] == 0) if m.L == 64 else z


def _vcc_zero(m):
    z = m.S[:, VCC] == 0
    return z & (m.S[:, VCC + 1] == 0) if m.L == 64 else z


op("s_branch")(_branch(lambda ctx: None))
op("s_cbranch_scc0")(_branch(lambda ctx: lambda m: ~m.scc))
op("s_cbranch_scc1")(_branch(lambda ctx: lambda m: m.scc.copy()))
op("s_cbranch_execz")(_branch(lambda ctx: _exec_zero))
op("s_cbranch_execnz")(_branch(lambda ctx: lambda m: ~_exec_zero(m)))
op("s_cbranch_vccz")(_branch(lambda ctx: _vcc_zero))
op("s_cbranch_vccnz")(_branch(lambda ctx: lambda m: ~_vcc_zero(m)))
_ = (np, U32)
