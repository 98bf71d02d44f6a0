"""The pyhipattn command behaves (issue 10): --version, documented exit codes (0 ok, 1 findings,
2 usage/environment), missing paths and empty inputs refused, no tracebacks or broken-pipe noise,
bad environment variables said by info."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyhipattn
from pyhipattn import __version__
from pyhipattn.kernels_dir import kernels_dir

#: where the pyhipattn under test lives (a checkout, or site-packages for a wheel): subprocesses import it too
PKG_PARENT = str(Path(pyhipattn.__file__).resolve().parents[1])



def cli(*args: str, env: dict | None = None, code: str | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=PKG_PARENT, **(env or {}))
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "pyhipattn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=600)


def test_version_and_help():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"pyhipattn {__version__}"
    h = cli("--help")
    assert h.returncode == 0 and "exit status: 0 ok, 1 findings" in h.stdout and "``" not in h.stdout


@pytest.mark.parametrize("args,msg", [
    (["check", "--static-only", "/no/such/dir"], "pyhipattn check: /no/such/dir does not exist"),
    (["inspect", "/no/such.co"], "pyhipattn inspect: /no/such.co does not exist"),
])
def test_missing_paths_are_usage_errors(args, msg):
    r = cli(*args)
    assert r.returncode == 2 and msg in r.stderr and "check: check:" not in r.stderr and "Traceback" not in r.stderr


def test_check_of_nothing_is_an_error_not_a_pass(tmp_path):
    (tmp_path / "notes.txt").write_text("no code objects here")
    r = cli("check", "--static-only", str(tmp_path))
    assert r.returncode == 2 and "no code objects" in r.stderr


def test_check_says_what_it_checks_on_stderr():
    r = cli("check", "--static-only", str(kernels_dir() / "gfx1201"))
    assert r.returncode == 0 and "checking 22 code objects" in r.stderr
    # progress: one line per (arch, family) group as it finishes, before the summary table
    groups = [ln.split() for ln in r.stderr.splitlines() if "kernels checked" in ln]
    assert [(g[0], g[1]) for g in groups] == [("gfx1201", "native"), ("gfx1201", "serve")], r.stderr
    assert all(g[-3] == "failed" and g[-2].startswith("(") for g in groups)


def test_inspect_into_a_closed_pipe_is_quiet():
    full = dict(os.environ, PYTHONPATH=PKG_PARENT)
    p = subprocess.Popen([sys.executable, "-m", "pyhipattn", "inspect", "--no-isa", str(kernels_dir() / "gfx942")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full)
    p.stdout.readline()
    p.stdout.close()                        # as `| head -1` does
    err = p.stderr.read().decode()
    assert p.wait(timeout=600) == 0 and "Broken pipe" not in err and "Traceback" not in err, err


def test_bench_without_torch_says_so():
    r = cli(code="import sys; sys.modules['torch'] = None\nfrom pyhipattn.tools.cli import main\nsys.exit(main(['bench']))")
    assert r.returncode == 2 and "bench needs PyTorch" in r.stderr and "Traceback" not in r.stderr


def test_info_reports_bad_environment_variables(tmp_path):
    r = cli("info", env={"PYHIPATTN_PLATFORM": "bogus", "AITER_ASM_DIR": str(tmp_path)})
    assert r.returncode == 0
    assert "PYHIPATTN_PLATFORM='bogus'" in r.stdout and "AITER_ASM_DIR ignored" in r.stdout
