"""Run a kernel launch: set up every wave's initial state, then step the program.

Workgroups run in batches (``PYHIPATTN_EMULATE_BATCH`` waves at most, default 256); the waves
of a batch advance together, one instruction at a time, and every wave sitting at the same PC
executes that instruction in one vectorised step.  Scheduling: while all runnable waves share
a PC they run as one; after a divergent branch, the group at the lowest PC runs first (so
loops and joins re-converge); ``s_barrier`` holds a wave until every live wave of its
workgroup has arrived.  Batches run one after another, so a kernel that spins waiting for a
workgroup of a later batch never finishes: each launch has an instruction budget
(``PYHIPATTN_EMULATE_MAX_STEPS``, default 50 M steps) and a clear EmulatorTimeout past it.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from dataclasses import dataclass

import numpy as np

from ..codeobj.model import CodeObject
from . import control, lds, matrix, salu, valu, vmem  # noqa: F401  (they fill the opcode table)
from .decoder import disassemble
from .errors import EmulatorError, EmulatorTimeout
from .isa import ArchCtx, Step, compile_instruction
from .loader import USER_SGPRS, KernelDescriptor, LoadedImage
from .memory import Regions, regions
from .operands import TTMP
from .state import Machine

VGPRS, AGPRS_CDNA = 256, 256
_NEVER = np.int64(2**62)      # the PC of a wave that cannot run (finished, or at a barrier)
_U32 = np.uint32


class Program:
    """A loaded AMD code object: its image in host memory, decoded instructions, compiled Steps."""

    def __init__(self, co: CodeObject) -> None:
        self.co = co
        self.loaded = LoadedImage(co)
        self.code = disassemble(co.image, co.arch)
        self.steps: dict[int, Step] = {}
        self._lock = threading.Lock()
        # the image lives in host memory at an aligned address, readable by s_load (s_getpc + offset)
        self.buffer = np.zeros(len(self.loaded.image) + 4096, np.uint8)
        shift = (-self.buffer.ctypes.data) % 4096
        self.base = self.buffer.ctypes.data + shift
        self.buffer[shift:shift + len(self.loaded.image)] = np.frombuffer(bytes(self.loaded.image), np.uint8)
        regions.add(self.base, len(self.loaded.image), f"code object {co.source}")

    def step(self, pc: int, ctx: ArchCtx) -> Step:
        s = self.steps.get(pc)
        if s is None:
            inst = self.code.get(pc)
            if inst is None:
                raise EmulatorError(f"{self.co.source}: execution reached 0x{pc:x}, where no instruction was decoded")
            s = compile_instruction(inst, ctx)
            with self._lock:
                self.steps[pc] = s
        return s

    def release(self) -> None:
        regions.remove(self.base)


_programs: dict[str, Program] = {}
_programs_lock = threading.Lock()


def program(co: CodeObject) -> Program:
    import hashlib

    key = hashlib.sha256(co.image).hexdigest() + co.arch
    p = _programs.get(key)
    if p is None:
        with _programs_lock:
            p = _programs.get(key)
            if p is None:
                p = _programs[key] = Program(co)
    return p


@dataclass
class LaunchStats:
    steps: int = 0               # vectorised steps (instructions issued for a group of waves)
    wave_instructions: int = 0   # instructions executed summed over waves
    waves: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.wave_instructions / self.seconds if self.seconds else 0.0


last_stats = threading.local()
#: ``trace(m, pc, step)``, called after every executed step when set (debugging, tests)
trace = None

# ---- kernarg segment and dispatch packet ----------------------------------------------------------

_HIDDEN_U32 = {"hidden_block_count_x": 0, "hidden_block_count_y": 1, "hidden_block_count_z": 2}
_HIDDEN_U16 = {"hidden_group_size_x": 0, "hidden_group_size_y": 1, "hidden_group_size_z": 2}


def kernarg_segment(co: CodeObject, kernel: str, explicit: bytes, grid, block, shared_mem: int) -> bytes:
    """The whole kernarg segment: the explicit bytes, then the code-object-v5 hidden arguments
    the HIP runtime fills (block counts, group sizes, remainders 0, grid dims, dynamic LDS size)."""
    info = co.kernels[kernel]
    size = max(info.kernarg_size, len(explicit))
    buf = bytearray(size)
    buf[:len(explicit)] = explicit
    dims = 3 if grid[2] > 1 or block[2] > 1 else 2 if grid[1] > 1 or block[1] > 1 else 1
    for a in info.args:
        if not a.hidden:
            continue
        if a.kind in _HIDDEN_U32:
            struct.pack_into("<I", buf, a.offset, grid[_HIDDEN_U32[a.kind]])
        elif a.kind in _HIDDEN_U16:
            struct.pack_into("<H", buf, a.offset, block[_HIDDEN_U16[a.kind]])
        elif a.kind == "hidden_grid_dims":
            struct.pack_into("<H", buf, a.offset, dims)
        elif a.kind == "hidden_dynamic_lds_size":
            struct.pack_into("<I", buf, a.offset, shared_mem)
        # remainders, global offsets, printf/hostcall/heap/queue pointers: 0
    return bytes(buf)


def dispatch_packet(grid, block, lds_bytes: int, kernarg_address: int) -> bytes:
    """An hsa_kernel_dispatch_packet_t (64 bytes) describing the launch, for kernels that read the
    dispatch pointer (work-group and grid sizes)."""
    dims = 3 if grid[2] > 1 or block[2] > 1 else 2 if grid[1] > 1 or block[1] > 1 else 1
    return struct.pack("<HHHHHHIIIIIQQQQ", 0, dims, block[0], block[1], block[2], 0,
                       grid[0] * block[0], grid[1] * block[1], grid[2] * block[2], 0, lds_bytes, 0,
                       kernarg_address, 0, 0)


class HostBuffer:
    """A small aligned host buffer registered as device memory for one launch."""

    def __init__(self, data: bytes, what: str, mem: Regions) -> None:
        self.arr = np.zeros(len(data) + 256, np.uint8)
        shift = (-self.arr.ctypes.data) % 256
        self.address = self.arr.ctypes.data + shift
        self.arr[shift:shift + len(data)] = np.frombuffer(data, np.uint8)
        self.mem = mem
        mem.add(self.address, max(len(data), 1), what)

    def close(self) -> None:
        self.mem.remove(self.address)


# ---- launch --------------------------------------------------------------------------------------

def launch(co: CodeObject, kernel: str, grid, block, kernargs: bytes, shared_mem: int = 0,
           *, mem: Regions | None = None, max_steps: int | None = None) -> LaunchStats:
    """Run ``kernel`` of ``co`` over ``grid`` workgroups of ``block`` work-items with the explicit
    kernarg bytes ``kernargs``; memory is the process's registered host memory."""
    mem = mem or regions
    prog = program(co)
    if kernel not in prog.loaded.kernels:
        raise EmulatorError(f"{co.source} has no kernel {kernel!r}; it has {', '.join(sorted(prog.loaded.kernels))}")
    kd = prog.loaded.kernels[kernel]
    if kd.scratch:
        raise EmulatorError(f"{kernel} uses {kd.private_segment} bytes of scratch per work-item; the emulator "
                            "does not emulate scratch (private) memory")
    grid = tuple(int(g) for g in grid)
    block = tuple(int(b) for b in block)
    wave = 32 if kd.wave32 else 64
    ctx = ArchCtx(co.arch, wave)
    threads = block[0] * block[1] * block[2]
    waves_per_wg = -(-threads // wave)
    lds_bytes = kd.group_segment + int(shared_mem)
    n_wg = grid[0] * grid[1] * grid[2]
    stats = LaunchStats()
    if n_wg == 0 or threads == 0:
        return stats
    limit = max_steps or int(os.environ.get("PYHIPATTN_EMULATE_MAX_STEPS", 50_000_000))
    per_batch = max(1, int(os.environ.get("PYHIPATTN_EMULATE_BATCH", 256)) // waves_per_wg)
    args = HostBuffer(kernarg_segment(co, kernel, kernargs, grid, block, shared_mem), f"kernargs of {kernel}", mem)
    packet = HostBuffer(dispatch_packet(grid, block, lds_bytes, args.address), "dispatch packet", mem)
    queue = HostBuffer(bytes(256), "queue", mem)
    t0 = time.perf_counter()
    try:
        with np.errstate(all="ignore"):
            for first in range(0, n_wg, per_batch):
                ids = np.arange(first, min(first + per_batch, n_wg))
                m = _setup(prog, kd, ctx, ids, grid, block, waves_per_wg, lds_bytes, args, packet, queue, mem)
                stats.waves += m.nw
                _run(prog, kd, ctx, m, stats, limit)
    finally:
        for b in (args, packet, queue):
            b.close()
    stats.seconds = time.perf_counter() - t0
    last_stats.value = stats
    return stats


def _setup(prog: Program, kd: KernelDescriptor, ctx: ArchCtx, wg_ids: np.ndarray, grid, block, waves_per_wg,
           lds_bytes, args: HostBuffer, packet: HostBuffer, queue: HostBuffer, mem) -> Machine:
    L = ctx.wave
    nw = len(wg_ids) * waves_per_wg
    wave_wg = np.repeat(np.arange(len(wg_ids)), waves_per_wg)
    m = Machine(nw, L, VGPRS, AGPRS_CDNA if ctx.cdna else 1, lds_bytes, wave_wg, mem)
    m.code_base = prog.base
    # user SGPRs
    s = 0
    values = {"private_segment_buffer": (0, 0, 0, 0), "dispatch_ptr": _pair(packet.address),
              "queue_ptr": _pair(queue.address), "kernarg_segment_ptr": _pair(args.address),
              "dispatch_id": (0, 0), "flat_scratch_init": (0, 0), "private_segment_size": (0,)}
    for bit, count, name in USER_SGPRS:
        if kd.properties & (1 << bit):
            m.S[:, s:s + count] = values[name][:count]
            s += count
    if kd.preload_dwords:
        seg = args.arr[(args.address - args.arr.ctypes.data):]
        words = np.frombuffer(seg[:4 * (kd.preload_offset + kd.preload_dwords)].tobytes(), _U32)
        m.S[:, s:s + kd.preload_dwords] = words[kd.preload_offset:kd.preload_offset + kd.preload_dwords]
    s = kd.user_sgpr_count
    gx, gy = grid[0], grid[1]
    wid = wg_ids[wave_wg]
    ids = (wid % gx, (wid // gx) % gy, wid // (gx * gy))
    for axis in range(3):
        if kd.rsrc2 & (1 << (7 + axis)):
            m.S[:, s] = ids[axis]
            s += 1
    if kd.rsrc2 & (1 << 10):          # workgroup info: 0
        s += 1
    if ctx.gen >= 12:                 # architected SGPRs: ttmp9 = id x, ttmp7 = id y | id z << 16
        m.S[:, TTMP + 9] = ids[0]
        m.S[:, TTMP + 7] = (ids[1] & 0xFFFF) | (ids[2] << 16)
    # work-item ids: packed x | y << 10 | z << 20 in v0 (gfx90a+, gfx11+)
    tid = (np.arange(nw) % waves_per_wg)[:, None] * L + np.arange(L)[None, :]
    bx, by = block[0], block[1]
    tx, ty, tz = tid % bx, (tid // bx) % by, tid // (bx * by)
    m.V[0] = (tx | (ty << 10) | (tz << 20)).astype(_U32)
    # exec: the work-items that exist in each wave
    threads = block[0] * block[1] * block[2]
    live = tid < threads
    m.write_mask(126, live)
    return m


def _pair(address: int) -> tuple[int, int]:
    return address & 0xFFFFFFFF, address >> 32


def _run(prog: Program, kd: KernelDescriptor, ctx: ArchCtx, m: Machine, stats: LaunchStats, limit: int) -> None:
    nw = m.nw
    alive = np.ones(nw, bool)
    waiting = np.zeros(nw, bool)
    pcs = np.full(nw, kd.entry, np.int64)
    uniform, cur = True, kd.entry
    act = alive.copy()
    n_act = nw
    steps = stats.steps
    wave_insts = stats.wave_instructions
    step_of = prog.step
    wave_wg = m.wave_wg
    m.set_act(act, True)
    try:
        while True:
            if uniform:
                pc = cur
            else:
                runnable = alive & ~waiting
                if not runnable.any():
                    if alive.any():
                        raise EmulatorError(f"{kd.name}: every live wave waits at a barrier that cannot complete")
                    break
                pcr = np.where(runnable, pcs, _NEVER)
                pc = int(pcr.min())
                act = runnable & (pcs == pc)
                n_act = int(act.sum())
                if n_act == int(runnable.sum()) and not waiting.any():
                    uniform, cur = True, pc
                m.set_act(act, n_act == nw)
            m.pc = pc
            step = step_of(pc, ctx)
            steps += 1
            wave_insts += n_act
            if steps > limit:
                raise EmulatorTimeout(
                    f"{kd.name} ran {limit:,} steps ({wave_insts:,} wave-instructions) without finishing: a kernel "
                    "that waits for another workgroup cannot finish here (the emulator runs workgroups in batches, "
                    "one after another), or the kernel hangs; raise PYHIPATTN_EMULATE_MAX_STEPS if it is just long")
            kind = step.kind
            if trace is not None:
                trace(m, pc, step, "before")
            if kind == "op":
                if step.run is not None:
                    step.run(m)
                if trace is not None:
                    trace(m, pc, step, "after")
                if uniform:
                    cur = pc + step.inst.size
                else:
                    pcs[act] = pc + step.inst.size
                continue
            nxt = pc + step.inst.size
            if kind == "branch":
                if step.cond is None:
                    taken_act = np.ones(n_act, bool)
                else:
                    taken_act = step.cond(m)[act]
                if taken_act.all():
                    dest = step.target
                elif not taken_act.any():
                    dest = nxt
                else:
                    dest = None
                if uniform and dest is not None:
                    cur = dest
                    continue
                if uniform:
                    pcs[act] = cur
                    uniform = False
                if dest is not None:
                    pcs[act] = dest
                else:
                    idx = np.nonzero(act)[0]
                    pcs[idx] = np.where(taken_act, step.target, nxt)
                continue
            if kind == "end":
                if uniform:
                    pcs[act] = cur
                alive &= ~act
                uniform = False
                if waiting.any():    # a wave that ends no longer counts at its workgroup's barrier
                    _release(wave_wg, alive, waiting)
                continue
            if kind == "barrier":
                if uniform:
                    cur = nxt        # every live wave of every workgroup is here: nothing to wait for
                    continue
                pcs[act] = nxt
                waiting |= act
                _release(wave_wg, alive, waiting)
                continue
            raise EmulatorError(f"step kind {kind}")
    except EmulatorError as e:
        if "at pc" not in str(e):
            inst = prog.code.get(m.pc)
            e.args = (f"{e.args[0]} [at pc 0x{m.pc:x}: {inst.text if inst else '?'}]",) + e.args[1:]
        raise
    finally:
        stats.steps = steps
        stats.wave_instructions = wave_insts


def _release(wave_wg: np.ndarray, alive: np.ndarray, waiting: np.ndarray) -> None:
    """Let go of the waves of each workgroup whose every live wave waits at a barrier (in place)."""
    n_wg = int(wave_wg.max()) + 1
    live = np.bincount(wave_wg[alive], minlength=n_wg)
    arrived = np.bincount(wave_wg[alive & waiting], minlength=n_wg)
    done = (live == arrived) & (arrived > 0)
    if done.any():
        waiting &= ~done[wave_wg]
