"""Split-K heuristic and num_splits rules (DESIGN.md §8)."""

import pytest

from pyhipattn.dispatch import split_heuristic


def test_saturated_work_is_not_split():
    assert split_heuristic(work_items=132, compute_units=132, kv_blocks=512) == 1
    assert split_heuristic(work_items=106, compute_units=132, kv_blocks=512) == 1   # >= 80%


def test_few_queries_long_kv_is_split_to_fill_the_gpu():
    s = split_heuristic(work_items=16, compute_units=132, kv_blocks=1024)
    assert s >= 6 and 16 * s <= 132 * 1.2


def test_split_never_exceeds_kv_blocks():
    assert split_heuristic(work_items=1, compute_units=132, kv_blocks=3) <= 3
    assert split_heuristic(work_items=1, compute_units=132, kv_blocks=1) == 1


def test_decode_shape_splits():
    # (1, 32, 8, 1, 131072, 128) with packed GQA: 8 work items, 1024 KV blocks of 128
    s = split_heuristic(work_items=8, compute_units=132, kv_blocks=1024)
    waves = 8 * s / 132
    assert s >= 8 and waves / -(-waves // 1) >= 0.8
