"""bench-kvcache's CPU side: case parsing, the table, and the CLI's answer without a GPU."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pyhipattn.tools.bench_kvcache import DEFAULT_CASES, format_table, parse_cases


def test_default_cases_cover_the_issue_grid():
    assert {(p, b) for p, b, _ in DEFAULT_CASES} >= {(p, b) for p in (16, 64) for b in (1, 8, 64)}
    assert {c for _, _, c in DEFAULT_CASES} >= {4096, 131072}
    assert any(p == 0 for p, _, _ in DEFAULT_CASES)
    assert parse_cases("default") == DEFAULT_CASES


@pytest.mark.parametrize("spec,msg", [("[[16, 1]]", "JSON list"), ("nope", "JSON list"),
                                      ("[[16, 1, 100]]", "multiple of the block size"),
                                      ("[[16, 0, 4096]]", "batch and context")])
def test_bad_cases_name_the_value(spec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_cases(spec)


def test_table_reports_share_of_copy_bandwidth():
    copy = {"tbs": 3.0}
    rows = [{"block_size": 16, "batch": 8, "context": 4096, "ms": 0.1, "tbs": 2.7},
            {"block_size": 0, "batch": 1, "context": 4096, "ms": 0.2, "tbs": 1.5, "mha_fwd_ms": 0.25}]
    t = format_table(rows, copy)
    assert "3.00 TB/s" in t and "90%" in t and "50%" in t and "0.250" in t and "paged16" in t and "contig" in t


def test_cli_without_gpu_says_why():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the device run covers the real benchmark")
    r = subprocess.run([sys.executable, "-m", "pyhipattn", "bench-kvcache"], capture_output=True, text=True)
    assert r.returncode == 2 and "no GPU visible" in r.stderr
