"""Rows of a ``pyhipattn bench`` result: a shape's label and an implementation's headline rate.

Shared by ``bench`` (the table) and ``plot`` (the figure), so that neither imports the other
at module level.
"""

from __future__ import annotations


def shape_label(dims: list[int], causal: bool) -> str:
    """``b16 h32/8 s1/32768 d128`` (+ `` causal``): one short line per shape."""
    b, hq, hk, sq, sk, d = dims
    s = f"s{sq}" if sq == sk else f"s{sq}/{sk}"
    return f"b{b} h{hq}/{hk} {s} d{d}" + (" causal" if causal else "")


def primary(row: dict, name: str) -> float | None:
    """The row's headline rate of implementation ``name`` (TB/s or TFLOP/s), None if n/a."""
    r = row.get(name)
    if not isinstance(r, dict) or "ms" not in r:
        return None
    return r["TBps"] if row["unit"] == "TB/s" else r["tflops"]
