"""Matrix instructions: CDNA MFMA (wave64) and RDNA WMMA (wave32), f16 / bf16 in, f32 out.

A shape is described by where each element of A (M x K), B (K x N) and C/D (M x N) lives:
``(lane, element)`` with element counted in 16-bit halves across the operand's VGPRs (A, B)
or in dwords (C, D).  The layouts (AMD's matrix instruction documentation):

- MFMA 32x32xK (K = 8, or 16 on gfx950): A[i][k] in lane ``i + 32 * (k // (K/2))``, element
  ``k % (K/2)``; B[k][j] likewise with ``j``; D[i][j] in lane ``j + 32 * ((i // 4) % 2)``,
  register ``4 * (i // 8) + i % 4`` (so register e of lane l is row 8(e//4) + 4(l//32) + e%4).
- MFMA 16x16xK (K = 16, or 32 on gfx950): A[i][k] in lane ``i + 16 * (k // (K/4))``, element
  ``k % (K/4)``; D[i][j] in lane ``j + 16 * (i // 4)``, register ``i % 4``.
- WMMA 16x16x16 on gfx11 (wave32): lane l holds row ``l % 16`` of A (all 16 k, lanes 16-31
  repeat lanes 0-15) and column ``l % 16`` of B; D[i][j] in lane ``j + 16 * (i % 2)``,
  register ``i // 2``.
- WMMA 16x16x16 on gfx12: lane l holds k ``8 * (l // 16) .. + 7`` of row / column ``l % 16``;
  D[i][j] in lane ``j + 16 * (i // 8)``, register ``i % 8``.

Products are exact in float32 (16-bit inputs) and summed in float32, then C is added (the
hardware's summation order may differ: results agree to float32 rounding).
A C operand given as an inline constant is that constant in every element.
"""

from __future__ import annotations

import re
from functools import lru_cache

import ml_dtypes
import numpy as np

from .errors import UnknownInstructionError
from .isa import F16, F32, U16, U32, Step, base_name, const_bits, mod_int, op, operands

_MFMA = re.compile(r"v_mfma_f32_(\d+)x(\d+)x(\d+)_?(bf16|f16)(_1k)?$")
_WMMA = re.compile(r"v_wmma_f32_16x16x16_(bf16|f16)$")


