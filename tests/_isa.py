"""Shared pieces of the instruction tests (tests/test_emulate_isa_*.py).

``load(arch, n)`` is the assembly that loads ``n`` per-lane input vectors from ``inp`` into
v1..vn (input k of lane l at ``inp[k * lanes + l]``); ``run(arch, body, outputs, inputs)``
runs it with ``tests/_emu.run_asm``.  Each test module lists the opcodes its tests cover in
``COVERS``; ``test_emulate_isa_coverage`` checks that every opcode of the emulator's table is
covered somewhere.  Expected values are written from AMD's ISA documents in numpy here, never
taken from the emulator.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from _emu import gen, run_asm, wave_size

CDNA = ("gfx942", "gfx950")
RDNA = ("gfx1100", "gfx1200")


@pytest.fixture(scope="module", autouse=True)
def tools(require_tool):
    require_tool("clang-22")
    require_tool("llvm-objdump-22")


def load(arch: str, n: int, first: int = 1) -> str:
    L = wave_size(arch)
    ld = "global_load_dword" if gen(arch) == 9 else "global_load_b32"
    wait = "s_waitcnt vmcnt(0)" if gen(arch) < 12 else "s_wait_loadcnt 0"
    add = "v_add_u32" if gen(arch) == 9 else "v_add_nc_u32"
    lines = ["v_lshlrev_b32 v250, 2, v254"]
    base = 0
    for k in range(n):
        if k * L * 4 - base > 2047:                  # keep within every arch's signed offset field
            lines.append(f"{add} v250, {k * L * 4 - base}, v250")
            base = k * L * 4
        lines.append(f"{ld} v{first + k}, v250, s[92:93] offset:{k * L * 4 - base}")
    lines.append(wait)
    return "\n".join(lines)


def run(arch: str, body: str, outputs: list[str], inputs: list | None = None, first: int = 1,
        **kw) -> dict[str, np.ndarray]:
    """``body`` after loading ``inputs`` (uint32 arrays of one value per lane) into v<first>..
    (``first=2`` for register pairs, which CDNA wants even-aligned)."""
    L = wave_size(arch)
    inputs = inputs or []
    data = np.stack([np.broadcast_to(np.asarray(x).view(np.uint32) if np.asarray(x).dtype != np.uint32
                                     else np.asarray(x), (L,)) for x in inputs]) if inputs else None
    pre = load(arch, len(inputs), first) if inputs else ""
    return run_asm(arch, pre + "\n" + body, outputs, inp=data, **kw)


def lanes(arch: str) -> np.ndarray:
    return np.arange(wave_size(arch), dtype=np.uint32)


def u32(x) -> np.ndarray:
    return np.asarray(x).astype(np.int64).astype(np.uint64).astype(np.uint32) if np.asarray(x).dtype != np.uint32 \
        else np.asarray(x)


def f32(x) -> np.ndarray:
    return np.asarray(x, np.float32).view(np.uint32)


def as_f32(bits) -> np.ndarray:
    return np.asarray(bits, np.uint32).view(np.float32)


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def rand_u32(arch: str, seed: int, edges: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**32, wave_size(arch), dtype=np.uint64).astype(np.uint32)
    if edges:
        x[:8] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 2, 31, 32]
    return x


def rand_f32(arch: str, seed: int, specials: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(wave_size(arch)) * 4).astype(np.float32)
    if specials:
        x[:8] = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, 3.0e-39, 65504.0]
    return x


def eq_f32(got_bits, want, ulps: int = 0) -> None:
    """float32 equality by bits (NaN matches NaN), or within ``ulps`` units in the last place."""
    got = as_f32(got_bits)
    want = np.asarray(want, np.float32)
    both_nan = np.isnan(got) & np.isnan(want)
    if ulps == 0:
        ok = both_nan | (got.view(np.uint32) == want.view(np.uint32)) | ((got == 0) & (want == 0) & (np.signbit(got) == np.signbit(want)))
    else:
        gi = got.view(np.int32).astype(np.int64)
        wi = want.view(np.int32).astype(np.int64)
        ok = both_nan | (np.abs(gi - wi) <= ulps) | (got == want)
    bad = np.nonzero(~ok)[0]
    assert not bad.size, f"lanes {bad[:8]}: got {got[bad[:8]]} want {want[bad[:8]]}"
