"""AMD code objects built by clang-22 read back exactly as llvm-readobj and clang report them."""

from __future__ import annotations

import struct

import pytest

from _build import (BUNDLER, CLANG, READOBJ, amd_resource_remarks, amdgpu_metadata, compress_bundle,
                    hip_compile, offload_bundle, opencl_compile)
from pyhipattn.codeobj import read, read_for_arch, target_arch
from pyhipattn.codeobj.limits import resource_report

pytestmark = pytest.mark.tools

ARCHES = ("gfx942", "gfx950", "gfx1100")

SRC = r"""
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, 256)))
scale(float* __restrict__ out, const float* __restrict__ in, float s, int n) {
  __shared__ float buf[256];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  int i = t + __builtin_amdgcn_workgroup_id_x() * 256;
  buf[t] = i < n ? in[i] * s : 0.f;
  __builtin_amdgcn_s_barrier();
  if (i < n) out[i] = buf[255 - t];
}

extern "C" __global__ void spill(float* p, int n) {
  float a[256];
  for (int i = 0; i < 256; ++i) a[i] = p[i * n];
  float s = 0;
  for (int i = 0; i < n; ++i) s += a[(i * 7) & 255];
  p[0] = s;
}

extern "C" __global__ void hidden(int* out, char c) {
  const unsigned short* implicit = (const unsigned short*)__builtin_amdgcn_implicitarg_ptr();
  out[0] = implicit[6] + c;   // hidden_group_size_x: forces the hidden kernargs into the metadata
}

#if defined(__gfx942__) || defined(__gfx950__)
extern "C" __global__ void acc(float* p) {   // 10 AGPRs on CDNA
  asm volatile("; clobber" ::: "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9");
  p[0] = 1.f;
}
#endif

template <int N> __global__ void tmpl(double* p) { p[0] = N; }
template __global__ void tmpl<3>(double*);
"""

#: KernelInfo field -> metadata key.
FIELDS = {
    "symbol": ".symbol",
    "kernarg_size": ".kernarg_segment_size",
    "kernarg_align": ".kernarg_segment_align",
    "shared_bytes": ".group_segment_fixed_size",
    "scratch_bytes": ".private_segment_fixed_size",
    "vgpr_count": ".vgpr_count",
    "sgpr_count": ".sgpr_count",
    "agpr_count": ".agpr_count",
    "vgpr_spill_count": ".vgpr_spill_count",
    "sgpr_spill_count": ".sgpr_spill_count",
    "wavefront_size": ".wavefront_size",
    "max_workgroup_size": ".max_flat_workgroup_size",
}


@pytest.fixture(scope="module")
def raw(require_tool, tmp_path_factory):
    """One raw hsaco per arch, with clang's resource-usage remarks in ``.log``."""
    require_tool(CLANG)
    d = tmp_path_factory.mktemp("amd_raw")
    return {a: hip_compile(SRC, [a], d / a, remarks=True) for a in ARCHES}


@pytest.fixture(scope="module")
def multi(require_tool, tmp_path_factory):
    """An uncompressed offload bundle of all ARCHES."""
    require_tool(CLANG)
    return hip_compile(SRC, ARCHES, tmp_path_factory.mktemp("amd_bundle"), bundle=True).path


@pytest.mark.parametrize("arch", ARCHES)
def test_raw_hsaco_matches_llvm_readobj_metadata(raw, arch, require_tool):
    require_tool(READOBJ)
    meta = amdgpu_metadata(raw[arch].path)
    (co,) = read(raw[arch].path)
    assert (co.platform, co.arch, co.source) == ("amd", arch, str(raw[arch].path))
    assert meta["amdhsa.target"].endswith(arch)
    assert sorted(co.kernels) == sorted(km[".name"] for km in meta["amdhsa.kernels"])
    for km in meta["amdhsa.kernels"]:
        k = co[km[".name"]]
        assert {f: getattr(k, f) for f in FIELDS} == {f: km.get(key) for f, key in FIELDS.items()}
        assert [(a.offset, a.size, a.kind, a.name, a.address_space) for a in k.args] == [
            (a[".offset"], a[".size"], a[".value_kind"], a.get(".name"), a.get(".address_space")) for a in km[".args"]
        ]
        assert k.reqd_workgroup_size is None and k.arch == arch


