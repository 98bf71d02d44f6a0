"""bench/hopper_dev.py's interleaved timer (HOPPER_DEV_ROUNDS) over pyhipattn.tools.bench.gpu_times: TFLOP/s from the
median of each column's rounds, paired (all columns in one timing a round) by default, rotating one by one with
HOPPER_DEV_TIMING=rounds, and a column that raises reported and dropped without stopping the others.
CPU only: the timers are fakes."""
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


def _summary(ms: float) -> dict:
    return {"ms": ms, "ms_p20": ms, "ms_p80": ms, "ms_min": ms, "n": 1}


def test_rotating_rounds_give_medians_and_spreads_in_tflops(hopper_dev):
    calls: list[str] = []
    ms = {"a": iter([1.0, 3.0, 2.0]), "b": iter([4.0, 4.0, 4.0]), "c": iter([10.0, 30.0, 20.0])}

    def timer(f, n_sets, rep_ms):
        calls.append(f(0))
        return _summary(next(ms[calls[-1]]))

    impls = {n: (lambda i, n=n: n) for n in "abc"}
    out = hopper_dev.interleaved(impls, 3, 2e9, 1, 25.0, paired=False, timer=timer)   # 2e9 flops: 2 TFLOP/s at 1 ms
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]    # each round starts one column later
    assert out["a"] == pytest.approx(1.0) and out["b"] == pytest.approx(0.5) and out["c"] == pytest.approx(0.1)
    assert out["_spread"] == {"a": 3.0, "b": 1.0, "c": 3.0}


def test_paired_rounds_time_every_column_together(hopper_dev):
    seen = []

    def paired_timer(fns, n_sets, rep_ms):
        seen.append((sorted(fns), rep_ms))
        return {n: _summary({"hopper": 1.0, "cudnn": 2.0}[n]) for n in fns}

    out = hopper_dev.interleaved({"hopper": lambda i: 0, "cudnn": lambda i: 1}, 2, 1e9, 1, 25.0,
                                 paired_timer=paired_timer, timer=lambda *a, **k: pytest.fail("not one by one"))
    assert seen == [(["cudnn", "hopper"], 50.0)] * 2
    assert out["hopper"] == pytest.approx(1.0) and out["cudnn"] == pytest.approx(0.5)


def test_a_failing_column_is_dropped_not_fatal(hopper_dev, capsys):
    calls: list[str] = []

    def timer(f, n_sets, rep_ms):
        calls.append(f(0))
        if calls[-1] == "bad":
            raise RuntimeError("launch failed")
        return _summary(1.0)

    impls = {"good": lambda i: "good", "bad": lambda i: "bad"}
    out = hopper_dev.interleaved(impls, 4, 1e9, 1, 25.0, where="(1, 2, 2, 64, 64, 64, False)", paired=False,
                                 timer=timer)
    assert out["good"] == pytest.approx(1.0) and out["bad"] is None
    assert calls.count("bad") == 1 and calls.count("good") == 4
    assert out["_spread"] == {"good": 1.0}
    assert "bad failed on (1, 2, 2, 64, 64, 64, False): RuntimeError: launch failed" in capsys.readouterr().out


def test_one_round_has_no_spread_and_the_table_skips_private_keys(hopper_dev):
    out = hopper_dev.interleaved({"hopper": lambda i: 0, "cudnn": lambda i: 1}, 1, 1e9, 1, 25.0,
                                 paired_timer=lambda fns, n, rep_ms: {"hopper": _summary(2.5e-3), "cudnn": _summary(2e-3)})
    assert out == {"hopper": pytest.approx(400.0), "cudnn": pytest.approx(500.0)}
    row = {"shape": [1, 2, 2, 64, 64, 64, False], **out, "_spread": {"hopper": 1.02}}
    text = hopper_dev.table([row])
    assert "_spread" not in text and "| 0.80 |" in text     # best hopper / cuDNN
