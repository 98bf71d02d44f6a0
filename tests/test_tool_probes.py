"""Tool probes tell the truth (issue 10): an llvm-objdump too old for the target is reported as
such (once, no crash dump) and tests skip; nvcc under $CUDA_HOME/bin works without being on PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyhipattn
from pyhipattn.codeobj import isa
from pyhipattn.kernels_dir import kernels_dir

#: where the pyhipattn under test lives (a checkout, or site-packages for a wheel): subprocesses import it too
PKG_PARENT = str(Path(pyhipattn.__file__).resolve().parents[1])

FAKE_LLVM14 = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "LLVM (http://llvm.org/):"; echo "  LLVM version 14.0.6"; exit 0; fi
echo "'gfx942' is not a recognized processor for this target (ignoring processor)" >&2
echo "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace." >&2
echo "Stack dump:" >&2
exit 134
"""


@pytest.fixture
def only_llvm14(tmp_path, monkeypatch):
    """PATH holds nothing but an LLVM 14 llvm-objdump (Debian 12's), and no CUDA_HOME tools."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "llvm-objdump"
    tool.write_text(FAKE_LLVM14)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-cuda"))
    monkeypatch.setattr(isa, "_versions", {})
    return bin_dir


def test_old_llvm_is_named_not_used(only_llvm14):
    with pytest.raises(isa.ToolNotFoundError, match=r"LLVM 14, which does not know gfx942 \(needs LLVM >= 17\).*llvm-22"):
        isa.amd_disassembler("gfx942")
    with pytest.raises(isa.ToolNotFoundError, match="LLVM 14"):
        isa.mnemonics(kernels_dir() / "gfx942" / "native_fwd.co")


def test_llvm_needed_per_target():
    assert [isa.llvm_needed(a) for a in ("gfx1100", "gfx1201", "gfx942", "gfx950", "gfx9999")] == [16, 18, 17, 20, 20]


@pytest.mark.parametrize("cmd", [["inspect", "{co}/gfx942/native_fwd.co"], ["check", "--static-only", "{co}/gfx942"]])
def test_cli_reports_an_old_llvm_once_without_a_crash_dump(only_llvm14, cmd):
    args = [c.format(co=kernels_dir()) for c in cmd]
    env = dict(os.environ, PYTHONPATH=PKG_PARENT)
    proc = subprocess.run([sys.executable, "-m", "pyhipattn", *args], capture_output=True, text=True, env=env,
                          timeout=600)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert "Stack dump" not in text and "PLEASE submit" not in text
    assert text.count("LLVM 14") == 1, text
    assert "llvm-22" in text


def test_nvcc_under_cuda_home_works_off_path(tmp_path, monkeypatch):
    """tests/_build.py ran bare ``nvcc`` after the probe had found $CUDA_HOME/bin/nvcc."""
    import _build

    cuda = tmp_path / "cuda" / "bin"
    cuda.mkdir(parents=True)
    nvcc = cuda / "nvcc"
    nvcc.write_text("#!/bin/sh\necho \"fake nvcc $*\"\n")
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda"))
    assert isa.find_tool(("nvcc",)) == str(nvcc)
    assert _build.run([_build.NVCC, "--version"]).stdout.strip() == "fake nvcc --version"