@lru_cache(maxsize=None)
def layout(kind: str, M: int, N: int, K: int, gen: int):
    """Index maps: (a_lane, a_elem) of shape (M, K), (b_lane, b_elem) of (K, N), (d_lane, d_reg) of (M, N)."""
    i = np.arange(M)[:, None]
    k = np.arange(K)[None, :]
    j = np.arange(N)[None, :]
    kk = np.arange(K)[:, None]
    ii = np.arange(M)[:, None]
    if kind == "mfma" and M == 32:
        half = K // 2
        a = (i + 32 * (k // half), k % half)
        b = (j + 32 * (kk // half), kk % half)
        d = (j + 32 * ((ii // 4) % 2) + 0 * j, 4 * (ii // 8) + ii % 4 + 0 * j)
    elif kind == "mfma" and M == 16:
        q = K // 4
        a = (i + 16 * (k // q), k % q)
        b = (j + 16 * (kk // q), kk % q)
        d = (j + 16 * (ii // 4) + 0 * j, ii % 4 + 0 * j)
    elif kind == "wmma" and gen == 11:
        a = (i + 0 * k, k + 0 * i)
        b = (j + 0 * kk, kk + 0 * j)
        d = (j + 16 * (ii % 2) + 0 * j, ii // 2 + 0 * j)
    elif kind == "wmma":
        a = (i + 16 * (k // 8), k % 8)
        b = (j + 16 * (kk // 8), kk % 8)
        d = (j + 16 * (ii // 8) + 0 * j, ii % 8 + 0 * j)
    else:
        raise UnknownInstructionError(f"{kind} {M}x{N}x{K}")
    return tuple(np.broadcast_arrays(*a)), tuple(np.broadcast_arrays(*b)), tuple(np.broadcast_arrays(*d))


def _build(inst, ctx, kind, M, N, K, dtype):
    ops = operands(inst)
    dst, a_op, b_op, c_op = ops[:4]
    for key in ("cbsz", "abid", "blgp"):
        if mod_int(inst, key):
            raise UnknownInstructionError(f"{key}:{inst.mods[key]} (broadcast forms are not emulated)")
    (al, ae), (bl, be), (dl, dr) = layout(kind, M, N, K, ctx.gen)
    # element e (16-bit) of lane l sits at [register e // 2][wave][2 l + e % 2] of a uint16 view
    a_reg, a_pos = ae // 2, 2 * al + ae % 2
    b_reg, b_pos = be // 2, 2 * bl + be % 2
    c_regs = dst.count
    view = ml_dtypes.bfloat16 if dtype == "bf16" else F16
    c_const = None if c_op.kind in ("v", "a") else np.float32(np.uint32(const_bits(c_op, "f32")).view(F32))
    a_rf, b_rf = ("A" if a_op.kind == "a" else "V"), ("A" if b_op.kind == "a" else "V")
    c_rf, d_rf = ("A" if c_op.kind == "a" else "V"), ("A" if dst.kind == "a" else "V")
    a0, a1, b0, b1 = a_op.index, a_op.index + a_op.count, b_op.index, b_op.index + b_op.count
    c0, d0 = c_op.index, dst.index

    def run(m):
        full = m.act_full
        w = slice(None) if full else np.nonzero(m.act)[0]
        a16 = getattr(m, a_rf)[a0:a1].view(U16)
        b16 = getattr(m, b_rf)[b0:b1].view(U16)
        if full:
            A = a16[a_reg, :, a_pos]                                  # (M, K, waves)
            B = b16[b_reg, :, b_pos]                                  # (K, N, waves)
        else:
            A = a16[a_reg[..., None], w[None, None, :], a_pos[..., None]]
            B = b16[b_reg[..., None], w[None, None, :], b_pos[..., None]]
        A = A.view(view).astype(F32).transpose(2, 0, 1)
        B = B.view(view).astype(F32).transpose(2, 0, 1)
        D = np.matmul(A, B)                                           # (waves, M, N): exact products, f32 sums
        if c_const is None:
            cf = getattr(m, c_rf)[c0:c0 + c_regs].view(F32)
            C = cf[dr, :, dl] if full else cf[dr[..., None], w[None, None, :], dl[..., None]]
            D += C.transpose(2, 0, 1)
        else:
            D += c_const
        out = D.transpose(1, 2, 0).view(U32)                          # (M, N, waves)
        rf = getattr(m, d_rf)[d0:d0 + c_regs]
        if full:
            rf[dr, :, dl] = out
        else:
            rf[dr[..., None], w[None, None, :], dl[..., None]] = out
    return Step(inst, run)


def _mfma(inst, ctx):
    mm = _MFMA.match(base_name(inst.op))
    if not mm:
        raise UnknownInstructionError(inst.op)
    M, N, K = int(mm.group(1)), int(mm.group(2)), int(mm.group(3))
    return _build(inst, ctx, "mfma", M, N, K, mm.group(4))


def _wmma(inst, ctx):
    mm = _WMMA.match(base_name(inst.op))
    if not mm:
        raise UnknownInstructionError(inst.op)
    return _build(inst, ctx, "wmma", 16, 16, 16, mm.group(1))


for _shape in ("32x32x8", "32x32x16", "16x16x16", "16x16x32"):
    for _t in ("bf16", "f16"):
        op(f"v_mfma_f32_{_shape}_{_t}", f"v_mfma_f32_{_shape}{_t}")(_mfma)
op("v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_16x16x16bf16_1k")(_mfma)
for _t in ("bf16", "f16"):
    op(f"v_wmma_f32_16x16x16_{_t}")(_wmma)


# ---- accumulation registers --------------------------------------------------------------------

@op("v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_mov_b32")
def _acc_move(inst, ctx):
    from .isa import raw_reader, v_regs

    ops = operands(inst)
    d = ops[0]
    s = raw_reader(ops[1])
    regs = v_regs(d)
    return Step(inst, lambda m: m.write_v(getattr(m, regs), d.index, np.broadcast_to(s(m), (m.nw, m.L))))
