"""Matrix instructions on the emulator: every MFMA shape of the shipped CDNA arches (f16 and bf16,
gfx950's double-K shapes, every assembler spelling), results in VGPRs or AGPRs, C from registers
or an inline constant; the accumulation registers' moves; WMMA on gfx11 and gfx12.

The operand layouts are written here per lane, from AMD's matrix instruction tables (CDNA3 ISA
section 7, RDNA3 / RDNA4 ISA WMMA sections), independently of the emulator's index maps:

- MFMA 32x32xK: lane l, 16-bit element e of A is A[l % 32][(l // 32) * K/2 + e] (B likewise with
  the column); accumulator register r of lane l is D[8 (r // 4) + 4 (l // 32) + r % 4][l % 32].
- MFMA 16x16xK: A[l % 16][(l // 16) * K/4 + e]; register r is D[4 (l // 16) + r][l % 16].
- WMMA gfx11: A[l % 16][e] for e < 16 (both half-waves hold the whole row); register r is
  D[2 r + l // 16][l % 16].
- WMMA gfx12: A[l % 16][8 (l // 16) + e] for e < 8; register r is D[r + 8 (l // 16)][l % 16].
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from _isa import run, tools  # noqa: F401

DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _pack(halves: np.ndarray) -> list[np.ndarray]:
    """(lanes, 2n) 16-bit values -> n uint32 per-lane inputs (element 2i in the low half)."""
    u = halves.view(np.uint16).astype(np.uint32)
    return [u[:, 2 * i] | (u[:, 2 * i + 1] << 16) for i in range(u.shape[1] // 2)]


def _mfma_operands(M: int, K: int, ty: str, seed: int):
    """Random A (M x K), B (K x M), C (M x M) and their per-lane register images."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(DT[ty])
    B = rng.standard_normal((K, M)).astype(DT[ty])
    C = rng.standard_normal((M, M)).astype(np.float32)
    lane = np.arange(64)
    per = K // (64 // M)                    # 16-bit elements per lane
    e = np.arange(per)
    a = A[(lane % M)[:, None], ((lane // M) * per)[:, None] + e]
    b = B[((lane // M) * per)[:, None] + e, (lane % M)[:, None]]
    nreg = M * M // 64
    r = np.arange(nreg)
    rows = (8 * (r // 4) + 4 * (lane // 32)[:, None] + r % 4) if M == 32 else (4 * (lane // 16)[:, None] + r)
    cols = np.broadcast_to((lane % M)[:, None], rows.shape)
    return A, B, C, _pack(a), _pack(b), [C[rows[:, k], cols[:, k]] for k in range(nreg)], (rows, cols)


SHAPES = [  # (arch, spelling, M, K, type)
    *[("gfx942", n, 32, 8, t) for t, ns in (("f16", ("v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8f16")),
                                            ("bf16", ("v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8bf16",
                                                      "v_mfma_f32_32x32x8bf16_1k"))) for n in ns],
    *[("gfx942", n, 16, 16, t) for t, ns in (("f16", ("v_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16f16")),
                                             ("bf16", ("v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16bf16",
                                                       "v_mfma_f32_16x16x16bf16_1k"))) for n in ns],
    *[("gfx950", f"v_mfma_f32_32x32x16{s}{t}", 32, 16, t) for t in ("f16", "bf16") for s in ("_", "")],
    *[("gfx950", f"v_mfma_f32_16x16x32{s}{t}", 16, 32, t) for t in ("f16", "bf16") for s in ("_", "")],
    ("gfx950", "v_mfma_f32_32x32x8_bf16", 32, 8, "bf16"), ("gfx950", "v_mfma_f32_16x16x16_f16", 16, 16, "f16"),
]


def _close(got_bits: np.ndarray, want: np.ndarray, K: int):
    got = np.asarray(got_bits, np.uint32).view(np.float32)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * K), np.max(np.abs(got - want))


@pytest.mark.parametrize("arch,name,M,K,ty", SHAPES, ids=lambda x: str(x))
@pytest.mark.parametrize("dst", ["v", "a"])
def test_mfma_shapes(arch, name, M, K, ty, dst):
    A, B, C, a, b, c, (rows, cols) = _mfma_operands(M, K, ty, seed=M * K + len(name) + (dst == "a"))
    na, nc = len(a), len(c)
    ra, rb, rc = 2, 2 + na, 2 + 2 * na                       # even-aligned tuples
    src = f"v[{ra}:{ra + na - 1}], v[{rb}:{rb + na - 1}]"
    if dst == "v":
        body = f"{name} v[64:{64 + nc - 1}], {src}, v[{rc}:{rc + nc - 1}]"
        outs = [f"v{64 + r}" for r in range(nc)]
    else:                                                    # C moved into AGPRs, accumulate there
        body = "\n".join(f"v_accvgpr_write_b32 a{r}, v{rc + r}" for r in range(nc))
        body += f"\n{name} a[0:{nc - 1}], {src}, a[0:{nc - 1}]"
        outs = [f"a{r}" for r in range(nc)]
    out = run(arch, body, outs, a + b + c, first=2)
    D = A.astype(np.float64) @ B.astype(np.float64) + C
    for r in range(nc):
        _close(out[outs[r]], D[rows[:, r], cols[:, r]], K)


@pytest.mark.parametrize("arch,name,M,K,ty", [SHAPES[0], SHAPES[5], SHAPES[10], SHAPES[14]], ids=lambda x: str(x))
def test_mfma_inline_constant_c(arch, name, M, K, ty):
    """C given as an inline constant is that constant in every element."""
    A, B, _, a, b, _, (rows, cols) = _mfma_operands(M, K, ty, seed=7)
    na, nc = len(a), M * M // 64
    out = run(arch, f"{name} v[64:{64 + nc - 1}], v[2:{1 + na}], v[{2 + na}:{1 + 2 * na}], 1.0",
              [f"v{64 + r}" for r in range(nc)], a + b, first=2)
    D = A.astype(np.float64) @ B.astype(np.float64) + 1.0
    for r in range(nc):
        _close(out[f"v{64 + r}"], D[rows[:, r], cols[:, r]], K)


def test_accvgpr_write_read_mov():
    arch = "gfx942"
    x = (np.arange(64, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    out = run(arch, """
        v_accvgpr_write_b32 a7, v1
        v_accvgpr_mov_b32 a9, a7
        v_accvgpr_read_b32 v10, a9
        v_accvgpr_write_b32 a11, -7
        v_accvgpr_write_b32 a12, 17
        s_mov_b32 exec_lo, 0xffff
        s_mov_b32 exec_hi, 0
        v_accvgpr_write_b32 a7, 0
    """, ["v10", "a11", "a12", "a7"], [x.astype(np.uint32)])
    assert np.array_equal(out["v10"], x) and (out["a11"] == 2**32 - 7).all() and (out["a12"] == 17).all()
    assert np.array_equal(out["a7"], np.where(np.arange(64) < 16, 0, x))     # inactive lanes keep theirs


def _wmma_operands(arch: str, ty: str, seed: int):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((16, 16)).astype(DT[ty])
    B = rng.standard_normal((16, 16)).astype(DT[ty])
    C = rng.standard_normal((16, 16)).astype(np.float32)
    lane = np.arange(32)
    if arch == "gfx1100":
        e = np.arange(16)
        a, b = A[(lane % 16)[:, None], e[None, :]], B[e[None, :], (lane % 16)[:, None]]
        r = np.arange(8)
        rows = 2 * r[None, :] + (lane // 16)[:, None]
    else:
        e = np.arange(8)
        k = (8 * (lane // 16))[:, None] + e[None, :]
        a, b = A[(lane % 16)[:, None], k], B[k, (lane % 16)[:, None]]
        r = np.arange(8)
        rows = r[None, :] + 8 * (lane // 16)[:, None]
    cols = np.broadcast_to((lane % 16)[:, None], rows.shape)
    return A, B, C, _pack(a), _pack(b), [C[rows[:, k], cols[:, k]] for k in range(8)], (rows, cols)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1200"])
@pytest.mark.parametrize("ty", ["f16", "bf16"])
@pytest.mark.parametrize("inline_c", [False, True])
def test_wmma(arch, ty, inline_c):
    A, B, C, a, b, c, (rows, cols) = _wmma_operands(arch, ty, seed=len(arch) + len(ty) + inline_c)
    na = len(a)
    name = f"v_wmma_f32_16x16x16_{ty}"
    csrc = "1.0" if inline_c else f"v[{1 + 2 * na}:{8 + 2 * na}]"
    out = run(arch, f"{name} v[64:71], v[1:{na}], v[{1 + na}:{2 * na}], {csrc}", [f"v{64 + r}" for r in range(8)],
              a + b + ([] if inline_c else c))
    D = A.astype(np.float64) @ B.astype(np.float64) + (1.0 if inline_c else C)
    for r in range(8):
        _close(out[f"v{64 + r}"], D[rows[:, r], cols[:, r]], 16)


COVERS = {n for _, n, *_ in SHAPES} | {"v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_mov_b32",
                                       "v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16"}
