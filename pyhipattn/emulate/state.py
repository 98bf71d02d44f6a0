"""Register state of a batch of waves, vectorised over waves and lanes.

``Machine`` holds, for ``nw`` waves of ``L`` lanes (the waves of one or more workgroups that
run together):

- ``S``: ``(nw, 128)`` uint32 scalar registers (internal numbering: ``operands.py``), exec
  included (126, 127); ``scc``: ``(nw,)`` bool;
- ``V`` / ``A``: ``(regs, nw, L)`` uint32 vector and accumulation registers;
- ``lds``: ``(workgroups * lds_bytes,)`` uint8, each workgroup's LDS one slice of it, and
  ``lds_base``: ``(nw, 1)`` the byte offset of each wave's slice;
- per step: ``act`` (``(nw,)`` bool, the waves executing this instruction) and the lane mask
  ``lanes()`` = exec & act, cached until exec or ``act`` changes.

Writers store under those masks, so one instruction runs for every wave at the same PC at
once (the data-parallel trick that makes the interpreter fast).
"""

from __future__ import annotations

import numpy as np

from .operands import EXEC, NULL, SGPR_FILE

U32, U64 = np.uint32, np.uint64


class Machine:
    def __init__(self, nw: int, wave_size: int, vgprs: int, agprs: int, lds_bytes: int,
                 wave_wg: np.ndarray, memory) -> None:
        self.nw, self.L = nw, wave_size
        self.S = np.zeros((nw, SGPR_FILE), U32)
        self.V = np.zeros((max(vgprs, 1), nw, wave_size), U32)
        self.A = np.zeros((max(agprs, 1), nw, wave_size), U32)
        self.scc = np.zeros(nw, bool)
        self.wave_wg = wave_wg
        self.lds_bytes = lds_bytes
        n_wg = int(wave_wg.max()) + 1 if nw else 0
        self.lds = np.zeros(max(n_wg * lds_bytes, 4), np.uint8)
        self.lds_base = (wave_wg.astype(np.int64) * lds_bytes)[:, None]
        self.mem = memory
        self.lane_bits = (U64(1) << np.arange(wave_size, dtype=U64))
        self.lane_id = np.arange(wave_size, dtype=np.int64)
        self.act = np.ones(nw, bool)
        self.act_full = True
        self._exec_ver = 0
        self._act_ver = 0
        self._mask_key: tuple = (-1, None)
        self._mask = np.zeros((nw, wave_size), bool)
        self._mask_full = False
        self._exec_cache: tuple = (-1, None)
        self.code_base = 0          # host address of the loaded image (s_getpc_b64)
        self.pc = 0                 # the current instruction's address (for errors)

    # ---- step masks ----------------------------------------------------------------------
    def set_act(self, act: np.ndarray, full: bool) -> None:
        self.act, self.act_full = act, full
        self._act_ver += 1

    def exec_mask(self) -> np.ndarray:
        ver, mask = self._exec_cache
        if ver != self._exec_ver:
            mask = self.mask_of(EXEC)
            self._exec_cache = (self._exec_ver, mask)
        return mask

    def lanes(self) -> tuple[np.ndarray, bool]:
        """``(mask, full)``: lanes that execute this step (exec & act), and whether that is all."""
        key = (self._exec_ver, self._act_ver)
        if self._mask_key != key:
            ex = self.exec_mask()
            self._mask = ex if self.act_full else (ex & self.act[:, None])
            self._mask_full = bool(self._mask.all())
            self._mask_key = key
        return self._mask, self._mask_full

    def exec_changed(self) -> None:
        self._exec_ver += 1

    # ---- lane masks in SGPRs -------------------------------------------------------------
    def mask_of(self, index: int) -> np.ndarray:
        """The lane mask held in SGPR ``index`` (and ``index + 1`` on wave64) as ``(nw, L)`` bool."""
        if index == NULL:
            return np.zeros((self.nw, self.L), bool)
        bits = self.S[:, index].astype(U64)
        if self.L == 64:
            bits |= self.S[:, index + 1].astype(U64) << U64(32)
        return (bits[:, None] & self.lane_bits) != 0

    def pack(self, mask: np.ndarray) -> np.ndarray:
        """``(nw, L)`` bool -> ``(nw,)`` uint64 lane bits."""
        return (mask * self.lane_bits).sum(axis=1, dtype=U64)

    def write_mask(self, index: int, mask: np.ndarray) -> None:
        """Store a lane mask into SGPR ``index`` (pair on wave64) for the active waves."""
        if index == NULL:
            return
        bits = self.pack(mask)
        self.write_s(index, (bits & U64(0xFFFFFFFF)).astype(U32))
        if self.L == 64:
            self.write_s(index + 1, (bits >> U64(32)).astype(U32))

    # ---- scalar writes ------------------------------------------------------------------
    def write_s(self, index: int, value) -> None:
        """SGPR ``index`` = ``value`` (a scalar, ``(nw,)`` or ``(nw, 1)``) for the active waves."""
        if index == NULL:
            return
        v = np.asarray(value)
        if v.ndim == 2:
            v = v[:, 0]
        v = v.astype(U32, copy=False)
        if self.act_full:
            self.S[:, index] = v
        elif v.ndim == 0:
            self.S[self.act, index] = v
        else:
            self.S[self.act, index] = v[self.act]
        if index >= EXEC:
            self._exec_ver += 1

    def write_scc(self, value) -> None:
        v = np.asarray(value)
        if v.ndim == 2:
            v = v[:, 0]
        if self.act_full:
            self.scc[:] = v
        elif v.ndim == 0:
            self.scc[self.act] = v
        else:
            self.scc[self.act] = v[self.act]

    # ---- vector writes ------------------------------------------------------------------
    def write_v(self, regs: np.ndarray, index: int, value, mask=None) -> None:
        """``regs[index]`` = ``value`` (broadcast to ``(nw, L)``) on the executing lanes
        (or on ``mask`` when given)."""
        if mask is None:
            mask, full = self.lanes()
        else:
            full = False
        if full:
            regs[index] = value
        else:
            np.copyto(regs[index], value, where=mask, casting="unsafe")
