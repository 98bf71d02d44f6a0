"""WMMA attention (HIP C++ over ``__builtin_amdgcn_wmma_*``) on RDNA3 (gfx1100-gfx1102) and
RDNA4 (gfx1200, gfx1201).

The same kernels and planning as :mod:`.native_splitk` (one source, ``kernels/src/native``,
compiled per arch with the WMMA fragment backend): wave32, 128 threads, 64x32 prefill tiles,
16x64 decode tiles (GQA-packed rows, so ``seqlen_q == 1`` fills a tile with the group's heads),
split-K + combine for long KV.  Only the arches this gate accepts differ; see
:mod:`.native_splitk` for what runs and what does not.
"""

from __future__ import annotations

from ..arch import canonical_arch
from ..plan import LaunchPlan
from . import native_splitk as _native
from .base import Problem

NAME = "wmma"
PRIORITY = 30
MAX_SPLITS = _native.MAX_SPLITS
ARCHES = ("gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201")


def gate(problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
    return _native._arch_refusal(canonical_arch(arch), ARCHES) or _native.check_problem(problem)


def split_work(problem: Problem, arch: str) -> tuple[int, int]:
    return _native.split_work(problem, arch)


def plan(problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
    """As :func:`.native_splitk.plan`, for the WMMA arches (and sm_90a / sm_80 for tests)."""
    return _native.plan_native(problem, arch, num_splits, ARCHES + _native.TEST_ARCHES)
