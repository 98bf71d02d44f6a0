"""Microprograms for the emulator's instruction tests: assemble a few instructions with
clang-22 into a real code object, run it on the emulator, read registers back.

    out = run_asm("gfx942", '''
        v_cvt_f32_u32 v1, v0
        v_add_f32 v2, 1.5, v1
    ''', ["v2"])
    out["v2"].view(np.float32)        # (lanes,) for one wave, (waves, lanes) for more

The body runs after a prologue that leaves: s[0:1] the kernarg pointer, s[90:91] the ``out``
buffer, s[92:93] the ``inp`` buffer (``inp=`` uint32 data the body may load), v254 the flat
work-item id; the workgroup id x is in s2 (gfx9 / gfx11) or ttmp9 (gfx12).  Bodies may use
v1-v249, a0-a255 (CDNA), s4-s89, vcc, m0, exec and up to ``lds`` bytes of LDS; the epilogue
restores exec to all lanes and stores each requested register (``"v3"``, ``"a5"``, ``"s10"``,
``"vcc_lo"``...) of every lane to ``out``.
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from pyhipattn import codeobj
from pyhipattn.emulate import launch, regions

CLANG = "clang-22"
_CACHE: dict[str, object] = {}


def gen(arch: str) -> int:
    return 9 if arch.startswith("gfx9") else int(arch[3:5])


def wave_size(arch: str) -> int:
    return 64 if gen(arch) == 9 else 32


def _names(arch: str) -> dict[str, str]:
    g = gen(arch)
    return {
        "sload2": "s_load_dwordx2" if g == 9 else "s_load_b64",
        "wait_k": "s_waitcnt lgkmcnt(0)" if g < 12 else "s_wait_kmcnt 0",
        "store": "global_store_dword" if g == 9 else "global_store_b32",
        "vadd": "v_add_u32" if g == 9 else "v_add_nc_u32",
        "exec_all": "s_mov_b64 exec, -1" if g == 9 else "s_mov_b32 exec_lo, -1",
    }


def source(arch: str, body: str, outputs: list[str], lds: int = 0, threads: int = 0) -> str:  # noqa: C901
    """The whole assembly file of a microprogram kernel ``k``."""
    n = _names(arch)
    L = wave_size(arch)
    threads = threads or L
    epi = [n["exec_all"], "v_lshlrev_b32 v252, 2, v254"]
    for k, reg in enumerate(outputs):
        epi.append(f"{n['vadd']} v253, {k * threads * 4}, v252")
        if reg.startswith(("v", "a")) and not reg.startswith("vcc"):
            src = reg
            if reg.startswith("a"):
                epi.append(f"v_accvgpr_read_b32 v251, {reg}")
                src = "v251"
        else:
            epi.append(f"v_mov_b32 v251, {reg}")
            src = "v251"
        epi.append(f"{n['store']} v253, {src}, s[90:91]")
    cdna = gen(arch) == 9
    kd = [".amdhsa_user_sgpr_kernarg_segment_ptr 1", ".amdhsa_system_sgpr_workgroup_id_x 1",
          f".amdhsa_next_free_vgpr {512 if cdna else 256}", ".amdhsa_next_free_sgpr 96",
          f".amdhsa_group_segment_fixed_size {lds}"]
    if cdna:
        kd.append(".amdhsa_accum_offset 256")
    else:
        kd.append(".amdhsa_wavefront_size32 1")
    return "\n".join([
        f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"', ".text", ".globl k", ".p2align 8", ".type k,@function", "k:",
        f"  {n['sload2']} s[90:91], s[0:1], 0x0", f"  {n['sload2']} s[92:93], s[0:1], 0x8", f"  {n['wait_k']}",
        "  v_mov_b32 v254, v0",
        *("  " + line.strip() for line in body.strip().splitlines() if line.strip()),
        *("  " + e for e in epi), "  s_endpgm",
        ".rodata", ".p2align 6", ".amdhsa_kernel k", *("  " + x for x in kd), ".end_amdhsa_kernel",
        ".amdgpu_metadata", "---", "amdhsa.version: [1, 2]", "amdhsa.kernels:", "  - .name: k", "    .symbol: k.kd",
        "    .kernarg_segment_size: 16", "    .kernarg_segment_align: 8", f"    .group_segment_fixed_size: {lds}",
        "    .private_segment_fixed_size: 0", f"    .wavefront_size: {L}", "    .sgpr_count: 96",
        f"    .vgpr_count: {512 if cdna else 256}", "    .max_flat_workgroup_size: 1024", "    .args:",
        "      - {.name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global}",
        "      - {.name: inp, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global}",
        ".end_amdgpu_metadata", ""])


def assemble(arch: str, text: str):
    """Assemble and link ``text`` with clang-22; the CodeObject (cached by source)."""
    key = hashlib.sha256((arch + text).encode()).hexdigest()
    co = _CACHE.get(key)
    if co is None:
        with tempfile.TemporaryDirectory() as d:
            s, o = Path(d) / "k.s", Path(d) / "k.co"
            s.write_text(text)
            proc = subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-x", "assembler",
                                   str(s), "-o", str(o)], capture_output=True, text=True)
            if proc.returncode:
                raise AssertionError(f"clang-22 could not assemble the microprogram for {arch}:\n{proc.stderr}\n{text}")
            co = _CACHE[key] = codeobj.read(o.read_bytes())[0]
    return co


def run_asm(arch: str, body: str, outputs: list[str], *, inp: np.ndarray | None = None, lds: int = 0,
            threads: int = 0) -> dict[str, np.ndarray]:
    """Run ``body`` in one workgroup of ``threads`` work-items (default one wave) on the
    emulator; each output register as uint32 ``(lanes,)`` for one wave, ``(waves, lanes)`` for more."""
    L = wave_size(arch)
    threads = threads or L
    co = assemble(arch, source(arch, body, outputs, lds, threads))
    out = np.zeros((len(outputs), threads), np.uint32)
    data = np.zeros(1, np.uint32) if inp is None else np.ascontiguousarray(inp).view(np.uint32).ravel().copy()
    for a in (out, data):
        regions.add(a.ctypes.data, a.nbytes, "microprogram buffer")
    try:
        launch(co, "k", (1, 1, 1), (threads, 1, 1), struct.pack("<QQ", out.ctypes.data, data.ctypes.data))
    finally:
        for a in (out, data):
            regions.remove(a.ctypes.data)
    res = {}
    for k, reg in enumerate(outputs):
        v = out[k].reshape(threads // L, L)
        res[reg] = v[0] if v.shape[0] == 1 else v
    return res


def f32(x) -> np.ndarray:
    return np.asarray(x, np.uint32).view(np.float32)


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]
