"""Malformed input raises CodeObjectError naming the file and the problem, never anything else."""

from __future__ import annotations

import random
import struct

import pytest

from _build import CLANG, compress_bundle, hip_compile
from pyhipattn.codeobj import read, read_for_arch
from pyhipattn.errors import ArchNotFoundError, CodeObjectError

SRC = 'extern "C" __global__ void k(float* p, int n) { p[n] = 1.f; }'


@pytest.fixture(scope="module")
def built(require_tool, tmp_path_factory):
    require_tool(CLANG)
    d = tmp_path_factory.mktemp("err")
    return {
        "hsaco": hip_compile(SRC, ["gfx942"], d / "raw").path,
        "bundle": hip_compile(SRC, ["gfx942", "gfx950"], d / "bundle", bundle=True).path,
    }


def test_random_bytes_are_not_a_code_object(tmp_path):
    path = tmp_path / "noise.co"
    path.write_bytes(random.Random(0).randbytes(4096))
    with pytest.raises(CodeObjectError, match=r"noise\.co is not a code object.*accepted are ELF"):
        read(path)


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "empty.co").write_bytes(b"")
    with pytest.raises(CodeObjectError, match="empty.co is not a code object"):
        read(tmp_path / "empty.co")
    with pytest.raises(CodeObjectError, match="missing.co: cannot read"):
        read(tmp_path / "missing.co")


def test_host_elf_is_refused_with_its_machine():
    with pytest.raises(CodeObjectError, match=r"/bin/ls is an ELF for e_machine 0x3e; accepted are AMDGPU"):
        read("/bin/ls")


@pytest.mark.tools
def test_truncated_hsaco_at_every_length_raises_code_object_error(built):
    data = built["hsaco"].read_bytes()
    for n in list(range(0, 128, 7)) + list(range(128, len(data), 61)):
        with pytest.raises(CodeObjectError):
            read(data[:n])


@pytest.mark.tools
@pytest.mark.parametrize("key", ["hsaco", "bundle"])
def test_flipped_bytes_never_escape_as_other_exceptions(built, key):
    data = built[key].read_bytes()
    rng = random.Random(1)
    for _ in range(300):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        try:
            read(bytes(bad))
        except CodeObjectError:
            pass


@pytest.mark.tools
def test_truncated_bundle_names_the_entry(built, tmp_path):
    path = tmp_path / "cut.co"
    path.write_bytes(built["bundle"].read_bytes()[:-100])
    with pytest.raises(CodeObjectError, match=r"cut\.co is truncated or corrupt: bundle entry 'hipv4-amdgcn-amd-amdhsa--gfx9"):
        read(path)


@pytest.mark.tools
def test_corrupt_bundle_entry_count(built):
    data = bytearray(built["bundle"].read_bytes())
    struct.pack_into("<Q", data, 24, 1 << 40)
    with pytest.raises(CodeObjectError, match=r"corrupt offload bundle header: 1099511627776 entries"):
        read(bytes(data))


@pytest.mark.tools
def test_bundle_without_the_arch_lists_what_it_has(built):
    with pytest.raises(ArchNotFoundError, match=r"code object .*kernel\.bundle has gfx942, gfx950; device is gfx1100"):
        read_for_arch(built["bundle"], "gfx1100")
    with pytest.raises(ArchNotFoundError, match=r"has gfx942, gfx950; device is sm_90a"):
        read_for_arch(built["bundle"], "sm_90")


@pytest.mark.tools
@pytest.mark.parametrize("patch, message", [
    (lambda d: struct.pack_into("<H", d, 4, 9), "compressed bundle version 9; versions 1, 2 and 3"),
    (lambda d: struct.pack_into("<H", d, 6, 7), "compression method 7; 0 .zlib. and 1 .zstd."),
    (lambda d: struct.pack_into("<Q", d, 8, 1 << 33), "truncated: its CCOB header says 8589934592 bytes"),
    (lambda d: struct.pack_into("<Q", d, 24, 12345), "does not match its MD5 hash"),
    (lambda d: d.__setitem__(slice(40, 48), bytes(8)), "does not decompress"),
])
def test_corrupt_ccob_headers(built, patch, message):
    data = bytearray(compress_bundle(built["bundle"].read_bytes(), version=3, method="zlib"))
    patch(data)
    with pytest.raises(CodeObjectError, match=message):
        read(bytes(data))


@pytest.mark.tools
def test_truncated_ccob(built):
    data = compress_bundle(built["bundle"].read_bytes(), version=2)
    for n in (4, 10, 23, len(data) // 2):
        with pytest.raises(CodeObjectError):
            read(data[:n])
