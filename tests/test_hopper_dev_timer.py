"""bench/hopper_dev.py's interleaved timer (HOPPER_DEV_ROUNDS): the order rotates every round, the medians and spreads
come from each column's own timings, and a column that raises is reported and dropped without stopping the others.
CPU only: the timings are a fake clock."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def hopper_dev():
    pytest.importorskip("torch", reason="bench/hopper_dev.py imports torch")
    sys.path.insert(0, str(BENCH))
    try:
        import hopper_dev as mod
    finally:
        sys.path.remove(str(BENCH))
    return mod


def test_rotating_order_medians_and_spread(hopper_dev):
    calls: list[str] = []
    rates = {"a": iter([100.0, 300.0, 200.0]), "b": iter([50.0, 50.0, 50.0]), "c": iter([10.0, 30.0, 20.0])}

    def rate(f):
        calls.append(f)
        return next(rates[f])

    out = hopper_dev.interleaved({"a": "a", "b": "b", "c": "c"}, 3, rate)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]    # each round starts one column later
    assert out["a"] == 200.0 and out["b"] == 50.0 and out["c"] == 20.0
    assert out["_spread"] == {"a": 3.0, "b": 1.0, "c": 3.0}


def test_a_failing_column_is_dropped_not_fatal(hopper_dev, capsys):
    calls: list[str] = []

    def rate(f):
        calls.append(f)
        if f == "bad":
            raise RuntimeError("launch failed")
        return 7.0

    out = hopper_dev.interleaved({"good": "good", "bad": "bad"}, 4, rate, where="(1, 2, 2, 64, 64, 64, False)")
    assert out["good"] == 7.0 and out["bad"] is None
    assert calls.count("bad") == 1 and calls.count("good") == 4
    assert out["_spread"] == {"good": 1.0}
    assert "bad failed on (1, 2, 2, 64, 64, 64, False): RuntimeError: launch failed" in capsys.readouterr().out


def test_one_round_has_no_spread_and_the_table_skips_private_keys(hopper_dev):
    out = hopper_dev.interleaved({"hopper": 0, "cudnn": 1}, 1, lambda f: [400.0, 500.0][f])
    assert out == {"hopper": 400.0, "cudnn": 500.0}
    row = {"shape": [1, 2, 2, 64, 64, 64, False], **out, "_spread": {"hopper": 1.02}}
    text = hopper_dev.table([row])
    assert "_spread" not in text and "| 0.80 |" in text     # best hopper / cuDNN
