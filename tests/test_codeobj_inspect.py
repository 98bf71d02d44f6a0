"""``inspect_paths`` reports what the readers read, as tables and as stable JSON records."""

from __future__ import annotations

import json

import pytest

from _build import CLANG, NVCC, hip_compile, nvcc_cubin
from pyhipattn.codeobj import read
from pyhipattn.errors import CodeObjectError
from pyhipattn.tools.inspect import RECORD_KEYS, inspect_paths, main_inspect

pytestmark = pytest.mark.tools

HIP = 'extern "C" __global__ void axpy(float* y, const float* x, float a, int n) { y[n] += a * x[n]; }'
CU = 'extern "C" __global__ void __launch_bounds__(64) axpy(float* y, const float* x, float a, int n) { y[n] += a * x[n]; }'


@pytest.fixture(scope="module")
def tree(require_tool, tmp_path_factory):
    """co/amd/axpy.bundle (gfx942 + gfx1100), co/nv/axpy.cubin, co/README (ignored)."""
    require_tool(CLANG)
    require_tool(NVCC)
    root = tmp_path_factory.mktemp("co")
    bundle = hip_compile(HIP, ["gfx942", "gfx1100"], root / "amd", name="axpy", bundle=True).path
    cubin = nvcc_cubin(CU, "sm_90a", root / "nv", name="axpy").path
    for p in (root / "amd").glob("*.hip"):
        p.unlink()
    for p in (root / "nv").glob("*.cu"):
        p.unlink()
    (root / "README").write_text("not a code object\n")
    return root, bundle, cubin


def test_json_has_one_record_per_kernel_with_stable_keys(tree):
    root, bundle, cubin = tree
    records = json.loads(inspect_paths([root], json=True))
    assert [(r["platform"], r["arch"], r["name"]) for r in records] == [
        ("amd", "gfx1100", "axpy"), ("amd", "gfx942", "axpy"), ("nvidia", "sm_90a", "axpy")]
    assert all(tuple(r) == RECORD_KEYS for r in records)


def test_json_records_equal_the_readers_kernel_info(tree):
    root, bundle, cubin = tree
    records = {(r["file"], r["arch"]): r for r in json.loads(inspect_paths([bundle, cubin], json=True))}
    for path in (bundle, cubin):
        for co in read(path):
            k = co["axpy"]
            r = records[(str(path), co.arch)]
            assert r["entry"] == (co.source.split("#")[1] if "#" in co.source else None)
            assert r["args"] == [{"name": a.name, "offset": a.offset, "size": a.size, "kind": a.kind,
                                  "address_space": a.address_space} for a in k.args]
            for key in RECORD_KEYS[5:]:
                if key != "args":
                    got = r[key]
                    assert got == (list(getattr(k, key)) if key == "reqd_workgroup_size" and got else getattr(k, key))


def test_text_table_shows_the_facts(tree):
    root, bundle, cubin = tree
    text = inspect_paths([cubin])
    assert "kernel      axpy" in text and "sm_90a (nvidia)" in text
    assert "kernarg     24 bytes" in text and "max 64" in text
    text = inspect_paths([bundle])
    assert text.count("kernel      axpy") == 2 and "axpy.kd" in text
    assert "y" in text and "global_buffer" in text      # -fhip-kernel-arg-name names the args


def test_bad_file_named_explicitly_is_an_error(tree, tmp_path, capsys):
    bad = tmp_path / "bad.co"
    bad.write_bytes(b"\x7fELF garbage")
    assert "error: " in inspect_paths([bad])
    with pytest.raises(CodeObjectError, match="bad.co"):
        inspect_paths([bad], json=True)
    assert main_inspect([str(bad)]) == 1
    assert "bad.co" in capsys.readouterr().err


def test_main_inspect_json_prints_records(tree, capsys):
    root, _, _ = tree
    assert main_inspect(["--json", str(root)]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3
