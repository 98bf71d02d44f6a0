"""Shared test fixtures.

``require_tool("clang-22")`` returns the tool's path, or skips the test when it is missing;
with ``PYHIPATTN_REQUIRE_TOOLS=1`` (set in CI) a missing tool fails the test instead, so CI
cannot pass by skipping.

``aiter_hsa_dir`` (session): AITER's ASM v3 code objects from the ``amd-aiter`` wheel, unpacked
into a temporary directory, for tests that plan against real third-party objects.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REQUIRE_TOOLS = os.environ.get("PYHIPATTN_REQUIRE_TOOLS") == "1"


def require_tool(*names: str) -> str:
    """Path of the first of ``names`` that is installed (PATH, CUDA_HOME, triton's bundled
    CUDA tools); otherwise skip, or fail under PYHIPATTN_REQUIRE_TOOLS=1."""
    from pyhipattn.codeobj.isa import find_tool

    path = find_tool(tuple(names)) or next((p for n in names if (p := shutil.which(n))), None)
    if path:
        return path
    reason = f"needs {' or '.join(names)}, which is not installed"
    if REQUIRE_TOOLS:
        pytest.fail(f"{reason} (PYHIPATTN_REQUIRE_TOOLS=1)")
    pytest.skip(reason)


@pytest.fixture(name="require_tool", scope="session")
def require_tool_fixture():
    """The :func:`require_tool` function, for tests and session fixtures."""
    return require_tool


# ----------------------------------------------------------------------------- AITER's wheel

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


@pytest.fixture(scope="session")
def aiter_hsa_dir(tmp_path_factory) -> Path:
    """``aiter_meta/hsa`` of the amd-aiter wheel, unpacked once per session into a temporary
    directory (the ``fmha_v3_fwd`` objects only): an ASM directory for ``AITER_ASM_DIR``."""
    root = tmp_path_factory.mktemp("aiter_wheel")
    with zipfile.ZipFile(aiter_wheel()) as z:
        z.extractall(root, [n for n in z.namelist() if n.startswith("aiter_meta/hsa/") and "/fmha_v3_fwd/" in n])
    return root / "aiter_meta" / "hsa"
