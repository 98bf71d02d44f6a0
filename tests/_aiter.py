"""The amd-aiter wheel for the tests that read AITER's code objects (a plain module, not a
conftest, so test files can import it: tests/gpu has a conftest of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REQUIRE_TOOLS = os.environ.get("PYHIPATTN_REQUIRE_TOOLS") == "1"

AITER_WHEEL_SPEC = "amd-aiter==0.1.7.post2.dev18"
AITER_WHEEL_NAME = "amd_aiter-0.1.7.post2.dev18-py3-none-any.whl"   # pure-Python tag: no --platform needed
WHEEL_CACHE = Path(os.environ.get("PYHIPATTN_WHEEL_CACHE", Path.home() / ".cache" / "pyhipattn" / "wheels"))


def _skip_or_fail(reason: str):
    if REQUIRE_TOOLS:
        pytest.fail(f"{reason} (PYHIPATTN_REQUIRE_TOOLS=1)")
    pytest.skip(reason)


def aiter_wheel() -> Path:
    """The amd-aiter wheel (about 40 MB) from the cache, downloaded with pip on first use;
    skips (fails under PYHIPATTN_REQUIRE_TOOLS=1) when it cannot be had."""
    path = WHEEL_CACHE / AITER_WHEEL_NAME
    if not path.is_file():
        WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                            AITER_WHEEL_SPEC, "-d", str(WHEEL_CACHE)], check=True, capture_output=True, timeout=600)
        except (subprocess.SubprocessError, OSError) as e:
            _skip_or_fail(f"{AITER_WHEEL_SPEC} wheel not available ({type(e).__name__})")
        if not path.is_file():
            _skip_or_fail(f"pip did not produce {AITER_WHEEL_NAME}")
    return path


