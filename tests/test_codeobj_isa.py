"""Mnemonic counts from the disassemblers: the static checks' view of a kernel's instructions."""

from __future__ import annotations

import pytest

from _build import CLANG, NVCC, hip_compile, nvcc_cubin
from pyhipattn.arch import arch_info
from pyhipattn.codeobj.isa import ToolNotFoundError, mnemonics, mnemonics_of
from pyhipattn.codeobj import read

pytestmark = pytest.mark.tools

MFMA = r"""
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
extern "C" __global__ void mm(float16v* c, const half4* a, const half4* b) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  c[t] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t], b[t], c[t], 0, 0, 0);
}
extern "C" __global__ void plain(float* p) { p[0] = 1.f; }
"""


def test_amd_kernel_uses_its_arch_matrix_instructions(require_tool, tmp_path):
    require_tool(CLANG)
    require_tool("llvm-objdump-22", "llvm-objdump")
    path = hip_compile(MFMA, ["gfx942"], tmp_path).path
    counts = mnemonics(path, "gfx942")
    prefixes = arch_info("gfx942").matrix_isa
    assert any(m.startswith(prefixes) for m in counts["mm"])
    assert not any(m.startswith(prefixes) for m in counts["plain"])
    assert counts["plain"]["s_endpgm"] == 1


def test_nvidia_kernel_sass_mnemonics(require_tool, tmp_path):
    require_tool(NVCC)
    require_tool("cuobjdump", "nvdisasm")
    path = nvcc_cubin('extern "C" __global__ void k(int* p) { p[threadIdx.x] = 1; }', "sm_90a", tmp_path).path
    counts = mnemonics(path)
    assert counts["k"]["EXIT"] >= 1 and counts["k"]["STG"] == 1


def test_missing_disassembler_is_a_clear_error(require_tool, tmp_path, monkeypatch):
    require_tool(CLANG)
    (co,) = read(hip_compile(MFMA, ["gfx942"], tmp_path).path)
    monkeypatch.setattr("pyhipattn.codeobj.isa.find_tool", lambda names: None)
    with pytest.raises(ToolNotFoundError, match=r"needs llvm-objdump \(LLVM >= 17\), which is not installed: apt-get install llvm-22"):
        mnemonics_of(co)