@pytest.mark.parametrize("arch", ARCHES)
def test_raw_hsaco_matches_clang_resource_remarks(raw, arch):
    remarks = amd_resource_remarks(raw[arch].log)
    (co,) = read(raw[arch].path)
    assert sorted(remarks) == sorted(co.kernels)
    for name, r in remarks.items():
        k = co[name]
        vgprs, agprs = int(r["VGPRs"]), int(r["AGPRs"]) if "AGPRs" in r else None   # RDNA: no AGPRs
        if agprs:   # CDNA with AGPRs: .vgpr_count is the unified total, alignTo(VGPRs, 4) + AGPRs
            vgprs = (vgprs + 3) // 4 * 4 + agprs
        assert (k.vgpr_count, k.agpr_count, k.sgpr_count) == (vgprs, agprs, int(r["TotalSGPRs"]))
        assert (k.scratch_bytes, k.shared_bytes) == (int(r["ScratchSize"]), int(r["LDS Size"]))
        assert (k.vgpr_spill_count, k.sgpr_spill_count) == (int(r["VGPRs Spill"]), int(r["SGPRs Spill"]))


def test_kernel_facts_match_the_source(raw):
    (co,) = read(raw["gfx942"].path)
    k = co["scale"]
    assert [a.name for a in k.args] == ["out", "in", "s", "n"]   # -fhip-kernel-arg-name
    assert [(a.offset, a.size) for a in k.args] == [(0, 8), (8, 8), (16, 4), (20, 4)]
    assert (k.shared_bytes, k.max_workgroup_size, k.wavefront_size) == (1024, 256, 64)
    assert co["spill"].scratch_bytes >= 1024
    assert "_Z4tmplILi3EEvPd" in co.kernels and co["_Z4tmplILi3EEvPd"].symbol == "_Z4tmplILi3EEvPd.kd"
    (co1100,) = read(raw["gfx1100"].path)
    assert co1100["scale"].wavefront_size == 32 and "acc" not in co1100.kernels
    assert (co["acc"].agpr_count, co["acc"].vgpr_count) == (10, 14)   # 2 arch VGPRs -> 4, + 10


def test_hidden_kernargs_follow_the_explicit_ones(raw):
    k = read(raw["gfx942"].path)[0]["hidden"]
    assert [a.name for a in k.explicit_args] == ["out", "c"]
    assert k.explicit_kernarg_size == 9
    assert any(a.kind == "hidden_group_size_x" for a in k.args)
    assert k.kernarg_size > k.explicit_kernarg_size


def test_resource_report_flags_scratch_only_where_used(raw):
    (co,) = read(raw["gfx942"].path)
    assert resource_report(co["scale"], "gfx942") == []
    problems = resource_report(co["spill"], "gfx942")
    assert len(problems) == 1 and "scratch" in problems[0] and "spill" in problems[0]


def test_opencl_reqd_work_group_size_is_read(require_tool, tmp_path):
    require_tool(CLANG)
    src = """__kernel __attribute__((reqd_work_group_size(64, 2, 1)))
    void r(__global int* out, int n) { out[__builtin_amdgcn_workitem_id_x()] = n; }"""
    (co,) = read(opencl_compile(src, "gfx950", tmp_path).path)
    assert co.arch == "gfx950"
    assert co["r"].reqd_workgroup_size == (64, 2, 1)
    assert co["r"].max_workgroup_size == 128


