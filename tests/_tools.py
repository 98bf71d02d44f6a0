"""Tool probes shared by the tests."""

from __future__ import annotations

import pytest
from _aiter import REQUIRE_TOOLS


def require_amd_disassembler(arch: str | None = None) -> str:
    """An llvm-objdump that knows ``arch`` (the package's probe); otherwise skip with the probe's
    reason (e.g. only LLVM 14 installed), or fail under PYHIPATTN_REQUIRE_TOOLS=1."""
    from pyhipattn.codeobj.isa import ToolNotFoundError, amd_disassembler

    try:
        return amd_disassembler(arch)
    except ToolNotFoundError as e:
        if REQUIRE_TOOLS:
            pytest.fail(f"{e} (PYHIPATTN_REQUIRE_TOOLS=1)")
        pytest.skip(str(e))
