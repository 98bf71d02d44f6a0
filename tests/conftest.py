"""Shared test fixtures.

``require_tool("clang-22")`` returns the tool's path, or skips the test when it is missing;
with ``PYHIPATTN_REQUIRE_TOOLS=1`` (set in CI) a missing tool fails the test instead, so CI
cannot pass by skipping.

``aiter_hsa_dir`` (session): AITER's ASM v3 code objects from the ``amd-aiter`` wheel, unpacked
into a temporary directory, for tests that plan against real third-party objects.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from _aiter import REQUIRE_TOOLS, aiter_wheel


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

@pytest.fixture(scope="session")
def aiter_hsa_dir(tmp_path_factory) -> Path:
    """``aiter_meta/hsa`` of the amd-aiter wheel, unpacked once per session into a temporary
    directory (the ``fmha_v3_fwd`` objects only): an ASM directory for ``AITER_ASM_DIR``."""
    root = tmp_path_factory.mktemp("aiter_wheel")
    with zipfile.ZipFile(aiter_wheel()) as z:
        z.extractall(root, [n for n in z.namelist() if n.startswith("aiter_meta/hsa/") and "/fmha_v3_fwd/" in n])
    return root / "aiter_meta" / "hsa"


def pytest_report_header(config):
    """Which pyhipattn the run tests (a checkout or an installed wheel) and where its kernels are."""
    import pyhipattn
    from pyhipattn.kernels_dir import kernels_dir

    try:
        co = kernels_dir()
    except FileNotFoundError as e:
        co = f"none ({e})"
    return f"pyhipattn {getattr(pyhipattn, '__version__', '?')} from {Path(pyhipattn.__file__).parent}; kernels {co}"
