"""``pyhipattn bench``'s pure parts: shapes, FLOP and byte counts, table, JSON, plot.

The GPU parts (timing, peers) run on the device machine; here their conventions are pinned
against rows of baseline/h100-peers-2026-11-22.json copied below.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
from pathlib import Path

import pytest

from pyhipattn.tools import bench as B

BASELINE = Path("/work/shared/baseline/h100-peers-2026-11-22.json")

# (tag, shape, causal, {peer: (ms, tflops, TBps)}) copied from the H100 baseline file
BASELINE_ROWS = [
    ("prefill", [32, 32, 32, 512, 512, 64], False,
     {"flash": (0.2608639895915985, 263.4302911781167, 1.0290245749145184)}),
    ("prefill", [32, 32, 32, 512, 512, 64], True,
     {"flash": (0.22489599883556366, 153.07896721262588, 1.1935981848937691)}),
    ("prefill", [1, 16, 16, 16384, 16384, 128], True,
     {"cudnn": (1.9470720291137695, 564.7000271872091, 0.13786621757500223)}),
    ("splitk", [1, 16, 16, 128, 65535, 64], False,
     {"flash": (0.15641599893569946, 219.6655988760115, 1.7194893734020398)}),
    ("decode", [1, 32, 8, 1, 131072, 128], False,
     {"flash": (0.2072800025343895, 10.360303076722099, 2.59015481202016)}),
    ("gqa", [4, 32, 8, 4096, 4096, 128], True,
     {"flash": (1.660640001296997, 331.1313898174942, 0.2020572307892935)}),
]
PEERS = ["flash", "cudnn", "efficient"]


def _row(shape, causal, **rates):
    """A report row with the given implementations' headline rates (None = n/a)."""
    s = B.Shape(*shape, causal)
    row = {"tag": "prefill", "shape": list(shape), "causal": causal, "unit": s.unit}
    for name, r in rates.items():
        if r is None:
            row[name] = {"err": f"{name} refused"}
        else:
            key = "TBps" if s.decode else "tflops"
            row[name] = {"ms": 1.0, "tflops": r if key == "tflops" else 1.0, "TBps": r if key == "TBps" else 1.0}
    row["check"] = "ok 2.0e-03"
    return row


def _report():
    rows = [_row([4, 32, 32, 4096, 4096, 64], False, ours=300.0, flash=310.0, cudnn=440.0, efficient=133.0),
            _row([1, 16, 16, 128, 65535, 64], False, ours=250.0, flash=220.0, cudnn=55.0, efficient=None),
            _row([1, 32, 8, 1, 131072, 128], False, ours=2.7, flash=2.59, cudnn=2.77, efficient=None)]
    rows[1]["check"] = "BAD 5.0e-01"
    for r in rows:
        r["ratio_best"], r["ratio_flash"] = B.ratios(r, PEERS)
    return {"device": {"name": "NVIDIA H100 80GB HBM3"}, "dtype": "bf16", "peers": PEERS, "rows": rows}


# -- shapes --------------------------------------------------------------------------------


def test_default_shapes_are_the_baseline_rows_in_order():
    dims = [(s.tag, s.dims(), s.causal) for s in B.DEFAULT_SHAPES][:35]
    assert len(B.DEFAULT_SHAPES) == 41
    assert dims[0] == ("prefill", [32, 32, 32, 512, 512, 64], False)
    assert ("splitk", [1, 2, 2, 40000, 40000, 64], False) in dims
    assert ("decode", [16, 32, 8, 1, 32768, 128], False) in dims
    if BASELINE.exists():
        base = json.loads(BASELINE.read_text())["rows"]
        assert dims == [(r["tag"], r["shape"], r["causal"]) for r in base]


