"""The shipped code objects pass ``pyhipattn check --static-only kernels/co``: for every object a
manifest names, the kernarg metadata equals the struct its family declares, no scratch / local
memory, no spills, registers and shared memory within the arch's limits, and the arch's matrix
instructions in attention producers.  This is the acceptance check of a kernel build; CPU
only, but the matrix-instruction part disassembles (llvm-objdump-22, cuobjdump).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pyhipattn.arch import SHIPPED_ARCHES
from pyhipattn.tools.check import static_check
from pyhipattn.families import portable

CO = Path(__file__).resolve().parents[1] / "kernels" / "co"

pytestmark = pytest.mark.tools


@pytest.fixture(scope="module")
def checked(require_tool) -> tuple[list[dict], list[str]]:
    require_tool("llvm-objdump-22", "llvm-objdump")
    require_tool("cuobjdump", "nvdisasm")
    return static_check([str(CO)])


def test_every_code_object_passes(checked):
    _, problems = checked
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def test_every_arch_directory_is_checked(checked):
    rows, _ = checked
    arch_dirs = {p.name for p in CO.iterdir() if p.is_dir() and any(p.glob("*_manifest.json"))}
    assert set(SHIPPED_ARCHES) <= arch_dirs
    assert {r["arch"] for r in rows} == arch_dirs


def test_every_portable_variant_is_checked(checked):
    rows, _ = checked
    for arch in SHIPPED_ARCHES:
        seen = {r["object"].rsplit(".", 1)[0] for r in rows if r["arch"] == arch and r["family"] == "portable"}
        assert seen == {f"portable_{v['name']}" for v in portable.variants(arch)}, arch
