"""Shared test fixtures.

``require_tool("clang-22")`` returns the tool's path, or skips the test when it is missing;
with ``PYHIPATTN_REQUIRE_TOOLS=1`` (set in CI) a missing tool fails the test instead, so CI
cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil

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
