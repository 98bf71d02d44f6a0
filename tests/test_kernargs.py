"""pyhipattn.kernargs: struct layouts read from C headers, packing, checks against metadata.

The layouts are checked twice: against cffi's own offsets, and (tests marked ``tools``)
against the metadata of kernels that clang-22 (gfx942 hsaco) and nvcc (sm_90a cubin) build
from the same header.  The metadata is read by small local helpers, independent of
``pyhipattn.codeobj``.
"""

from __future__ import annotations

import importlib
import os
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import cffi
import msgpack
import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from pyhipattn.codeobj.model import KernelArg, KernelInfo
from pyhipattn.errors import CodeObjectError, KernargMismatchError
from pyhipattn.kernargs import (
    Field, StructLayout, address_of, arg_packer, check_layout, kernarg_buffer_size, layout_from_header,
    pack_by_names, pack_positional, read_header, triton_layout,
)

REPO = Path(__file__).resolve().parents[1]
COMMON_HEADER = REPO / "kernels" / "src" / "common" / "pyhipattn_kernargs.h"


# ----------------------------------------------------------------------------- helpers

def require_tool(*candidates: str) -> str:
    """The first tool found (PATH, $CUDA_HOME/bin, triton's tools: the package's probe); skip when
    none is, fail instead under PYHIPATTN_REQUIRE_TOOLS=1."""
    from pyhipattn.codeobj.isa import find_tool

    found = find_tool(tuple(candidates))
    if found:
        return found
    message = f"none of {', '.join(candidates)} is installed"
    if os.environ.get("PYHIPATTN_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{message} (PYHIPATTN_REQUIRE_TOOLS=1)")
    pytest.skip(message)


def require_module(name: str):
    """Import ``name``; skip when it is missing, fail instead under PYHIPATTN_REQUIRE_TOOLS=1."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get("PYHIPATTN_REQUIRE_TOOLS") == "1":
            pytest.fail(f"Python package {name} is required (PYHIPATTN_REQUIRE_TOOLS=1) but missing")
        pytest.skip(f"Python package {name} is not installed")


def kernel(args: list[tuple], name: str = "k", kernarg_size: int | None = None, align: int = 8) -> KernelInfo:
    """A KernelInfo from ``(offset, size, kind[, name])`` tuples."""
    kargs = tuple(KernelArg(*a[:3], name=a[3] if len(a) > 3 else None) for a in args)
    end = max((a.offset + a.size for a in kargs), default=0)
    return KernelInfo(name=name, symbol=name, arch="gfx942", kernarg_size=kernarg_size or end,
                      kernarg_align=align, args=kargs)


def write_header(tmp_path: Path, body: str, name: str = "h.h") -> Path:
    path = tmp_path / name
    path.write_text(f"#include <stdint.h>\n// pyhipattn:begin\n{body}\n// pyhipattn:end\n")
    return path


def amd_kernels(path: Path) -> dict[str, KernelInfo]:
    """Kernels of an AMD code object, from its NT_AMDGPU_METADATA note (msgpack)."""
    with open(path, "rb") as fh:
        notes = [s.data() for s in ELFFile(fh).iter_sections() if s["sh_type"] == "SHT_NOTE"]
    for data in notes:
        pos = 0
        while pos < len(data):
            namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
            name_at = pos + 12
            desc_at = name_at + (namesz + 3) // 4 * 4
            if data[name_at:name_at + namesz].rstrip(b"\0") == b"AMDGPU" and ntype == 32:
                meta = msgpack.unpackb(data[desc_at:desc_at + descsz])
                return {k[".name"]: _amd_kernel(k) for k in meta["amdhsa.kernels"]}
            pos = desc_at + (descsz + 3) // 4 * 4
    raise AssertionError(f"{path} has no AMDGPU metadata note")


def _amd_kernel(k: dict) -> KernelInfo:
    args = tuple(KernelArg(a[".offset"], a[".size"], a[".value_kind"], a.get(".name"), a.get(".address_space"))
                 for a in k.get(".args", []))
    return KernelInfo(name=k[".name"], symbol=k[".symbol"], arch="gfx942", args=args,
                      kernarg_size=k[".kernarg_segment_size"], kernarg_align=k[".kernarg_segment_align"])


def cubin_kernels(path: Path) -> dict[str, KernelInfo]:
    """Kernels of a cubin, from the KPARAM_INFO (0x17) and CBANK_PARAM_SIZE (0x19) records."""
    kernels = {}
    with open(path, "rb") as fh:
        for section in ELFFile(fh).iter_sections():
            if not section.name.startswith(".nv.info."):
                continue
            data, pos, params, cbank = section.data(), 0, [], 0
            while pos < len(data):
                fmt, attr = data[pos], data[pos + 1]
                if fmt == 0x04:  # u16 size + payload
                    (size,) = struct.unpack_from("<H", data, pos + 2)
                    if attr == 0x17:
                        _index, ordinal, offset, flags = struct.unpack_from("<IHHI", data, pos + 4)
                        params.append((ordinal, KernelArg(offset, (flags >> 18) & 0x3FFF, "param")))
                    pos += 4 + size
                else:  # 0x01: no value; 0x02, 0x03: a value in the next two bytes
                    if fmt == 0x03 and attr == 0x19:
                        (cbank,) = struct.unpack_from("<H", data, pos + 2)
                    pos += {0x01: 2, 0x02: 4, 0x03: 4}[fmt]
            name = section.name[len(".nv.info."):]
            kernels[name] = KernelInfo(name=name, symbol=name, arch="sm_90a", kernarg_size=cbank, kernarg_align=8,
                                       args=tuple(a for _, a in sorted(params, key=lambda p: p[0])))
    return kernels


# ----------------------------------------------------------------------------- compiled kernels

TEST_HEADER = """
// pyhipattn:begin
struct mixed_args { int8_t a; int16_t b; int64_t c; double d; int32_t e; const void* p; uint8_t f; };
struct swapped_args { uint32_t narrow; uint64_t wide; float f; };   // fields of wide_first, out of order
struct add_missing_alpha { const void* x; const void* y; void* out; uint32_t n; };
// pyhipattn:end
"""

TEST_KERNELS = r"""
#ifdef __HIP__
#define __global__ __attribute__((global))
#endif
#include "pyhipattn_kernargs.h"
#include "test_args.h"