def test_missing_target_falls_back_to_e_flags(raw):
    image = raw["gfx950"].path.read_bytes()
    renamed = image.replace(b"amdhsa.target", b"amdhsa.targeX", 1)   # same length: note stays valid
    (co,) = read(renamed)
    assert "amdhsa.target" not in co.metadata and co.arch == "gfx950"
    assert struct.unpack_from("<I", image, 48)[0] & 0xFF == 0x4F   # EF_AMDGPU_MACH_AMDGCN_GFX950


@pytest.mark.parametrize("spelling", [
    "amdgcn-amd-amdhsa--gfx942", "amdgpu9.42-amd-amdhsa-unknown-gfx942",
    "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx942",
])
def test_both_target_spellings_name_the_arch(spelling):
    assert target_arch(spelling) == "gfx942"


def test_multi_arch_bundle_has_one_entry_per_arch(raw, multi):
    objs = read(multi)
    assert sorted(co.arch for co in objs) == sorted(ARCHES)
    for co in objs:
        assert co.source == f"{multi}#hipv4-amdgcn-amd-amdhsa--{co.arch}"
        assert co.image.startswith(b"\x7fELF")
        assert co.kernels == read(raw[co.arch].path)[0].kernels


def test_read_for_arch_picks_the_device_entry(multi):
    assert read_for_arch(multi, "gfx950").arch == "gfx950"
    assert read_for_arch(multi, "gfx942:sramecc+:xnack-").arch == "gfx942"
    assert read_for_arch(multi, "amdgcn-amd-amdhsa--gfx1100").arch == "gfx1100"


@pytest.mark.parametrize("version", [2, 3])
def test_clang_compressed_bundle_reads_like_the_uncompressed_one(require_tool, tmp_path, multi, version):
    require_tool(CLANG)
    path = hip_compile(SRC, ARCHES, tmp_path, bundle=True, compress=True, compress_version=version).path
    data = path.read_bytes()
    assert data[:4] == b"CCOB"
    assert struct.unpack_from("<HH", data, 4) == (version, 1)   # clang-22 compresses with zstd
    got = {co.arch: co.kernels for co in read(path)}
    assert got == {co.arch: co.kernels for co in read(multi)}


@pytest.mark.parametrize("method", ["zlib", "zstd"])
@pytest.mark.parametrize("version", [1, 2, 3])
def test_every_ccob_version_and_method_reads(multi, version, method):
    data = compress_bundle(multi.read_bytes(), version=version, method=method)
    got = {co.arch: co.image for co in read(data)}
    assert got == {co.arch: co.image for co in read(multi)}


def test_concatenated_ccob_bundles_are_all_read(raw, require_tool, tmp_path):
    require_tool(BUNDLER)
    one = offload_bundle({"hipv4-amdgcn-amd-amdhsa--gfx942": raw["gfx942"].path}, tmp_path / "a.bundle")
    two = offload_bundle({"hipv4-amdgcn-amd-amdhsa--gfx1100": raw["gfx1100"].path}, tmp_path / "b.bundle")
    data = compress_bundle(one.read_bytes(), version=3) + compress_bundle(two.read_bytes(), version=2) + bytes(64)
    assert [co.arch for co in read(data)] == ["gfx942", "gfx1100"]


@pytest.mark.parametrize("compress", [False, True])
def test_clang_offload_bundler_output_reads(raw, require_tool, tmp_path, compress):
    require_tool(BUNDLER)
    entries = {f"hipv4-amdgcn-amd-amdhsa--{a}": raw[a].path for a in ("gfx942", "gfx1100")}
    out = offload_bundle(entries, tmp_path / "b.co", compress=compress)
    assert out.read_bytes()[:4] == (b"CCOB" if compress else b"__CL")
    objs = read(out)
    assert sorted(co.arch for co in objs) == ["gfx1100", "gfx942"]
    for co in objs:
        assert co.image == raw[co.arch].path.read_bytes()
