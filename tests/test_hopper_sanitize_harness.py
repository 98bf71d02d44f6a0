"""The compute-sanitizer harness's element conversions (bench/hopper_sanitize.c) against NumPy.

The harness feeds the hopper kernels bf16 or fp16 inputs and compares their output with a float64 reference
after converting it back, so a wrong conversion would pass or fail kernels for the wrong reason.  Needs a C
compiler (skips without one); no GPU.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "bench" / "hopper_sanitize.c"


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (gcc / cc / clang) on PATH to build bench/hopper_sanitize.c")
    exe = tmp_path_factory.mktemp("sanitize") / "hopper_sanitize"
    subprocess.run([cc, "-O2", "-I", str(ROOT / "kernels" / "src" / "hopper"), "-o", str(exe), str(SOURCE), "-ldl", "-lm"],
                   check=True, capture_output=True)
    return exe


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 (n,) -> bf16 bits (n,) uint16, round to nearest even (finite inputs)."""
    u = x.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def test_conversions_match_numpy(harness: Path) -> None:
    rng = np.random.default_rng(7)
    x = np.concatenate([
        rng.standard_normal(50_000).astype(np.float32),
        (rng.standard_normal(20_000) * 1e-5).astype(np.float32),        # fp16 subnormals
        (rng.standard_normal(2_000) * 4e4).astype(np.float32),          # near and past fp16's max
        np.array([0.0, -0.0, 65504.0, 65519.0, 65520.0, 6.1e-5, 5.96e-8, 2.98e-8, 1 + 2**-11, 1 + 3 * 2**-11],
                 np.float32),
    ])
    out = subprocess.run([str(harness), "--convert"], input=x.tobytes(), capture_output=True, check=True).stdout
    rec = np.frombuffer(out, dtype=np.dtype([("bf", "<u2"), ("fp", "<u2"), ("bf_back", "<f4"), ("fp_back", "<f4")]))
    assert len(rec) == len(x)
    with np.errstate(over="ignore"):
        ref16 = x.astype(np.float16)
    np.testing.assert_array_equal(rec["fp"], ref16.view(np.uint16))
    np.testing.assert_array_equal(rec["fp_back"], ref16.astype(np.float32))
    ref_bf = _bf16_bits(x)
    np.testing.assert_array_equal(rec["bf"], ref_bf)
    np.testing.assert_array_equal(rec["bf_back"], (ref_bf.astype(np.uint32) << 16).view(np.float32))