extern "C" __global__ void add_by_value(add_args a) { if (a.n) ((float*)a.out)[0] = a.alpha * ((const float*)a.x)[0] + ((const float*)a.y)[0]; }
extern "C" __global__ void add_fields(const float* x, const float* y, float* out, uint32_t n, float alpha) { if (n) out[0] = alpha * x[0] + y[0]; }
extern "C" __global__ void mixed_by_value(mixed_args m) { if (m.a) ((double*)m.p)[0] = m.b + m.c + m.d + m.e + m.f; }
extern "C" __global__ void mixed_fields(int8_t a, int16_t b, int64_t c, double d, int32_t e, const void* p, uint8_t f) { if (a) ((double*)p)[0] = b + c + d + e + f; }
extern "C" __global__ void wide_first(uint64_t wide, uint32_t narrow, float f) { if (narrow) ((float*)wide)[0] = f; }
extern "C" __global__ void triton_like(const void* q, float scale, int32_t n, int64_t stride, const void* gs, const void* ps) { if (n) ((float*)q)[stride] = scale; }
#ifdef __HIP__
extern "C" __global__ void add_hidden(const float* x, const float* y, float* out, uint32_t n, float alpha) { if (n) out[0] = alpha * __builtin_amdgcn_workgroup_size_x(); }
#endif
"""


def write_test_header(directory: Path) -> Path:
    path = directory / "test_args.h"
    path.write_text("#include <stdint.h>\n" + TEST_HEADER)
    return path


def _build(tmp: Path, compiler: str) -> dict[str, KernelInfo]:
    write_test_header(tmp)
    include = ["-I", str(COMMON_HEADER.parent), "-I", str(tmp)]
    if compiler == "hip":
        src, out = tmp / "k.hip", tmp / "k.co"
        cmd = [require_tool("clang-22"), "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only",
               "--no-gpu-bundle-output", "-nogpulib", "-nogpuinc", "-O3", *include, "-o", str(out), str(src)]
    else:
        src, out = tmp / "k.cu", tmp / "k.cubin"
        cmd = [require_tool("nvcc"), "-cubin", "-gencode=arch=compute_90a,code=sm_90a", *include,
               "-o", str(out), str(src)]
    src.write_text(TEST_KERNELS)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return amd_kernels(out) if compiler == "hip" else cubin_kernels(out)


@pytest.fixture(scope="module", params=["hip", "cuda"])
def compiled(request, tmp_path_factory) -> tuple[dict[str, KernelInfo], Path]:
    """(kernels by name, test header path) built by clang-22 for gfx942 or by nvcc for sm_90a."""
    tmp = tmp_path_factory.mktemp(request.param)
    return _build(tmp, request.param), tmp / "test_args.h"


# ----------------------------------------------------------------------------- headers

def test_common_header_declares_add_args_and_its_block_size():
    header = read_header(COMMON_HEADER)
    assert header["add_args"] == StructLayout("add_args", 32, 8, (
        Field("x", 0, 8, "ptr"), Field("y", 8, 8, "ptr"), Field("out", 16, 8, "ptr"),
        Field("n", 24, 4, "u32"), Field("alpha", 28, 4, "f32")), str(COMMON_HEADER))
    assert header.constants == {"ADD_BLOCK": 256}


def test_layout_offsets_and_sizes_are_cffis(tmp_path):
    path = write_test_header(tmp_path)
    ffi = cffi.FFI()
    ffi.cdef(TEST_HEADER.replace("// pyhipattn:begin", "").replace("// pyhipattn:end", ""))
    for name in ("mixed_args", "swapped_args", "add_missing_alpha"):
        layout = layout_from_header(path, name)
        assert (layout.size, layout.align) == (ffi.sizeof(f"struct {name}"), ffi.alignof(f"struct {name}"))
        for f in layout.fields:
            assert f.offset == ffi.offsetof(f"struct {name}", f.name)
            assert f.size == ffi.sizeof(ffi.typeof(f"struct {name}").fields[layout.names.index(f.name)][1].type)


def test_header_kinds_cover_every_accepted_type(tmp_path):
    path = write_header(tmp_path, """struct all { int8_t a; uint8_t b; int16_t c; uint16_t d; int32_t e; uint32_t f;
        int64_t g; uint64_t h; int i; unsigned int j; float k; double l; void* m; const void* n; };""")
    kinds = [f.kind for f in layout_from_header(path, "all").fields]
    assert kinds == ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "i32", "u32", "f32", "f64", "ptr", "ptr"]


def test_typedef_structs_several_regions_comments_and_defines(tmp_path):
    path = tmp_path / "multi.h"
    path.write_text("""#pragma once
