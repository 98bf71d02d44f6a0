"""Cubins built by nvcc 13 read back exactly as ptxas and cuobjdump report them."""

from __future__ import annotations

import re
import struct

import pytest

from _build import NVCC, cuobjdump_params, cuobjdump_res_usage, nvcc_cubin, nvcc_ptx, ptxas_resource_usage, run
from pyhipattn.codeobj import read, read_for_arch
from pyhipattn.codeobj.limits import resource_report
from pyhipattn.errors import ArchNotFoundError

pytestmark = pytest.mark.tools

ARCHES = ("sm_90a", "sm_80")

SRC = r"""
extern "C" __global__ void __launch_bounds__(128)
scale(float* __restrict__ out, const float* __restrict__ in, float s, int n, double d, char c) {
  __shared__ float buf[128];
  int i = threadIdx.x + blockIdx.x * 128;
  buf[threadIdx.x] = i < n ? in[i] * s + (float)d + c : 0.f;
  __syncthreads();
  if (i < n) out[i] = buf[127 - threadIdx.x];
}

struct Big { float v[40]; };
__global__ void big(Big b, float* out) {       // by-value struct; a local array -> stack frame
  float loc[64];
  for (int j = 0; j < 64; ++j) loc[j] = b.v[(j * threadIdx.x) % 40];
  out[threadIdx.x] = loc[threadIdx.x % 64];
}

__global__ void __launch_bounds__(256, 2) bounded(int* p) { p[threadIdx.x] = 1; }
"""


@pytest.fixture(scope="module")
def cubins(require_tool, tmp_path_factory):
    require_tool(NVCC)
    d = tmp_path_factory.mktemp("cubin")
    return {a: nvcc_cubin(SRC, a, d / a) for a in ARCHES}


@pytest.mark.parametrize("arch", ARCHES)
def test_cubin_matches_ptxas_resource_usage(cubins, arch):
    usage = ptxas_resource_usage(cubins[arch].log)
    (co,) = read(cubins[arch].path)
    assert (co.platform, co.arch) == ("nvidia", arch)
    assert sorted(co.kernels) == sorted(usage)
    for name, u in usage.items():
        k = co[name]
        assert (k.registers, k.shared_bytes, k.scratch_bytes) == (u["registers"], u["smem"], u["stack_frame"])
        assert k.wavefront_size == 32 and k.arch == arch


@pytest.mark.parametrize("arch", ARCHES)
def test_cubin_matches_cuobjdump(cubins, arch, require_tool):
    require_tool("cuobjdump")
    path = cubins[arch].path
    res, params = cuobjdump_res_usage(path), cuobjdump_params(path)
    (co,) = read(path)
    has_reserved = any(s.startswith(b".nv.shared.reserved.") for s in path.read_bytes().split(b"\0"))
    for name, k in co.kernels.items():
        # cuobjdump's SHARED is the .nv.shared.<kernel> size, which on sm_90 cubins includes
        # the 1 KiB system-reserved window (see pyhipattn.codeobj.cubin).
        shared = res[name]["SHARED"]
        assert k.shared_bytes == (shared - 1024 if has_reserved and shared else shared)
        assert (res[name]["REG"], res[name]["STACK"]) == (k.registers, k.scratch_bytes)
        assert [(a.offset, a.size) for a in k.args] == params[name]["params"]
        assert k.kernarg_size == params[name]["param_size"]


def test_cubin_kernel_facts_match_the_source(cubins):
    (co,) = read(cubins["sm_90a"].path)
    k = co["scale"]
    assert [(a.offset, a.size, a.kind, a.name) for a in k.args] == [
        (0, 8, "param", None), (8, 8, "param", None), (16, 4, "param", None),
        (20, 4, "param", None), (24, 8, "param", None), (32, 1, "param", None)]
    assert (k.kernarg_size, k.shared_bytes, k.max_workgroup_size) == (33, 512, 128)
    assert co["_Z7boundedPi"].max_workgroup_size == 256
    big = co["_Z3big3BigPf"]
    assert [(a.offset, a.size) for a in big.args] == [(0, 160), (160, 8)] and big.kernarg_size == 168
    assert big.scratch_bytes == 256 and big.max_workgroup_size is None


def test_resource_report_flags_local_memory(cubins):
    (co,) = read(cubins["sm_90a"].path)
    assert resource_report(co["scale"]) == []
    (problem,) = resource_report(co["_Z3big3BigPf"])
    assert "256 bytes of local memory" in problem


def test_reqntid_from_ptx_is_the_required_block(require_tool, tmp_path):
    require_tool(NVCC)
    ptx = nvcc_ptx('extern "C" __global__ void k(int* p) { p[threadIdx.x] = 1; }', "sm_90a", tmp_path)
    ptx = re.sub(r"(\.entry k\([^)]*\))", r"\1\n.reqntid 64, 2, 1", ptx)
    (co,) = read(nvcc_cubin(ptx, "sm_90a", tmp_path / "ptx", ptx=True).path)
    assert co["k"].reqd_workgroup_size == (64, 2, 1)
    assert co["k"].max_workgroup_size == 128


@pytest.mark.parametrize("arch, sm", [("sm_90a", 90), ("sm_90", 90), ("sm_80", 80), ("sm_100a", 100), ("sm_120", 120)])
def test_cuda13_e_flags_and_nv_compat_give_the_arch(require_tool, tmp_path, arch, sm):
    require_tool(NVCC)
    path = nvcc_cubin('__global__ void k(int* p) { *p = 1; }', arch, tmp_path).path
    data = path.read_bytes()
    assert data[8] == 8                                      # ELF ABI version 8 (CUDA 13)
    assert (struct.unpack_from("<I", data, 48)[0] >> 8) & 0xFF == sm
    (co,) = read(path)
    assert co.arch == arch


def _cuda12_ptxas() -> str | None:
    """A CUDA 12 ptxas (triton's wheel bundles one), or None."""
    import importlib.util
    import shutil
    from pathlib import Path

    spec = importlib.util.find_spec("triton")
    candidates = [shutil.which("ptxas")]
    if spec and spec.origin:
        candidates.append(str(Path(spec.origin).parent / "backends" / "nvidia" / "bin" / "ptxas"))
    for c in candidates:
        if c and Path(c).is_file() and "release 12." in run([c, "--version"]).stdout:
            return c
    return None


def test_cuda12_abi7_cubin_reads(require_tool, tmp_path):
    """ptxas 12.x writes the older e_flags layout (SM in the low byte, 'a' = 0x800)."""
    require_tool(NVCC)
    ptxas = _cuda12_ptxas()
    if ptxas is None:
        pytest.skip("needs a CUDA 12 ptxas (e.g. triton's) to write an ABI-7 cubin")
    ptx = nvcc_ptx("__global__ void k(int* p) { *p = 1; }", "sm_90a", tmp_path)
    (tmp_path / "k.ptx").write_text(re.sub(r"^\.version .*$", ".version 8.7", ptx, flags=re.M))
    run([ptxas, "-arch=sm_90a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")])
    data = (tmp_path / "k.cubin").read_bytes()
    assert data[8] == 7 and struct.unpack_from("<I", data, 48)[0] & 0xFFF == 0xD5A
    assert read(tmp_path / "k.cubin")[0].arch == "sm_90a"


def test_read_for_arch_runs_sm80_code_on_ampere_and_refuses_amd(cubins):
    path = cubins["sm_80"].path
    assert read_for_arch(path, "sm_86").arch == "sm_80"
    with pytest.raises(ArchNotFoundError, match=r"has sm_80; device is gfx942"):
        read_for_arch(path, "gfx942")
