"""Dispatch: which family runs a problem on an arch, and with how many KV splits.

Pure code (no GPU): ``plan(problem, arch, compute_units)`` asks each registered family's gate,
takes the accepting family with the highest priority, decides the split count, and returns
that family's LaunchPlans.  Each family's gate is written once, in its own module, and tested
alone; this module only orders them.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from functools import lru_cache

from .arch import arch_info, canonical_arch
from .errors import UnsupportedError
from .families.base import Problem
from .plan import LaunchPlan

#: Family modules under pyhipattn.families, in no particular order (PRIORITY decides).
FAMILY_MODULES: tuple[str, ...] = ("asm_v3", "native_splitk", "wmma", "hopper", "portable", "serve")

#: Split counts the planner may choose (AITER's native split-K and FA2 go as far).
MAX_SPLITS = 128


@dataclass(frozen=True)
class Decision:
    """What dispatch chose, and why the others were refused (for ``plan_mha_fwd(explain=True)``)."""

    family: str
    num_splits: int
    plans: tuple[LaunchPlan, ...]
    refused: tuple[tuple[str, str], ...]   # (family, reason)


@lru_cache(maxsize=None)
def families() -> tuple:
    """The importable family modules, highest priority first."""
    mods = []
    for name in FAMILY_MODULES:
        mods.append(importlib.import_module(f"pyhipattn.families.{name}"))
    return tuple(sorted(mods, key=lambda m: -m.PRIORITY))


def split_heuristic(work_items: int, compute_units: int, kv_blocks: int, max_splits: int = MAX_SPLITS,
                    efficiency: float = 0.85) -> int:
    """FlashAttention-2's rule: no split when the parallel work items (batch *
    heads * query tiles) fill at least 80% of the compute units; otherwise the smallest split
    count whose wave efficiency is within ``efficiency`` (FA2: 85%) of the best, up to
    ``max_splits``, skipping counts that give the same number of KV blocks per split as the
    count before.
    """
    if work_items <= 0 or kv_blocks <= 1 or work_items >= 0.8 * compute_units:
        return 1
    max_splits = max(1, min(max_splits, compute_units, kv_blocks))

    def eligible(s: int) -> bool:
        return s == 1 or math.ceil(kv_blocks / s) != math.ceil(kv_blocks / (s - 1))

    eff = {}
    for s in range(1, max_splits + 1):
        if eligible(s):
            waves = work_items * s / compute_units
            eff[s] = waves / math.ceil(waves)
    best = max(eff.values())
    return next(s for s in sorted(eff) if eff[s] >= efficiency * best)


def resolve_splits(problem: Problem, family, arch: str, compute_units: int) -> int:
    """The split count: ``num_splits`` 1 never, >= 2 forced (capped by what the family can
    split), 0 the heuristic over the family's work shape."""
    n = problem.num_splits
    if n < 0:
        raise ValueError(f"num_splits is {n}; accepted: 0 (heuristic), 1 (never split), >= 2 (force)")
    work = family.split_work(problem, arch) if hasattr(family, "split_work") else None
    if work is None or n == 1:
        return 1
    work_items, kv_blocks = work
    if n >= 2:
        return max(1, min(n, kv_blocks, family.MAX_SPLITS))
    eff = getattr(family, "SPLIT_EFFICIENCY", 0.85)
    # programs per compute unit the family wants resident (latency-bound kernels want more than one)
    occ = family.split_occupancy(problem, arch) if hasattr(family, "split_occupancy") else 1
    return split_heuristic(work_items, compute_units * occ, kv_blocks, family.MAX_SPLITS, eff)


def decide(problem: Problem, arch: str, compute_units: int | None = None) -> Decision:
    """Pick the family and split count for ``problem`` on ``arch`` and plan it.

    Raises UnsupportedError listing every family's refusal when none accepts.
    """
    arch = canonical_arch(arch)
    cus = compute_units or arch_info(arch).default_cus
    refused = []
    for fam in families():
        if problem.serving and not getattr(fam, "SERVING", False):
            refused.append((fam.NAME, "no KV-cache / sink / ALiBi kernels"))
            continue
        why = fam.gate(problem, arch, compute_units=cus)
        if why is not None:
            refused.append((fam.NAME, why))
            continue
        splits = resolve_splits(problem, fam, arch, cus)
        plans = tuple(fam.plan(problem, arch, cus, splits))
        return Decision(fam.NAME, splits, plans, tuple(refused))
    detail = "; ".join(f"{n}: {w}" for n, w in refused) or "no kernel families are registered"
    raise UnsupportedError(f"no kernel family can run this problem on {arch} ({detail})")
