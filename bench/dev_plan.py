"""Plans for a candidate build, for the dev timing scripts (hopper_dev.py, portable_short_dev.py).

A candidate object differs from the shipped one in its manifest entry (tile, threads, shared
memory) and its file: ``plan_with_manifest`` plans through the family as if the candidate's
manifest were the arch's, then points every plan at the candidate's code object.
"""
from __future__ import annotations

import dataclasses


def plan_with_manifest(family, man: dict, problem, arch: str, compute_units: int, streams: int,
                       code_object: str) -> list:
    """``family.plan(problem, arch, compute_units, streams)`` with ``man`` (a manifest dict with its
    ``by_name`` index) standing in for ``family.manifest(arch)``; each plan's code_object is
    ``code_object``.  Swaps the module attribute for the call: one thread, dev scripts only."""
    saved = family.manifest
    family.manifest = lambda arch: man
    try:
        plans = family.plan(problem, arch, compute_units, streams)
    finally:
        family.manifest = saved
    return [dataclasses.replace(pl, code_object=code_object) for pl in plans]