struct outside { int not_read; };
// pyhipattn:begin
#define BLOCK_M 0x80   // hex, with a comment
#define SPLITS (4u)
typedef struct { uint32_t n; /* inline comment */ float scale; } tiny_args;
// pyhipattn:end
template <int N> struct cxx_only {};
// pyhipattn:begin  (second region)
/* a block comment
   over lines */
struct second_args { const void* q; int64_t len; };
// pyhipattn:end
""")
    header = read_header(path)
    assert sorted(header.structs) == ["second_args", "tiny_args"]
    assert header.constants == {"BLOCK_M": 128, "SPLITS": 4}
    assert layout_from_header(path, "tiny_args").names == ("n", "scale")
    assert layout_from_header(path, "second_args").size == 16


def test_header_is_reparsed_when_it_changes(tmp_path):
    path = write_header(tmp_path, "struct s { uint32_t a; };")
    first = layout_from_header(path, "s")
    assert layout_from_header(path, "s") is first
    write_header(tmp_path, "struct s { uint64_t a; uint32_t b; };")
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert layout_from_header(path, "s").names == ("a", "b")


def test_unknown_struct_lists_the_declared_ones():
    with pytest.raises(KeyError, match="declares no struct 'nope'; it declares: add_args"):
        layout_from_header(COMMON_HEADER, "nope")


@pytest.mark.parametrize("text, message", [
    ("struct s { int a; };\n", r"has no '// pyhipattn:begin' \.\.\. '// pyhipattn:end' region"),
    ("// pyhipattn:begin\nstruct s { int a; };\n", r"h\.h:1: '// pyhipattn:begin' has no '// pyhipattn:end'"),
    ("// pyhipattn:end\n", r"h\.h:1: '// pyhipattn:end' without a '// pyhipattn:begin'"),
    ("// pyhipattn:begin\n// pyhipattn:begin\n", r"h\.h:2: '// pyhipattn:begin' inside the region opened at line 1"),
    ("// pyhipattn:begin\n#include <x.h>\n// pyhipattn:end\n", r"h\.h:2: .*only '#define NAME <integer>'"),
    ("// pyhipattn:begin\n#define X (1 << 3)\n// pyhipattn:end\n", r"h\.h:2: .*only '#define NAME <integer>'"),
    ("// pyhipattn:begin\nstruct s {\n  int a\n};\n// pyhipattn:end\n", r"h\.h:4: cffi cannot parse"),
    ("// pyhipattn:begin\nstruct s { index_t a; };\n// pyhipattn:end\n", r"h\.h \(an unknown type name\?\): cffi"),
    ("// pyhipattn:begin\nstruct s { int a; int a; };\n// pyhipattn:end\n", r"h\.h: struct s: .*duplicate field name"),
])
def test_malformed_headers_name_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "h.h"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_header(path)


@pytest.mark.parametrize("decl, shown", [
    ("long a;", "'long'"),
    ("uint32_t a[4];", "'uint32_t[4]'"),
    ("uint32_t a : 3;", "(bit-field)"),
    ("struct inner { int x; } a;", "'struct inner'"),
    ("char a;", "'char'"),
    ("size_t a;", "'size_t'"),
])
def test_fields_outside_the_convention_are_refused(tmp_path, decl, shown):
    path = write_header(tmp_path, f"struct s {{ {decl} }};")
    with pytest.raises(ValueError, match=rf"field s\.a has type .*{re.escape(shown)}.*; accepted: pointers and"):
        read_header(path)


# ----------------------------------------------------------------------------- layouts

def test_layout_rejects_unknown_kinds_and_overlaps():
    with pytest.raises(ValueError, match="kind 'i24' with size 3"):
        StructLayout("s", 4, 4, (Field("a", 0, 3, "i24"),))
    with pytest.raises(ValueError, match="s.b at offset 2 overlaps"):
        StructLayout("s", 8, 4, (Field("a", 0, 4, "i32"), Field("b", 2, 4, "i32")))
    with pytest.raises(ValueError, match="struct s is 4 bytes but its fields end at 8"):
        StructLayout("s", 4, 4, (Field("a", 4, 4, "i32"),))


def test_triton_layout_uses_natural_alignment_and_appends_scratch_pointers():
    layout = triton_layout([("Q", "*bf16"), ("sm_scale", "fp32"), ("BLOCK", "constexpr"), ("flag", "i1"),
                            ("n", "i64"), ("h", "fp16")])
    assert [(f.name, f.offset, f.kind) for f in layout.fields] == [
        ("Q", 0, "ptr"), ("sm_scale", 8, "f32"), ("flag", 12, "i8"), ("n", 16, "i64"), ("h", 24, "f16"),
        ("global_scratch", 32, "ptr"), ("profile_scratch", 40, "ptr")]
    assert (layout.size, layout.align) == (48, 8)
    assert layout.pointer_slots == (("Q", 0), ("global_scratch", 32), ("profile_scratch", 40))


@pytest.mark.parametrize("ttype", ["bf16", "nvTmaDesc", "i128", "fp8e4nv"])
def test_triton_layout_refuses_types_it_cannot_pack(ttype):
    with pytest.raises(ValueError, match=rf"Triton parameter 'x' has type '{ttype}'; accepted: pointers"):
        triton_layout([("x", ttype)])


# ----------------------------------------------------------------------------- layout packer

ADD = read_header(COMMON_HEADER)["add_args"]


class TorchLike:
    def __init__(self, address: int) -> None:
        self.address = address

    def data_ptr(self) -> int:
        return self.address


@dataclass
class CupyMemory:
    ptr: int


@dataclass
class CupyLike:
    data: CupyMemory


@dataclass
class NumbaLike:
    address: int

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"data": (self.address, False), "shape": (1,), "typestr": "<f4", "version": 3}


def test_pack_by_position_and_by_name_round_trips():
    packer = ADD.packer()
    data = packer.pack(0x1000, 0x2000, 0x3000, 7, 0.5)
    assert len(data) == ADD.size == 32
    assert struct.unpack("<QQQIf", data) == (0x1000, 0x2000, 0x3000, 7, 0.5)
    assert packer.pack(x=0x1000, y=0x2000, out=0x3000, n=7, alpha=0.5) == data
    assert packer.pack(0x1000, 0x2000, out=0x3000, alpha=0.5, n=7) == data
    assert packer.unpack(data) == {"x": 0x1000, "y": 0x2000, "out": 0x3000, "n": 7, "alpha": 0.5}


def test_pack_into_writes_at_an_offset_and_nowhere_else():
    buf = bytearray(b"\xff" * 48)
    ADD.packer().pack_into(buf, 8, 1, 2, 3, 4, 1.0)
    assert buf[:8] == b"\xff" * 8 and buf[40:] == b"\xff" * 8
    assert struct.unpack_from("<QQQIf", buf, 8) == (1, 2, 3, 4, 1.0)


def test_pack_pads_gaps_with_zeros(tmp_path):
    layout = layout_from_header(write_header(tmp_path, "struct s { uint8_t a; double d; uint16_t e; };"), "s")
    data = layout.packer().pack(0xAB, -2.0, 0xBEEF)
    assert data == struct.pack("<B7xdH6x", 0xAB, -2.0, 0xBEEF)


@pytest.mark.parametrize("obj", [TorchLike(0xA000), CupyLike(CupyMemory(0xA000)), CupyMemory(0xA000),
                                 NumbaLike(0xA000), np.uint64(0xA000)], ids=lambda o: type(o).__name__)
def test_pointer_fields_take_framework_arrays(obj):
    data = ADD.packer().pack(obj, None, 0xA000, 1, 1.0)
    assert struct.unpack_from("<QQQ", data) == (0xA000, 0, 0xA000)
    assert address_of(obj) == 0xA000


@pytest.mark.parametrize("values, error, message", [
    ({"n": 1.5}, TypeError, r"add_args\.n \(u32\) must be an int in \[0, 4294967295\]; got 1\.5 \(float\)"),
    ({"n": -1}, ValueError, r"add_args\.n \(u32\) must be an int in \[0, 4294967295\]; got -1"),
    ({"n": 2**32}, ValueError, r"add_args\.n \(u32\) must be an int"),
    ({"alpha": "1"}, TypeError, r"add_args\.alpha \(f32\) must be a float or an int; got '1' \(str\)"),
    ({"alpha": 1e300}, ValueError, r"add_args\.alpha \(f32\) is out of range for f32"),
    ({"x": 1.0}, TypeError, r"add_args\.x must be a device pointer: an int address, None .*; got 1\.0 \(float\)"),
    ({"x": np.zeros(4)}, TypeError, r"add_args\.x must be a device pointer: .*\(ndarray\)"),
    ({"x": True}, TypeError, r"add_args\.x must be a device pointer"),
    ({"x": -8}, ValueError, r"add_args\.x \(ptr\) must be an address in \[0, 2\*\*64\); got -8"),
])
def test_bad_field_values_name_the_field_and_what_it_accepts(values, error, message):
    good = {"x": 1, "y": 2, "out": 3, "n": 4, "alpha": 1.0}
    with pytest.raises(error, match=message):
        ADD.packer().pack(**{**good, **values})


@pytest.mark.parametrize("args, kwargs, message", [
    ((1, 2, 3), {}, r"struct add_args takes 5 arguments \(x, y, out, n, alpha\), got 3"),
    ((1, 2, 3, 4, 5.0, 6), {}, r"takes 5 arguments .*got 6"),
    ((), {"x": 1, "y": 2, "out": 3, "n": 4}, r"struct add_args is missing 'alpha'; fields: x, y, out, n, alpha"),
    ((), {"x": 1, "y": 2, "out": 3, "n": 4, "alpha": 1.0, "beta": 2}, r"has no field 'beta'; fields: x, y"),
    ((1,), {"x": 1, "y": 2, "out": 3, "n": 4, "alpha": 1.0}, r"'x' given both by position and by name"),
])
def test_wrong_field_sets_raise_typeerror_listing_the_fields(args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        ADD.packer().pack(*args, **kwargs)


def test_packer_is_built_once_per_layout():
    assert ADD.packer() is ADD.packer()
    assert ADD.pointer_slots == (("x", 0), ("y", 8), ("out", 16))


# ----------------------------------------------------------------------------- check_layout

ADD_FIELDS = [(0, 8, "global_buffer"), (8, 8, "global_buffer"), (16, 8, "global_buffer"), (24, 4, "by_value"),
              (28, 4, "by_value")]


def test_check_layout_accepts_matching_fields_and_ignores_hidden_args():
    hidden = [(32, 4, "hidden_block_count_x"), (40, 8, "hidden_global_offset_x")]
    check_layout(ADD, kernel(ADD_FIELDS + hidden, kernarg_size=288))


def test_check_layout_accepts_a_struct_taken_by_value():
    check_layout(ADD, kernel([(0, 32, "by_value")]))


def test_check_layout_lists_every_differing_field_and_the_total_size():
    args = [(0, 8, "global_buffer"), (8, 4, "by_value"), (16, 8, "global_buffer"), (24, 8, "by_value")]
    with pytest.raises(KernargMismatchError) as info:
        check_layout(ADD, kernel(args, name="add"))
    message = str(info.value)
    assert message.startswith(f"struct add_args ({COMMON_HEADER}) does not match kernel add (gfx942):")
    assert "field 1 'y': struct has offset 8 size 8, metadata has offset 8 size 4" in message
    assert "field 3 'n': struct has offset 24 size 4, metadata has offset 24 size 8" in message
    assert "field 4 'alpha': struct has offset 28 size 4, metadata has no argument" in message
    assert "field 0" not in message and "field 2" not in message
    assert "total size" not in message  # 32 bytes on both sides


def test_check_layout_reports_extra_kernel_args_and_size():
    with pytest.raises(KernargMismatchError, match=r"(?s)argument 5 'beta': struct has no field, metadata has "
                                                   r"offset 32 size 4.*total size: struct is 32 bytes, .* take 40"):
        check_layout(ADD, kernel(ADD_FIELDS + [(32, 4, "by_value", "beta")]))


def test_check_layout_reports_a_by_value_struct_of_another_size():
    with pytest.raises(KernargMismatchError, match=r"one argument at offset 0 of 24 bytes .*struct is 32 bytes"):
        check_layout(ADD, kernel([(0, 24, "by_value")]))


def test_check_layout_mentions_other_names_only_as_notes():
    named = [(*a, n) for a, n in zip(ADD_FIELDS, ["R", "Q", "K", "n", "scale"])]
    check_layout(ADD, kernel(named))  # names alone never fail
    with pytest.raises(KernargMismatchError, match=r"note: argument 0 is named 'R' in the metadata, 'x' in the struct"):
        check_layout(ADD, kernel(named + [(32, 8, "by_value", "extra")]))


# ----------------------------------------------------------------------------- metadata packing

AITER_LIKE = kernel([
    (0, 8, "global_buffer", "R"), (8, 8, "by_value", "pad"), (16, 8, "global_buffer", "Q"), (24, 8, "by_value", "pad"),
    (32, 4, "by_value", "scalar"), (36, 12, "by_value", "pad"), (48, 4, "by_value", "s_seq_len"),
    (52, 12, "by_value", "_p3"), (64, 8, "by_value", "s_offset"),
], name="fmha_fwd", kernarg_size=80)


def test_pack_by_names_fills_pads_with_zeros_and_keeps_trailing_padding():
    data = pack_by_names(AITER_LIKE, {"R": TorchLike(0x100), "Q": 0x200, "scalar": 0.125, "s_seq_len": 4096,
                                      "s_offset": -1})
    assert len(data) == 80 == kernarg_buffer_size(AITER_LIKE)
    assert struct.unpack("<Q8xQ8xf12xI12xq8x", data) == (0x100, 0x200, 0.125, 4096, -1)


def test_pack_by_names_lists_missing_and_unknown_names():
    with pytest.raises(ValueError, match=r"kernel fmha_fwd: missing 'scalar', 's_offset'; unknown 'pad', 'scale'; "
                                         r"it takes: R, Q, scalar, s_seq_len, s_offset"):
        pack_by_names(AITER_LIKE, {"R": 1, "Q": 2, "s_seq_len": 3, "scale": 1.0, "pad": 0})


def test_pack_by_names_refuses_kernels_without_names():
    with pytest.raises(ValueError, match="metadata names none of its arguments; pack it with pack_positional"):
        pack_by_names(kernel([(0, 8, "param"), (8, 4, "param")]), {})


def test_pack_by_names_refuses_duplicate_names():
    dup = kernel([(0, 4, "by_value", "n"), (4, 4, "by_value", "n")])
    with pytest.raises(ValueError, match="names 'n' more than once"):
        pack_by_names(dup, {"n": 1})


def test_pack_by_names_zero_fills_unnamed_args():
    mixed = kernel([(0, 8, "global_buffer", "out"), (8, 4, "by_value")])
    assert struct.unpack("<QI", pack_by_names(mixed, {"out": 5})) == (5, 0)


CUBIN_ADD = KernelInfo(name="add", symbol="add", arch="sm_90a", kernarg_size=34, kernarg_align=8,
                       args=tuple(KernelArg(o, s, "param") for o, s in [(0, 8), (8, 8), (16, 4), (20, 4), (24, 8), (32, 2)]))


def test_pack_positional_encodes_untyped_params_by_value_type():
    data = pack_positional(CUBIN_ADD, [TorchLike(0x10), -1, 7, -2.5, 0.25, 1.5])
    assert len(data) == 34
    assert struct.unpack("<QQIfde", data) == (0x10, 2**64 - 1, 7, -2.5, 0.25, 1.5)
    assert struct.unpack_from("<i", data, 16) == (7,)
    assert pack_positional(CUBIN_ADD, [0, 0, -1, 0, np.int64(3), np.float32(0.5)])[16:20] == b"\xff" * 4


def test_pack_positional_counts_args_and_names_them():
    named = kernel([(*a, n) for a, n in zip(ADD_FIELDS, ["x", "y", "out", "n", "alpha"])], name="add")
    with pytest.raises(TypeError, match=r"^kernel add takes 5 arguments \(x, y, out, n, alpha\), got 3$"):
        pack_positional(named, [1, 2, 3])
    with pytest.raises(TypeError, match=r"kernel add takes 6 arguments \(arg0, arg1, arg2, arg3, arg4, arg5\), got 0"):
        pack_positional(CUBIN_ADD, [])


def test_pack_positional_skips_pads():
    assert len(arg_packer(AITER_LIKE).names) == 5
    data = pack_positional(AITER_LIKE, [1, 2, 0.5, 3, 4])
    assert struct.unpack("<Q8xQ8xf12xI12xq8x", data) == (1, 2, 0.5, 3, 4)


@pytest.mark.parametrize("index, value, error, message", [
    (2, "7", TypeError, r"kernel add argument arg2 \(4-byte value\) takes an int or a float; got '7' \(str\)"),
    (2, TorchLike(1), TypeError, r"kernel add argument arg2 \(4-byte value\) takes an int or a float"),
    (2, 2**32, ValueError, r"kernel add argument arg2 \(u32\) must be an int in \[0, 4294967295\]; got 4294967296"),
    (2, -2**31 - 1, ValueError, r"kernel add argument arg2 \(i32\) must be an int in \[-2147483648, 2147483647\]"),
    (5, 1e10, ValueError, r"kernel add argument arg5 \(f16\) is out of range for f16"),
])
def test_pack_positional_errors_name_the_argument(index, value, error, message):
    args = [0, 0, 0, 0.0, 0.0, 0.0]
    args[index] = value
    with pytest.raises(error, match=message):
        pack_positional(CUBIN_ADD, args)


def test_pointer_args_refuse_floats():
    with pytest.raises(TypeError, match=r"kernel fmha_fwd argument R must be a device pointer: .*got 1\.0 \(float\)"):
        pack_positional(AITER_LIKE, [1.0, 2, 0.5, 3, 4])


def test_one_byte_args_refuse_floats():
    with pytest.raises(TypeError, match=r"kernel k argument flag is a 1-byte value: it takes an int, got 1\.0"):
        pack_positional(kernel([(0, 1, "by_value", "flag")]), [1.0])


def test_struct_by_value_args_take_packed_bytes():
    by_value = kernel([(0, 32, "by_value")], name="add")
    packed = ADD.packer().pack(1, 2, 3, 4, 1.0)
    assert pack_positional(by_value, [packed]) == packed
    for wrong in (packed[:16], 5):
        with pytest.raises(TypeError, match=r"argument arg0 is a 32-byte value \(a struct by value\?\): pass bytes "
                                            r"of exactly 32 bytes"):
            pack_positional(by_value, [wrong])


def test_overlapping_metadata_args_are_refused():
    with pytest.raises(CodeObjectError, match="kernel k: metadata argument 1 at offset 4 overlaps the one before it"):
        arg_packer(kernel([(0, 8, "by_value"), (4, 4, "by_value")]))


@dataclass(frozen=True)
class TypedArg(KernelArg):
    """Metadata that states C types (older AMD code objects, readers that keep .type_name)."""

    type_name: str | None = None


def test_typed_metadata_refuses_floats_for_int_args():
    typed = KernelInfo(name="k", symbol="k", arch="gfx942", kernarg_size=16, kernarg_align=8, args=(
        TypedArg(0, 8, "by_value", "p", type_name="float*"), TypedArg(8, 4, "by_value", "n", type_name="int"),
        TypedArg(12, 4, "by_value", "s", type_name="float")))
    assert arg_packer(typed).pointer_slots == (("p", 0),)
    assert struct.unpack("<Qif", pack_by_names(typed, {"p": TorchLike(8), "n": -3, "s": 2})) == (8, -3, 2.0)
    with pytest.raises(TypeError, match=r"kernel k argument n \(i32\) must be an int in .*; got 1\.0 \(float\)"):
        pack_by_names(typed, {"p": 0, "n": 1.0, "s": 2.0})


def test_buffer_size_is_the_explicit_end_when_hidden_args_follow():
    with_hidden = kernel(ADD_FIELDS[:4] + [(32, 4, "hidden_block_count_x"), (40, 8, "hidden_global_offset_x")],
                         kernarg_size=288)
    assert kernarg_buffer_size(with_hidden) == 32  # 28 rounded up to the 8-byte kernarg alignment
    assert len(pack_positional(with_hidden, [1, 2, 3, 4])) == 32


def test_arg_packer_is_cached_per_kernel_object():
    assert arg_packer(AITER_LIKE) is arg_packer(AITER_LIKE)


# ----------------------------------------------------------------------------- real code objects

@pytest.mark.tools
@pytest.mark.parametrize("struct_name, kernel_name", [
    ("add_args", "add_fields"), ("mixed_args", "mixed_fields"), ("add_args", "add_by_value"),
    ("mixed_args", "mixed_by_value"),
])
def test_header_layout_matches_the_compiled_kernel(compiled, struct_name, kernel_name):
    kernels, test_header = compiled
    layout = layout_from_header(COMMON_HEADER if struct_name == "add_args" else test_header, struct_name)
    info = kernels[kernel_name]
    check_layout(layout, info)
    if kernel_name.endswith("_fields"):
        assert [(a.offset, a.size) for a in info.explicit_args] == [(f.offset, f.size) for f in layout.fields]
    else:
        assert [(a.offset, a.size) for a in info.explicit_args] == [(0, layout.size)]


@pytest.mark.tools
def test_swapped_fields_are_reported_against_the_compiled_kernel(compiled):
    kernels, test_header = compiled
    with pytest.raises(KernargMismatchError) as info:
        check_layout(layout_from_header(test_header, "swapped_args"), kernels["wide_first"])
    message = str(info.value)
    assert "field 0 'narrow': struct has offset 0 size 4, metadata has offset 0 size 8" in message
    assert "field 1 'wide': struct has offset 8 size 8, metadata has offset 8 size 4" in message
    assert "field 2 'f': struct has offset 16 size 4, metadata has offset 12 size 4" in message
    assert "total size: struct is 24 bytes" in message


@pytest.mark.tools
def test_missing_field_is_reported_against_the_compiled_kernel(compiled):
    kernels, test_header = compiled
    with pytest.raises(KernargMismatchError, match=r"(?s)argument 4: struct has no field, metadata has offset 28 "
                                                   r"size 4$"):
        check_layout(layout_from_header(test_header, "add_missing_alpha"), kernels["add_fields"])


@pytest.mark.tools
def test_triton_layout_matches_a_kernel_with_those_params(compiled):
    kernels, _ = compiled
    layout = triton_layout([("q", "*fp16"), ("scale", "fp32"), ("n", "i32"), ("stride", "i64")])
    check_layout(layout, kernels["triton_like"])


@pytest.mark.tools
def test_positional_packing_fills_the_compiled_kernels_offsets(compiled):
    kernels, test_header = compiled
    info = kernels["mixed_fields"]
    data = pack_positional(info, [-3, 300, -(2**40), 0.75, 12, TorchLike(0x1234), 255])
    assert len(data) == kernarg_buffer_size(info)
    mixed = layout_from_header(test_header, "mixed_args").packer()
    assert data == mixed.pack(-3, 300, -(2**40), 0.75, 12, 0x1234, 255)[:len(data)]


@pytest.mark.tools
def test_hidden_args_of_a_compiled_kernel_stay_out_of_the_buffer(tmp_path):
    info = _build(tmp_path, "hip")["add_hidden"]
    assert any(a.hidden for a in info.args) and info.kernarg_size > 32
    check_layout(ADD, info)
    assert kernarg_buffer_size(info) == 32
    assert pack_positional(info, [1, 2, 3, 4, 1.0]) == ADD.packer().pack(1, 2, 3, 4, 1.0)


NAMED_ASM = """
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl fmha_like
.p2align 8
.type fmha_like,@function
fmha_like:
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel fmha_like
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 1
  .amdhsa_accum_offset 4
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: fmha_like
    .symbol: fmha_like.kd
    .kernarg_segment_size: 80
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .sgpr_count: 8
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
    .wavefront_size: 64
    .args:
      - { .name: R, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
      - { .name: pad, .size: 8, .offset: 8, .value_kind: by_value }
      - { .name: Q, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global }
      - { .name: pad, .size: 8, .offset: 24, .value_kind: by_value }
      - { .name: scalar, .size: 4, .offset: 32, .value_kind: by_value }
      - { .name: pad, .size: 12, .offset: 36, .value_kind: by_value }
      - { .name: s_seq_len, .size: 4, .offset: 48, .value_kind: by_value }
      - { .name: pad, .size: 12, .offset: 52, .value_kind: by_value }
...
.end_amdgpu_metadata
"""


@pytest.mark.tools
def test_pack_by_names_on_an_assembled_kernel_with_named_args(tmp_path):
    src, obj = tmp_path / "k.s", tmp_path / "k.o"
    src.write_text(NAMED_ASM)
    subprocess.run([require_tool("clang-22"), "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
                    "-c", "-o", str(obj), str(src)], check=True, capture_output=True)
    info = amd_kernels(obj)["fmha_like"]
    data = pack_by_names(info, {"R": CupyLike(CupyMemory(0xDEAD00)), "Q": 0xBEEF00, "scalar": 0.125, "s_seq_len": 77})
    assert len(data) == 80
    assert struct.unpack("<Q8xQ8xf12xI12x16x", data) == (0xDEAD00, 0xBEEF00, 0.125, 77)
    assert arg_packer(info).pointer_slots == (("R", 0), ("Q", 16))


@pytest.mark.tools
@pytest.mark.parametrize("backend", ["cuda", "hip"])
def test_triton_layout_matches_a_triton_compiled_kernel(backend, tmp_path):
    triton = require_module("triton")
    tl = triton.language
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def store_scaled(Q, scale, n, stride, flag, BLOCK: tl.constexpr):
        if flag != 0:
            tl.store(Q + tl.program_id(0) * stride, scale + n)

    signature = {"Q": "*fp32", "scale": "fp32", "n": "i32", "stride": "i64", "flag": "i1", "BLOCK": "constexpr"}
    target = GPUTarget("cuda", 90, 32) if backend == "cuda" else GPUTarget("hip", "gfx942", 64)
    compiled = triton.compile(ASTSource(store_scaled, signature, constexprs={"BLOCK": 16}), target=target)
    path = tmp_path / "kernel.bin"
    path.write_bytes(compiled.asm["cubin" if backend == "cuda" else "hsaco"])
    info = (cubin_kernels if backend == "cuda" else amd_kernels)(path)[compiled.metadata.name]
    layout = triton_layout(signature)
    check_layout(layout, info)
    assert layout.names[-2:] == ("global_scratch", "profile_scratch") and layout.size == 48
