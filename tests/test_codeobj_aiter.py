"""Every AMD code object in AITER's PyPI wheel reads (third-party, hand-written assembly)."""

from __future__ import annotations

import zipfile

import pytest
from _aiter import aiter_wheel

from pyhipattn.codeobj import is_code_object, read
from pyhipattn.tools.inspect import inspect_records

pytestmark = pytest.mark.network

HSA = "aiter_meta/hsa/"
#: Files under aiter_meta/hsa/ that start with ELF magic (observed; the rest are .csv / .py).
EXPECTED_CODE_OBJECTS = 2501


@pytest.fixture(scope="module")
def wheel() -> zipfile.ZipFile:
    return zipfile.ZipFile(aiter_wheel())   # cached download, shared with the other AITER tests


@pytest.fixture(scope="module")
def code_objects(wheel) -> dict[str, bytes]:
    """Name -> bytes of every file under aiter_meta/hsa/ whose magic is ELF or a bundle."""
    out = {}
    for info in wheel.infolist():
        if info.filename.startswith(HSA) and not info.is_dir():
            data = wheel.read(info)
            if is_code_object(data):
                out[info.filename] = data
    return out


def test_every_code_object_parses_with_kernels(code_objects):
    assert len(code_objects) == EXPECTED_CODE_OBJECTS
    arches = set()
    for name, data in code_objects.items():
        (co,) = read(data)
        assert co.platform == "amd" and len(co.kernels) >= 1, name
        assert name.startswith(f"{HSA}{co.arch}/"), name   # the directory names the arch
        arches.add(co.arch)
    assert arches == {"gfx942", "gfx950"}


@pytest.mark.parametrize("arch_dir", ["gfx942/fmha_v3_fwd/MI300", "gfx942/fmha_v3_fwd/MI308", "gfx950/fmha_v3_fwd"])
def test_fmha_v3_fwd_kernels_name_their_kernargs(code_objects, arch_dir):
    names = [n for n in code_objects if n.startswith(f"{HSA}{arch_dir}/") and n.count("/") == f"{HSA}{arch_dir}/".count("/")]
    assert names
    for name in names:
        (co,) = read(code_objects[name])
        (k,) = co.kernels.values()
        arg_names = [a.name for a in k.args]
        assert {"Q", "K", "V", "LSE"} <= set(arg_names), name
        assert k.kernarg_size == 512, name
        q = k.args[arg_names.index("Q")]
        assert (q.size, q.kind) == (8, "global_buffer")


def test_inspect_reads_the_same_files(wheel, code_objects, tmp_path):
    wheel.extractall(tmp_path, members=[n for n in wheel.namelist() if n.startswith(HSA)])
    records, errors = inspect_records([tmp_path / HSA])
    assert errors == []
    assert len({r["file"] for r in records}) == len(code_objects) == EXPECTED_CODE_OBJECTS
