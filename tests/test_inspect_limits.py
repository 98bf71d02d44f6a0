"""``pyhipattn inspect`` / ``check`` show an AMD kernel's resources against its arch's limits and
the matrix instructions in its disassembly, on the real objects in kernels/co.  CPU only."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from _tools import require_amd_disassembler

from pyhipattn import codeobj
from pyhipattn.tools.check import static_check
from pyhipattn.codeobj import isa
from pyhipattn.codeobj.limits import matrix_counts, resource_usage
from pyhipattn.tools.inspect import ISA_AUTO_FILES, RECORD_KEYS, RESOURCE_KEYS, inspect_paths, inspect_records, main_inspect

CO = Path(__file__).resolve().parents[1] / "kernels" / "co"
#: arch -> (matrix mnemonic prefix, VGPR limit, AGPR limit, LDS limit)
AMD = {
    "gfx942": ("v_mfma_f32_32x32x8", 512, 256, 64 * 1024),
    "gfx950": ("v_mfma_f32_32x32x16", 512, 256, 160 * 1024),
    "gfx1100": ("v_wmma_f32_16x16x16", 256, 0, 64 * 1024),
}


def native_fwd(arch: str) -> Path:
    path = CO / arch / "native_fwd.co"
    if not path.is_file():
        pytest.skip(f"{path} not built (scripts/build/native.sh)")
    return path


@pytest.fixture
def objdump():
    return require_amd_disassembler("gfx950")


@pytest.mark.parametrize("arch", list(AMD))
def test_native_producers_show_their_matrix_instructions_and_limits(arch, objdump):
    prefix, vgprs, agprs, lds = AMD[arch]
    records, errors = inspect_records([native_fwd(arch)], resources=True, isa=True)
    assert not errors and len(records) == 16
    for r in records:
        assert tuple(r) == RECORD_KEYS + RESOURCE_KEYS
        lim = r["limits"]
        assert (lim["vgpr"]["limit"], lim["agpr"]["limit"], lim["lds"]["limit"]) == (vgprs, agprs, lds)
        assert lim["vgpr"]["used"] == r["vgpr_count"] and lim["lds"]["used"] == r["shared_bytes"]
        assert lim["scratch"] == {"used": 0, "limit": 0} and lim["spills"] == {"used": 0, "limit": 0}
        assert lim["problems"] == []
        ops = r["matrix_instructions"]
        assert ops and all(op.startswith(prefix) for op in ops) and r["isa_note"] is None, (r["name"], ops)
        dtype = "bf16" if "_bf16_" in r["name"] else "f16"
        assert any(op.endswith(dtype) for op in ops), (r["name"], ops)


def test_table_shows_used_against_limit_and_matrix_counts(objdump):
    text = inspect_paths([native_fwd("gfx942")], isa=True)
    assert re.search(r"^limits      VGPR \d+/512  AGPR 0/256  LDS \d+/65536  scratch 0/0  spills 0/0  ok$", text, re.M)
    assert re.search(r"^matrix      v_mfma_f32_32x32x8_bf16 \u00d7\d+$", text, re.M)
    text = inspect_paths([native_fwd("gfx950")], isa=True)
    assert re.search(r"LDS \d+/163840", text)
    text = inspect_paths([native_fwd("gfx1100")], isa=True)
    assert re.search(r"^matrix      v_wmma_f32_16x16x16_(bf16|f16) \u00d7\d+$", text, re.M) and "AGPR -/0" in text


def test_cli_json_carries_limits_and_matrix_instructions(objdump, capsys):
    assert main_inspect(["--json", str(native_fwd("gfx942"))]) == 0       # one file: disassembled
    records = json.loads(capsys.readouterr().out)
    assert all(r["limits"]["lds"]["limit"] == 65536 for r in records)
    assert all(any(op.startswith("v_mfma") for op in r["matrix_instructions"]) for r in records)


def test_big_directories_are_not_disassembled_unless_asked(capsys):
    folder = CO / "gfx942"
    files = list(folder.glob("*.co"))
    if len(files) <= ISA_AUTO_FILES:
        pytest.skip("kernels/co/gfx942 is small")
    assert main_inspect(["--json", str(folder)]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len({r["file"] for r in records}) == len(files)
    assert all(r["matrix_instructions"] is None and "--isa" in r["isa_note"] for r in records)
    assert all(r["limits"] is not None for r in records)


def test_missing_disassembler_is_said_not_raised(monkeypatch, capsys):
    monkeypatch.setattr(isa, "find_tool", lambda names: None)
    assert main_inspect([str(native_fwd("gfx942"))]) == 0
    out = capsys.readouterr().out
    assert "matrix      not disassembled (see the note at the end)" in out
    assert out.count("note: not disassembled: ") == 1 and "llvm-objdump-22" in out     # once, not per kernel
    assert "limits      VGPR" in out


def test_no_isa_says_so(capsys):
    """--no-isa on one file gave the many-files reason."""
    assert main_inspect(["--no-isa", str(native_fwd("gfx942"))]) == 0
    out = capsys.readouterr().out
    assert "not disassembled (--no-isa)" in out and "more than" not in out


def test_python_json_records_keep_their_keys_unless_resources_are_asked():
    (r, *_), _ = inspect_records([native_fwd("gfx942")])
    assert tuple(r) == RECORD_KEYS
    assert tuple(json.loads(inspect_paths([native_fwd("gfx942")], json=True))[0]) == RECORD_KEYS


def test_over_the_limit_is_flagged():
    co = codeobj.read_for_arch(native_fwd("gfx1100"), "gfx1100")
    k = next(iter(co.kernels.values()))
    fat = dataclasses.replace(k, vgpr_count=300, shared_bytes=70_000, scratch_bytes=16)
    usage = resource_usage(fat)
    assert usage["vgpr"] == {"used": 300, "limit": 256} and usage["lds"] == {"used": 70_000, "limit": 65536}
    assert len(usage["problems"]) == 3
    assert resource_usage(k, "gfx942")["lds"]["limit"] == 65536          # another arch's limits on request
    assert resource_usage(k, dynamic_shared=40_000)["problems"]          # static + dynamic LDS over 64 KiB
    assert resource_usage(dataclasses.replace(k, arch="gfx90a"), "gfx90a") is None


def test_matrix_counts_keeps_matrix_mnemonics_only():
    got = matrix_counts({"v_add_f32": 9, "v_mfma_f32_32x32x8_bf16": 3, "v_wmma_f32_16x16x16_f16": 5, "HMMA": 2})
    assert got == {"v_wmma_f32_16x16x16_f16": 5, "v_mfma_f32_32x32x8_bf16": 3, "HMMA": 2}


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_check_rows_carry_limits_and_matrix_instructions(arch, objdump):
    native_fwd(arch)
    rows, _ = static_check([str(CO / arch)])
    producers = [r for r in rows if r["family"] == "native" and r["role"] == "producer"]
    assert len(producers) == 16
    for r in producers:
        assert r["limits"]["vgpr"]["limit"] == AMD[arch][1] and r["limits"]["problems"] == []
        assert any(op.startswith(AMD[arch][0]) for op in r["matrix_instructions"]), r
    assert all("limits" in r and "matrix_instructions" in r for r in rows)


@pytest.mark.network
def test_aiter_asm_kernels_count_mfma_past_their_local_labels(aiter_hsa_dir, objdump):
    """AITER's hand-written kernels have local labels (``label_018A``) in their disassembly; the
    instructions after them still belong to the kernel."""
    records, errors = inspect_records([aiter_hsa_dir / "gfx942" / "fmha_v3_fwd" / "MI300"], resources=True, isa=True)
    assert not errors and len(records) >= 12
    for r in records:
        assert r["matrix_instructions"].get("v_mfma_f32_32x32x8_bf16", 0) > 100, (r["file"], r["matrix_instructions"])
        assert r["limits"]["lds"] == {"used": 65536, "limit": 65536} and r["limits"]["problems"] == []