def test_issue11_prefill_shapes_follow_the_baseline_rows():
    """The seven shapes of issue 11's table are all in the default set, six of them appended
    after the 35 baseline rows (the 16k d128 row is a baseline row already)."""
    dims = [(tuple(s.dims()), s.causal) for s in B.DEFAULT_SHAPES]
    issue = [((b, hq, hk, s, s, d), c) for b, hq, hk, s, d, c in (
        (1, 32, 8, 8192, 128, True), (2, 64, 8, 4096, 128, True), (1, 16, 16, 16384, 128, False),
        (32, 16, 16, 512, 64, False), (16, 12, 12, 1024, 64, False), (1, 16, 8, 4096, 256, True),
        (4, 32, 32, 2048, 96, True))]
    assert all(x in dims for x in issue)
    assert dims[35:] == [x for x in issue if x != ((1, 16, 16, 16384, 16384, 128), False)]
    assert all(s.tag == "prefill" for s in B.DEFAULT_SHAPES[35:])
    assert len(set(dims)) == len(dims)


def test_design_section_7_shapes_are_in_the_default_set():
    dims = {(tuple(s.dims()), s.causal) for s in B.DEFAULT_SHAPES}
    for d, h in ((64, 32), (128, 16)):
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            assert ((16384 // s, h, h, s, s, d), False) in dims
    assert ((1, 16, 16, 128, 65535, 64), False) in dims
    assert ((1, 32, 8, 1, 131072, 128), False) in dims


def test_parse_shapes_named_sets():
    assert B.parse_shapes("default") == list(B.DEFAULT_SHAPES)
    quick = B.parse_shapes("quick")
    assert 3 <= len(quick) <= 8 and any(s.decode for s in quick) and any(not s.decode for s in quick)


def test_parse_shapes_json_list_tags_decode_by_query_length():
    shapes = B.parse_shapes("[[2, 8, 2, 1000, 1000, 64, true], [1, 32, 8, 1, 4096, 128, false]]")
    assert shapes == [B.Shape(2, 8, 2, 1000, 1000, 64, True, "prefill"),
                      B.Shape(1, 32, 8, 1, 4096, 128, False, "decode")]
    assert shapes[0].unit == "TFLOP/s" and shapes[1].unit == "TB/s"


@pytest.mark.parametrize("spec, words", [
    ("fast", "neither 'default', 'quick' nor JSON"),
    ("[]", "non-empty JSON list"),
    ("[[1, 2, 3]]", "is not [b, hq, hk, sq, sk, d, causal]"),
    ("[[1, 8, 2, 16, 16, 0, false]]", "six positive ints"),
    ("[[1, 8, 3, 16, 16, 64, false]]", "hk=3 does not divide hq=8"),
])
def test_parse_shapes_rejects_bad_specs_naming_the_fix(spec, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        B.parse_shapes(spec)


def test_parse_peers_keeps_order_drops_duplicates_and_names_unknown():
    assert B.parse_peers("cudnn, flash,cudnn") == ["cudnn", "flash"]
    assert B.parse_peers("") == []
    with pytest.raises(ValueError, match="accepted: flash, cudnn, efficient, flash_attn"):
        B.parse_peers("flash,xformers")


def test_shape_label():
    assert B.shape_label([16, 32, 8, 1, 32768, 128], False) == "b16 h32/8 s1/32768 d128"
    assert B.shape_label([1, 16, 16, 4096, 4096, 128], True) == "b1 h16/16 s4096 d128 causal"


# -- metrics -------------------------------------------------------------------------------


@pytest.mark.parametrize("sq, sk", [(1, 1), (1, 7), (5, 5), (3, 10), (10, 3), (17, 17), (64, 1), (1, 64)])
def test_visible_pairs_count_the_bottom_right_causal_mask(sq, sk):
    from pyhipattn.reference import visible_mask

    assert B.visible_pairs(sq, sk, True) == int(visible_mask(sq, sk, causal=True).sum())
    assert B.visible_pairs(sq, sk, False) == sq * sk


def test_square_causal_counts_s_times_s_plus_one_over_two():
    assert B.visible_pairs(512, 512, True) == 512 * 513 // 2


# The baseline counted causal pairs exactly (s(s+1)/2) up to s = 4096 and as s*s/2 at 8192 and
# 16384; we count exactly everywhere, which differs from those two by 1/s <= 1.2e-4.
BASELINE_TOL = 1.3e-4


@pytest.mark.parametrize("tag, shape, causal, peers", BASELINE_ROWS)
def test_flops_and_bytes_reproduce_the_baseline_rates(tag, shape, causal, peers):
    b, hq, hk, sq, sk, d = shape
    for ms, tflops, tbps in peers.values():
        r = B.rates(B.Shape(*shape, causal), ms)
        assert r["tflops"] == pytest.approx(tflops, rel=1e-9 if sq <= 4096 else BASELINE_TOL)
        assert r["TBps"] == pytest.approx(tbps, rel=1e-9)
    assert B.attn_flops(b, hq, sq, sk, d, causal) == 4 * b * hq * d * B.visible_pairs(sq, sk, causal)


@pytest.mark.skipif(not BASELINE.exists(), reason="the shared baseline file is not on this machine")
def test_every_baseline_rate_is_reproduced_from_its_time():
    for row in json.loads(BASELINE.read_text())["rows"]:
        shape = B.Shape(*row["shape"], row["causal"])
        for peer in PEERS:
            if "ms" in row[peer]:
                r = B.rates(shape, row[peer]["ms"])
                assert r["tflops"] == pytest.approx(row[peer]["tflops"], rel=BASELINE_TOL)
                assert r["TBps"] == pytest.approx(row[peer]["TBps"], rel=1e-9)


def test_decode_bytes_are_q_k_v_o_once():
    assert B.attn_bytes(1, 32, 8, 1, 131072, 128) == 2 * (2 * 32 * 128 + 2 * 131072 * 8 * 128)
    assert B.attn_bytes(1, 32, 8, 1, 131072, 128, itemsize=4) == 2 * B.attn_bytes(1, 32, 8, 1, 131072, 128)


def test_rotation_sets_exceed_l2_three_times_and_stay_bounded():
    l2 = 50 << 20
    assert B.rotation_sets(10 << 30, l2) == 1
    n = B.rotation_sets(16 << 20, l2)
    assert n * (16 << 20) >= 3 * l2 and (n - 1) * (16 << 20) < 3 * l2
    assert B.rotation_sets(1024, l2) == 16
    with pytest.raises(ValueError, match="input_bytes is 0"):
        B.rotation_sets(0, l2)


def test_summarize_reports_median_and_spread():
    s = B.summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert s == {"ms": 3.0, "ms_p20": 2.0, "ms_p80": 4.0, "ms_min": 1.0, "n": 5}
    with pytest.raises(ValueError):
        B.summarize([])


def test_ratios_use_the_best_peer_and_torch_flash():
    row = _row([4, 32, 32, 4096, 4096, 64], False, ours=300.0, flash=310.0, cudnn=440.0, efficient=None)
    best, flash = B.ratios(row, PEERS)
    assert best == pytest.approx(300 / 440) and flash == pytest.approx(300 / 310)


def test_ratios_are_none_when_ours_or_the_peers_are_na():
    assert B.ratios(_row([1, 8, 8, 64, 64, 64], False, ours=None, flash=1.0), PEERS) == (None, None)
    assert B.ratios(_row([1, 8, 8, 64, 64, 64], False, ours=1.0, flash=None), PEERS) == (None, None)


def test_decode_rows_rank_by_bandwidth():
    row = _row([1, 32, 8, 1, 131072, 128], False, ours=2.7, flash=2.59, cudnn=2.77)
    assert B.primary(row, "ours") == 2.7
    assert B.ratios(row, PEERS)[0] == pytest.approx(2.7 / 2.77)


def test_check_verdict():
    assert B.check_verdict(3e-3, [2e-3], "bf16", nan=False) == "ok 3.0e-03"
    assert B.check_verdict(0.5, [2e-3], "bf16", nan=False).startswith("BAD")
    assert B.check_verdict(3e-2, [2e-2], "bf16", nan=False).startswith("ok")   # peers noisy too: 2x theirs
    assert B.check_verdict(3e-3, [], "fp16", nan=False).startswith("BAD")      # fp16 limit 2e-3
    assert B.check_verdict(1e-3, [1e-3], "bf16", nan=True).startswith("BAD: NaN")
    assert B.check_verdict(None, [], "bf16", nan=False) == "n/a"


# -- formatting ----------------------------------------------------------------------------


def test_table_has_one_line_per_shape_ratios_checks_and_na_reasons():
    rep = _report()
    text = B.format_table(rep["rows"], PEERS)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["shape", "unit", "ours"] and "ours/best" in lines[0] and "ours/flash" in lines[0]
    assert lines[2].startswith("b4 h32/32 s4096 d64") and "300.0" in lines[2] and "0.68" in lines[2]
    assert "1.14" in lines[3] and "BAD 5.0e-01" in lines[3] and " n/a " in lines[3]
    assert "2.70" in lines[4] and "TB/s" in lines[4]
    assert lines[-1] == "n/a efficient: efficient refused [b1 h16/16 s128/65535 d64; b1 h32/8 s1/131072 d128]"


def test_round_ratios_compare_ours_with_the_best_peer_round_by_round():
    row = {"unit": "TFLOP/s", "ours": {"ms": 1.0, "rounds_ms": [1.0, 2.0, 1.0]},
           "flash": {"ms": 1.5, "rounds_ms": [1.5, 1.5, 1.5]}, "cudnn": {"ms": 1.2, "rounds_ms": [1.1, 2.4, 0.9]},
           "efficient": {"err": "refused"}}
    assert B.round_ratios(row, PEERS) == pytest.approx([1.1, 0.75, 0.9])   # round 2: flash, 1.5 ms, was the best peer
    row["cudnn"]["rounds_ms"] = [1.1, 2.4]        # a peer with fewer rounds (failed mid-way) is left out
    assert B.round_ratios(row, PEERS) == pytest.approx([1.5, 0.75, 1.5])
    assert B.round_ratios({"unit": "TFLOP/s", "ours": {"err": "x"}, "flash": row["flash"]}, PEERS) is None
    assert B.round_ratios({"unit": "TFLOP/s", "ours": row["ours"], "flash": {"err": "x"}}, PEERS) is None


def test_table_shows_the_rounds_range_of_ours_over_the_best_peer():
    rep = _report()
    rep["rows"][0]["ratio_best_rounds"] = [0.66, 0.71, 0.68]
    lines = B.format_table(rep["rows"], PEERS).splitlines()
    assert "rounds" in lines[0].split() and "0.66-0.71" in lines[2]
    assert re.search(r" 1\.14 +- +1\.14 ", lines[3]), lines[3]   # (a row without rounds: ours/best, -, ours/flash)


def test_host_time_line_states_the_acceptance():
    host = {"shape": [1, 32, 8, 1, 4096, 128], "causal": False, "rounds": 7, "calls": 300,
            "results": {"ours": {"p50_us": 9.5}, "sdpa": {"p50_us": 34.0}, "flash_attn": {"err": "missing"}}}
    line = B.format_host_time(host)
    assert "ours 9.5 us (rounds 9.5-9.5)" in line and "sdpa 34.0 us" in line and "flash_attn n/a (missing)" in line
    assert line.endswith("PASS (ours <= 15 us)")
    host["results"]["ours"]["p50_us"] = 15.1
    assert B.format_host_time(host).endswith("FAIL (ours <= 15 us)")


def test_host_times_interleave_rounds_and_rotate_the_order():
    order = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b"), "c": lambda: order.append("c")}
    res = B.host_times(fns, lambda: order.append("|"), rounds=3, calls=2, sync_each=False)
    timed = "".join(order).split("|", 1)[1]          # after the warm-up calls and their sync
    assert timed == "aa|bb|cc|bb|cc|aa|cc|aa|bb|"     # round r starts with callable r
    assert set(res) == {"a", "b", "c"} and all(len(v["rounds_p50_us"]) == 3 for v in res.values())
    assert all(v["best_round_p50_us"] <= v["p50_us"] for v in res.values())


def test_gpu_times_interleave_rounds_and_report_the_median_of_round_medians():
    order, ms = [], {"a": iter([3.0, 1.0, 2.0]), "b": iter([5.0, 4.0, 6.0])}

    def timer(fn, n_sets, rep_ms):
        name = fn(0)
        order.append(name)
        m = next(ms[name])
        return {"ms": m, "ms_p20": m - 0.5, "ms_p80": m + 0.5, "ms_min": m - 1, "n": 10}

    res = B.gpu_times({"a": lambda i: "a", "b": lambda i: "b"}, n_sets=2, rounds=3, timer=timer)
    assert order == ["a", "b", "b", "a", "a", "b"]       # round r starts with callable r
    assert res["a"]["ms"] == 2.0 and res["a"]["rounds_ms"] == [3.0, 1.0, 2.0] and res["a"]["spread"] == 3.0
    assert res["b"]["ms"] == 5.0 and res["b"]["ms_min"] == 3.0 and res["b"]["n"] == 30
    assert res["b"]["ms_p20"] == 4.5 and res["b"]["ms_p80"] == 5.5


def test_gpu_times_reports_a_failing_callable_once_and_keeps_timing_the_rest():
    calls = []

    def timer(fn, n_sets, rep_ms):
        calls.append(fn(0))
        if calls[-1] == "bad" and calls.count("bad") == 2:
            raise RuntimeError("launch failed")
        return {"ms": 1.0, "ms_p20": 1.0, "ms_p80": 1.0, "ms_min": 1.0, "n": 1}

    res = B.gpu_times({"ok": lambda i: "ok", "bad": lambda i: "bad"}, n_sets=1, rounds=4, timer=timer)
    assert res["bad"] == {"err": "timing failed: RuntimeError: launch failed"}
    assert calls.count("bad") == 2 and calls.count("ok") == 4 and res["ok"]["rounds_ms"] == [1.0] * 4


def test_gpu_times_paired_times_all_callables_together_each_round():
    seen = []

    def paired_timer(fns, n_sets, rep_ms):
        seen.append((sorted(fns), rep_ms))
        return {n: {"ms": 2.0 if n == "a" else 3.0, "ms_p20": 1.0, "ms_p80": 4.0, "ms_min": 1.0, "n": 5} for n in fns}

    res = B.gpu_times({"a": lambda i: "a", "b": lambda i: "b"}, n_sets=1, rounds=2, paired=True,
                      paired_timer=paired_timer, timer=lambda *a, **k: pytest.fail("no sequential timing"))
    assert seen == [(["a", "b"], 120.0)] * 2 and res["a"]["rounds_ms"] == [2.0, 2.0] and res["b"]["ms"] == 3.0


def test_gpu_times_paired_names_the_callable_that_fails_and_pairs_the_rest():
    seen, calls = [], []

    def paired_timer(fns, n_sets, rep_ms):
        seen.append(sorted(fns))
        if "bad" in fns:
            raise RuntimeError("launch failed")
        return {n: {"ms": 1.0, "ms_p20": 1.0, "ms_p80": 1.0, "ms_min": 1.0, "n": 1} for n in fns}

    def timer(fn, n_sets, rep_ms):
        calls.append(fn(0))
        if calls[-1] == "bad":
            raise RuntimeError("launch failed")
        return {"ms": 1.0, "ms_p20": 1.0, "ms_p80": 1.0, "ms_min": 1.0, "n": 1}

    fns = {"a": lambda i: "a", "b": lambda i: "b", "bad": lambda i: "bad"}
    res = B.gpu_times(fns, n_sets=1, rounds=3, paired=True, paired_timer=paired_timer, timer=timer)
    assert res["bad"] == {"err": "timing failed: RuntimeError: launch failed"}
    assert seen == [["a", "b", "bad"], ["a", "b"], ["a", "b"]] and sorted(calls) == ["a", "b", "bad"]
    assert res["a"]["rounds_ms"] == [1.0] * 3 and res["b"]["rounds_ms"] == [1.0] * 3


def test_bench_times_paired_unless_told_otherwise():
    from pyhipattn.tools.cli import build_parser

    assert build_parser().parse_args(["bench"]).timing == B.TIMINGS[0] == "paired"
    assert build_parser().parse_args(["bench", "--timing", "rounds"]).timing == "rounds"
    assert build_parser().parse_args(["bench"]).order == B.ORDERS[0] == "balanced"
    assert build_parser().parse_args(["bench", "--order", "rotate"]).order == "rotate"


def test_gpu_time_paired_alternates_call_by_call_under_one_clock(monkeypatch):
    """With a fake CUDA clock (each call advances it by the callable's cost): every callable's call j runs before
    any call j + 1, the order rotating by j, each gets exactly its own cost, and the input set advances with every
    call whichever callable makes it (no call reuses the set the call before it read)."""
    torch = pytest.importorskip("torch")
    clock, order = [0.0], []

    class Event:
        def __init__(self, enable_timing=True):
            self.t = None

        def record(self):
            self.t = clock[0]

        def elapsed_time(self, end):
            return end.t - self.t

    def make(name, cost):
        def f(i):
            order.append((name, i))
            clock[0] += cost
        return f

    monkeypatch.setattr(torch.cuda, "Event", Event)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(B, "_cycles_per_ms", lambda: 0.0)
    res = B.gpu_time_paired({"a": make("a", 1.0), "b": make("b", 3.0)}, n_sets=3, warmup_ms=0.0, rep_ms=0.0,
                            min_reps=4, batch=3, order="rotate")
    assert res["a"]["ms"] == 1.0 and res["b"]["ms"] == 3.0 and res["a"]["n"] == res["b"]["n"] == 4
    timed = order[-8:]
    assert timed == [("a", 0), ("b", 1), ("b", 2), ("a", 0), ("a", 1), ("b", 2), ("b", 0), ("a", 1)]
    del order[:]   # the default, balanced: a and b take strict turns (neither follows itself)
    res = B.gpu_time_paired({"a": make("a", 1.0), "b": make("b", 3.0), "c": make("c", 2.0)}, n_sets=5,
                            warmup_ms=0.0, rep_ms=0.0, min_reps=4, batch=3)
    assert {n: (r["ms"], r["n"]) for n, r in res.items()} == {"a": (1.0, 4), "b": (3.0, 4), "c": (2.0, 4)}
    timed = order[-12:]
    assert [n for n, _ in timed] == [("a", "b", "c")[i] for i in B.call_order(3, 4)]
    assert [i for _, i in timed] == [c % 5 for c in range(12)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_balanced_call_order_has_every_callable_follow_every_other_equally_often(n):
    """The default order: an Eulerian circuit of the complete directed graph, so over the whole sequence, read as a
    cycle, each ordered pair (a, b) with a != b is adjacent equally often and nothing follows itself; each callable
    runs equally often and at least ``reps`` times.  The rotate order, by contrast, has b = a + 1 at nearly all calls."""
    for reps in (1, 4, 7, 10):
        seq = B.call_order(n, reps, "balanced")
        counts = collections.Counter(seq)
        assert sorted(counts) == list(range(n)) and len(set(counts.values())) == 1 and counts[0] >= reps
        assert counts[0] - reps < max(n - 1, 1)
        pairs = collections.Counter(zip(seq, seq[1:] + seq[:1]))
        if n == 1:
            continue
        assert set(pairs) == {(a, b) for a in range(n) for b in range(n) if a != b}
        assert len(set(pairs.values())) == 1
    rot = B.call_order(n, 8, "rotate")
    assert collections.Counter(rot) == {i: 8 for i in range(n)}
    if n > 2:
        pairs = collections.Counter(zip(rot, rot[1:]))
        assert max(pairs.values()) >= 2 * min(pairs.values())   # what balanced avoids


def test_call_order_and_run_bench_name_a_bad_order(tmp_path):
    with pytest.raises(ValueError, match="order is 'random'; accepted: balanced, rotate"):
        B.call_order(3, 2, "random")
    with pytest.raises(ValueError, match="call_order needs n >= 1 and reps >= 1; got n=0, reps=2"):
        B.call_order(0, 2)
    args = argparse.Namespace(shapes="quick", dtype="bf16", out=str(tmp_path), peers="flash", plot=None, rounds=3,
                              timing="paired", order="random")
    with pytest.raises(ValueError, match="--order is 'random'; accepted: balanced, rotate"):
        B.run_bench(args)


def test_gpu_times_and_run_bench_refuse_fewer_than_one_round(tmp_path):
    with pytest.raises(ValueError, match="rounds is 0; it must be at least 1"):
        B.gpu_times({"a": lambda i: None}, n_sets=1, rounds=0)
    args = argparse.Namespace(shapes="quick", dtype="bf16", out=str(tmp_path), peers="flash", plot=None, rounds=0)
    with pytest.raises(ValueError, match="--rounds is 0; it must be an integer of at least 1"):
        B.run_bench(args)
    args.rounds, args.timing = 3, "fast"
    with pytest.raises(ValueError, match="--timing is 'fast'; accepted: paired, rounds"):
        B.run_bench(args)


def test_json_is_written_whole_and_reads_back(tmp_path):
    rep = _report()
    path = tmp_path / "results.json"
    B.write_json(path, rep)
    assert json.loads(path.read_text()) == rep
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


# -- CPU torch: the SDPA peer's masks and the reference slice ---------------------------------


@pytest.mark.parametrize("sq, sk", [(48, 80), (80, 80), (1, 80)])
def test_sdpa_peer_is_bottom_right_causal_with_gqa(sq, sk):
    torch = pytest.importorskip("torch")
    from pyhipattn.reference import attention_ref, rel_error

    g = torch.Generator().manual_seed(sq * 1000 + sk)
    q = torch.randn(2, sq, 8, 64, generator=g)
    k, v = (torch.randn(2, sk, 2, 64, generator=g) for _ in range(2))
    out = B._sdpa_call("default", B.Shape(2, 8, 2, sq, sk, 64, True))(q, k, v)
    ref, _ = attention_ref(q, k, v, causal=True)
    assert out.shape == (2, sq, 8, 64) and rel_error(out, ref) < 1e-5


@pytest.mark.parametrize("sq, sk, causal", [(300, 500, True), (500, 300, True), (1, 500, False), (40, 40, True)])
def test_reference_slice_matches_the_full_reference(sq, sk, causal):
    torch = pytest.importorskip("torch")
    from pyhipattn.reference import attention_ref, rel_error

    g = torch.Generator().manual_seed(sq + sk)
    shape = B.Shape(2, 8, 4, sq, sk, 32, causal)
    q = torch.randn(2, sq, 8, 32, generator=g)
    k, v = (torch.randn(2, sk, 4, 32, generator=g) for _ in range(2))
    ref, take = B.reference_slice(shape, q, k, v, budget=4 * 500 * 20)
    full, _ = attention_ref(q, k, v, causal=causal)
    assert take(full).shape == ref.shape and ref.shape[2] == 4 and 1 <= ref.shape[1] <= min(sq, 128)
    assert rel_error(take(full), ref) < 1e-12


def test_run_bench_without_a_gpu_says_what_works(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: this test is for machines without one")
    args = argparse.Namespace(shapes="quick", dtype="bf16", out=str(tmp_path), peers="flash", plot=None)
    with pytest.raises(RuntimeError, match="--plot"):
        B.run_bench(args)


# -- plot ----------------------------------------------------------------------------------


def test_plot_writes_a_png_from_a_results_json(tmp_path):
    pytest.importorskip("matplotlib")
    from pyhipattn.tools.plot import plot_file

    path = tmp_path / "results.json"
    B.write_json(path, _report())
    png = plot_file(path)
    assert png == tmp_path / "results.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_plot_flag_plots_a_json(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "r.json"
    rep = _report()
    rep["rows"] = rep["rows"][2:]        # decode only: one panel
    B.write_json(path, rep)
    assert B.run_bench(argparse.Namespace(plot=str(path))) == 0
    assert (tmp_path / "r.png").exists() and "wrote" in capsys.readouterr().out


def test_plot_refuses_a_report_without_rows(tmp_path):
    pytest.importorskip("matplotlib")
    from pyhipattn.tools.plot import plot_results

    with pytest.raises(ValueError, match="no rows"):
        plot_results({"rows": []}, tmp_path / "x.png")


def test_plot_module_main_usage_and_png(tmp_path):
    pytest.importorskip("matplotlib")
    from pyhipattn.tools.plot import main

    path = tmp_path / "results.json"
    B.write_json(path, _report())
    assert main([]) == 2
    assert main([str(path), str(tmp_path / "out" / "p.png")]) == 0
    assert (tmp_path / "out" / "p.png").exists()
    assert math.isfinite((tmp_path / "out" / "p.png").stat().st_size)


def test_plot_and_bench_do_not_import_each_other_at_module_level():
    """The old bench <-> plot circle: both now take rows' labels and rates from bench_rows."""
    import subprocess
    import sys

    code = ("import sys, pyhipattn.tools.plot; assert 'pyhipattn.tools.bench' not in sys.modules; "
            "import pyhipattn.tools.bench; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
