"""``pyhipattn bench``: time ``mha_fwd`` against the attention peers on this GPU.

    pyhipattn bench [--shapes default|quick|JSON] [--dtype bf16|fp16] [--out DIR] [--peers ...] [--rounds N]
                    [--timing paired|rounds] [--order balanced|rotate]

Peers, where present: torch SDPA's ``flash`` (FA2), ``cudnn`` and ``efficient`` backends (one
``sdpa_kernel([backend])`` each; GQA through ``enable_gqa=True``, as the H100 baseline did, so a
backend without GQA support is reported n/a with torch's reason) and ``flash_attn``'s
``flash_attn_func``.  All take the same BSHD inputs (SDPA sees ``transpose(1, 2)`` views).

Conventions (those of ``baseline/h100-peers-2026-11-22.json``, whose rows are the default shapes):
FLOPs = 4 * b * hq * d * (visible query/key pairs), causal masks bottom-right aligned, so a
square causal shape counts s(s+1)/2 pairs (the baseline did so up to s = 4096 and used s*s/2 at
8192 and 16384, 1/s lower: 1.2e-4 at most); bytes = q + k + v + o, each once.  Shapes with
sq <= 16 are reported in TB/s, the others in TFLOP/s; the JSON has both.

Timing (as the design notes and the device METHOD say): per call CUDA events, median after warm-up, as
``triton.testing.do_bench``, in ``--rounds`` (default 3) interleaved rounds per shape, ours and the
peers alternating call by call within a round, so that they share the GPU's clocks (``--timing paired``,
the default; ``rounds``: each timed alone in turn), in an order where each follows every other equally often
(``--order balanced``, the default: what one leaves in the GPU, e.g. dirty L2 lines, lands on all alike), the
median of the rounds' medians reported (``rounds_ms`` / ``spread`` in the JSON, ours / the best peer per round as
``ratio_best_rounds``); a sleep kernel queued before each batch keeps host launch gaps out of the events; input
sets rotate when one set fits in L2 three times over.  Every input is drawn fresh (``randn``), never zeros.
``mha_fwd``'s output is checked once per shape against the float64 reference on a slice (NaN-poisoned ``out=``), as
are the peers', so a fast-but-wrong kernel is flagged in the table.  Host time per call (GPU idle) is measured on
one decode shape.

This module imports torch only inside the functions that touch the GPU; the shapes, metrics and
formatting above them are pure and tested on a CPU (tests/test_bench.py).
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from .bench_rows import primary, shape_label  # noqa: F401  (re-exported: bench.primary, bench.shape_label)

# -- shapes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One benchmark problem: q ``(b, sq, hq, d)``, k and v ``(b, sk, hk, d)``."""

    b: int
    hq: int
    hk: int
    sq: int
    sk: int
    d: int
    causal: bool
    tag: str = ""

    @property
    def decode(self) -> bool:
        """Memory-bound regime: reported in TB/s rather than TFLOP/s."""
        return self.sq <= 16

    @property
    def unit(self) -> str:
        return "TB/s" if self.decode else "TFLOP/s"

    def dims(self) -> list[int]:
        return [self.b, self.hq, self.hk, self.sq, self.sk, self.d]

    def label(self) -> str:
        return shape_label(self.dims(), self.causal)


def _baseline_shapes() -> tuple[Shape, ...]:
    """The rows of baseline/h100-peers-2026-11-22.json, in its order."""
    rows = []
    for d, h in ((64, 32), (128, 16)):          # 16k tokens: b = 16384 / s
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for causal in (False, True):
                rows.append(Shape(16384 // s, h, h, s, s, d, causal, "prefill"))
    rows += [Shape(1, 2, 2, 40000, 40000, 64, False, "splitk"), Shape(1, 16, 16, 128, 65535, 64, False, "splitk"),
             Shape(1, 8, 8, 32768, 32768, 64, False, "splitk"), Shape(8, 16, 16, 8192, 8192, 64, False, "splitk")]
    rows += [Shape(b, 32, 8, 1, sk, 128, False, "decode")
             for b, sk in ((1, 4096), (16, 1024), (1, 32768), (16, 8192), (1, 131072), (16, 32768))]
    rows.append(Shape(4, 32, 8, 4096, 4096, 128, True, "gqa"))
    return tuple(rows)


#: Issue 11's prefill table (b, hq, hk, sq = sk, d, causal), the Hopper family's targets; the
#: one already among the baseline rows (1, 16, 16, 16384, 16384, 128) is not repeated.
ISSUE11_PREFILL: tuple[Shape, ...] = tuple(
    Shape(b, hq, hk, s, s, d, causal, "prefill")
    for b, hq, hk, s, d, causal in ((1, 32, 8, 8192, 128, True), (2, 64, 8, 4096, 128, True),
                                    (1, 16, 16, 16384, 128, False), (32, 16, 16, 512, 64, False),
                                    (16, 12, 12, 1024, 64, False), (1, 16, 8, 4096, 256, True),
                                    (4, 32, 32, 2048, 96, True)))


def _default_shapes() -> tuple[Shape, ...]:
    """The baseline rows, then issue 11's prefill shapes that are not among them."""
    base = _baseline_shapes()
    seen = {(tuple(s.dims()), s.causal) for s in base}
    return base + tuple(s for s in ISSUE11_PREFILL if (tuple(s.dims()), s.causal) not in seen)


DEFAULT_SHAPES: tuple[Shape, ...] = _default_shapes()
QUICK_SHAPES: tuple[Shape, ...] = (
    Shape(4, 32, 32, 4096, 4096, 64, False, "prefill"),
    Shape(4, 16, 16, 4096, 4096, 128, True, "prefill"),
    Shape(4, 32, 8, 4096, 4096, 128, True, "gqa"),
    Shape(1, 16, 16, 128, 65535, 64, False, "splitk"),
    Shape(1, 32, 8, 1, 131072, 128, False, "decode"),
    Shape(16, 32, 8, 1, 32768, 128, False, "decode"),
)
#: The shape of the host-time measurement (small, so a synchronize per call stays cheap).
HOST_TIME_SHAPE = Shape(1, 32, 8, 1, 4096, 128, False, "decode")
#: ``mha_fwd``'s host time per call must stay at or under this (the issue's acceptance).
HOST_TIME_LIMIT_US = 15.0

SDPA_PEERS = ("flash", "cudnn", "efficient")
#: ``--timing`` (the first the default): ``paired`` alternates the implementations call by call within each round
#: (:func:`gpu_time_paired`), ``rounds`` times each alone in turn.  H100, 2026-11-27 (notes/hopper.md, call e5): over
#: 7 rows, ours / the best peer varied by at most 2.2% between paired rounds, by up to 18% between plain rounds
TIMINGS = ("paired", "rounds")
#: ``--order`` (the first the default): who follows whom in paired timing (:func:`call_order`).  H100, 2026-11-27
#: (notes/hopper.md, call pr1): the kernel that ran just before a timed call moved its time by up to 3% (after SDPA's
#: efficient backend ours and cuDNN both ran ~2% slower than after each other); in the rotate order ours followed
#: efficient and cuDNN followed flash at 3 calls of 4, which read 0.994x on d64 16x1024 h12 where balanced reads 1.012x
ORDERS = ("balanced", "rotate")
PEERS = SDPA_PEERS + ("flash_attn",)


def parse_shapes(spec: str) -> list[Shape]:
    """``default`` | ``quick`` | a JSON list of ``[b, hq, hk, sq, sk, d, causal]``."""
    if spec == "default":
        return list(DEFAULT_SHAPES)
    if spec == "quick":
        return list(QUICK_SHAPES)
    try:
        items = json.loads(spec)
    except json.JSONDecodeError as e:
        raise ValueError(f"--shapes is {spec!r}: neither 'default', 'quick' nor JSON ({e})") from None
    if not isinstance(items, list) or not items:
        raise ValueError(f"--shapes is {spec!r}; accepted: a non-empty JSON list of [b, hq, hk, sq, sk, d, causal]")
    shapes = []
    for it in items:
        ok = (isinstance(it, list) and len(it) == 7 and all(type(x) is int and x > 0 for x in it[:6])
              and isinstance(it[6], (bool, int)))
        if not ok:
            raise ValueError(f"--shapes entry {it!r} is not [b, hq, hk, sq, sk, d, causal] "
                             "(six positive ints and a bool)")
        b, hq, hk, sq, sk, d, causal = it
        if hq % hk:
            raise ValueError(f"--shapes entry {it!r}: hk={hk} does not divide hq={hq} (GQA needs hq % hk == 0)")
        shapes.append(Shape(b, hq, hk, sq, sk, d, bool(causal), "decode" if sq <= 16 else "prefill"))
    return shapes


def parse_peers(spec: str) -> list[str]:
    """Comma-separated peer names, each one of PEERS; empty means ours alone."""
    names = [p.strip() for p in spec.split(",") if p.strip()]
    bad = [p for p in names if p not in PEERS]
    if bad:
        raise ValueError(f"--peers names {bad}; accepted: {', '.join(PEERS)}")
    return list(dict.fromkeys(names))


# -- metrics -----------------------------------------------------------------------------------


def visible_pairs(sq: int, sk: int, causal: bool) -> int:
    """Query/key pairs one head attends; causal is aligned bottom-right (query i sees keys
    j <= i + sk - sq), so rows see nothing when sq > sk and i < sq - sk."""
    if not causal:
        return sq * sk
    off = sk - sq
    if off >= 0:
        return sq * (off + 1) + sq * (sq - 1) // 2
    return sk * (sk + 1) // 2


def attn_flops(b: int, hq: int, sq: int, sk: int, d: int, causal: bool) -> int:
    """Two matrix products (QK^T, PV) of 2 FLOPs per multiply-add over the visible pairs."""
    return 4 * b * hq * d * visible_pairs(sq, sk, causal)


def attn_bytes(b: int, hq: int, hk: int, sq: int, sk: int, d: int, itemsize: int = 2) -> int:
    """Fewest bytes moved: q, k, v read once, o written once."""
    return itemsize * (2 * b * sq * hq * d + 2 * b * sk * hk * d)


def rates(shape: Shape, ms: float, itemsize: int = 2) -> dict[str, float]:
    """TFLOP/s and TB/s of one call that took ``ms`` milliseconds."""
    s = shape
    return {"tflops": attn_flops(s.b, s.hq, s.sq, s.sk, s.d, s.causal) / ms / 1e9,
            "TBps": attn_bytes(s.b, s.hq, s.hk, s.sq, s.sk, s.d, itemsize) / ms / 1e9}


def rotation_sets(input_bytes: int, l2_bytes: int, cap: int = 16) -> int:
    """Input sets to rotate so that one pass over all of them exceeds L2 three times over."""
    if input_bytes <= 0:
        raise ValueError(f"input_bytes is {input_bytes}; it must be positive")
    return max(1, min(cap, math.ceil(3 * l2_bytes / input_bytes)))


def summarize(times_ms: list[float]) -> dict:
    """Median (the number reported), 20th / 80th percentiles (the spread), min and count."""
    t = sorted(times_ms)
    if not t:
        raise ValueError("no timings to summarize")

    def pct(p: float) -> float:
        return t[min(len(t) - 1, int(p * (len(t) - 1) + 0.5))]

    return {"ms": statistics.median(t), "ms_p20": pct(0.2), "ms_p80": pct(0.8), "ms_min": t[0], "n": len(t)}


def ratios(row: dict, peers: list[str]) -> tuple[float | None, float | None]:
    """(ours / best peer, ours / torch flash) by the headline rate; > 1 means ours is faster."""
    ours = primary(row, "ours")
    peer_rates = [x for p in peers if (x := primary(row, p)) is not None]
    best = max(peer_rates) if peer_rates else None
    flash = primary(row, "flash")
    return (ours / best if ours and best else None, ours / flash if ours and flash else None)


def round_ratios(row: dict, peers: list[str]) -> list[float] | None:
    """Ours / the best peer in each interleaved round (:func:`gpu_times`' ``rounds_ms``; > 1: ours faster), so a
    drift of the GPU between rounds cancels within each; None where ours or every peer is n/a or the rounds differ
    in number (a peer that failed mid-way)."""
    ours = row.get("ours")
    if not isinstance(ours, dict) or not ours.get("rounds_ms"):
        return None
    n = len(ours["rounds_ms"])
    peer_ms = [row[p]["rounds_ms"] for p in peers
               if isinstance(row.get(p), dict) and len(row[p].get("rounds_ms") or ()) == n]
    if not peer_ms:
        return None
    return [min(m[i] for m in peer_ms) / ours["rounds_ms"][i] if ours["rounds_ms"][i] > 0 else math.inf
            for i in range(n)]


# -- formatting --------------------------------------------------------------------------------


def _fmt(x: float | None, unit: str) -> str:
    if x is None:
        return "n/a"
    return f"{x:.2f}" if unit == "TB/s" else f"{x:.1f}"


def format_table(rows: list[dict], peers: list[str]) -> str:
    """The summary table: headline rate per implementation, ratios (``rounds``: the least and greatest ours / best
    peer of the interleaved rounds, :func:`round_ratios`), numeric check; then the reasons behind every n/a, each
    reason once with the shapes it covers."""
    cols = ["ours"] + peers
    head = f"{'shape':34s} {'unit':7s} " + " ".join(f"{c:>10s}" for c in cols) + \
        f" {'ours/best':>9s} {'rounds':>9s} {'ours/flash':>10s}  check"
    lines = [head, "-" * len(head)]
    reasons: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        label = shape_label(row["shape"], row["causal"])
        cells = []
        for c in cols:
            cells.append(f"{_fmt(primary(row, c), row['unit']):>10s}")
            err = row.get(c, {}).get("err") if isinstance(row.get(c), dict) else None
            if err:
                reasons.setdefault((c, err), []).append(label)
        rb, rf = ratios(row, peers)
        rb_s = f"{rb:.2f}" if rb else "n/a"
        rf_s = f"{rf:.2f}" if rf else "n/a"
        rr = row.get("ratio_best_rounds")
        rr_s = f"{min(rr):.2f}-{max(rr):.2f}" if rr and len(rr) > 1 else "-"
        lines.append(f"{label:34s} {row['unit']:7s} " + " ".join(cells)
                     + f" {rb_s:>9s} {rr_s:>9s} {rf_s:>10s}  {row.get('check', '')}")
    for (name, why), labels in reasons.items():
        more = f" (+{len(labels) - 3} more)" if len(labels) > 3 else ""
        lines.append(f"n/a {name}: {why} [{'; '.join(labels[:3])}{more}]")
    return "\n".join(lines)


def format_host_time(host: dict) -> str:
    """One line: mha_fwd's and the peers' host time per call, and the acceptance verdict."""
    if not host:
        return "host time: not measured"
    def one(k: str, v: dict) -> str:
        if "p50_us" not in v:
            return f"{k} n/a ({v.get('err', '?')})"
        r = v.get("rounds_p50_us") or [v["p50_us"]]
        return f"{k} {v['p50_us']:.1f} us (rounds {min(r):.1f}-{max(r):.1f})"

    parts = [one(k, v) for k, v in host["results"].items()]
    ours = host["results"].get("ours", {}).get("p50_us")
    verdict = ("PASS" if ours is not None and ours <= HOST_TIME_LIMIT_US else "FAIL") + \
        f" (ours <= {HOST_TIME_LIMIT_US:g} us)"
    how = "interleaved rounds" if host.get("interleaved") else "rounds"
    return (f"host time per call, {shape_label(host['shape'], host['causal'])}, GPU idle, median of "
            f"{host['rounds']} {how} x {host['calls']} calls: " + ", ".join(parts) + f"; {verdict}")


def write_json(path: Path, report: dict) -> None:
    """Write the report atomically (a reader never sees half a file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=1))
    tmp.replace(path)


# -- GPU timing --------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _cycles_per_ms() -> float:
    """Rate of torch.cuda._sleep, measured once (clocks vary between parts)."""
    import torch

    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(10_000)
    s.record()
    torch.cuda._sleep(2_000_000)
    e.record()
    torch.cuda.synchronize()
    return 2_000_000 / max(s.elapsed_time(e), 1e-3)


def gpu_time(fn: Callable[[int], object], n_sets: int, *, warmup_ms: float = 25.0, rep_ms: float = 150.0,
             min_reps: int = 10, max_reps: int = 500, batch: int = 50, max_warmup: int | None = None) -> dict:
    """Median GPU time of ``fn(i)`` (i picks the input set, rotating over ``n_sets``): :func:`gpu_time_paired` of
    ``fn`` alone.

    Like ``triton.testing.do_bench``: estimate, warm up ``warmup_ms``, then ``rep_ms`` of calls,
    each between two CUDA events.  Before each batch a sleep kernel holds the GPU while the host
    queues the batch, so each event pair brackets GPU work and not a launch gap.  ``max_warmup``
    caps the warm-up calls (the estimate comes from the host clock, which a VM can stall: one H100
    run's estimate fell to the 1 us floor and its warm-up to 25,000 calls per row).
    """
    return gpu_time_paired({"fn": fn}, n_sets, warmup_ms=warmup_ms, rep_ms=rep_ms, min_reps=min_reps,
                           max_reps=max_reps, batch=batch, max_warmup=max_warmup)["fn"]


def call_order(n: int, reps: int, order: str = ORDERS[0]) -> list[int]:
    """The order in which :func:`gpu_time_paired` calls ``n`` callables ``reps`` times each (indices into its names).

    ``rotate``: row j is ``j, j + 1, ..., j + n - 1`` (mod n), so callable i always follows callable i - 1 within a
    row: whatever that one leaves behind (dirty L2 lines, ...) lands on i at every call but one in n.
    ``balanced``: an Eulerian circuit of the complete directed graph on the n callables, repeated, so every callable
    follows every other equally often (n - 1 times per circuit of n (n - 1) calls, counting the wrap) and never
    itself; ``reps`` is rounded up to a multiple of n - 1 so each circuit completes."""
    if n < 1 or reps < 1:
        raise ValueError(f"call_order needs n >= 1 and reps >= 1; got n={n}, reps={reps}")
    if order == "rotate":
        return [(j + i) % n for j in range(reps) for i in range(n)]
    if order != "balanced":
        raise ValueError(f"order is {order!r}; accepted: {', '.join(ORDERS)}")
    if n == 1:
        return [0] * reps
    succ = {v: [w for w in range(n) if w != v][::-1] for v in range(n)}   # Hierholzer over every edge v -> w
    stack, circuit = [0], []
    while stack:
        v = stack[-1]
        if succ[v]:
            stack.append(succ[v].pop())
        else:
            circuit.append(stack.pop())
    circuit = circuit[::-1][:-1]   # a closed walk: its last vertex is its first
    return circuit * -(-reps // (n - 1))


def gpu_time_paired(fns: dict[str, Callable[[int], object]], n_sets: int, *, warmup_ms: float = 25.0,
                    rep_ms: float = 150.0, min_reps: int = 10, max_reps: int = 500, batch: int = 50,
                    max_warmup: int | None = None, order: str = ORDERS[0]) -> dict[str, dict]:
    """:func:`gpu_time` of several callables at once, alternating call by call in ``order`` (:func:`call_order`: each
    cycle of it, n calls for ``rotate``, n (n - 1) for ``balanced``, holds as many calls of every callable), each
    between its own two CUDA events, so all of them are timed under the same clocks, however the GPU's clocks drift.
    The input set advances with every call, whichever callable makes it, so no call finds its inputs in L2 from the
    call before it.  ``rep_ms`` is the time of all callables together; ``max_warmup`` caps the warm-up calls of each.
    Returns {name: ``summarize`` of its calls}; an exception propagates (the caller finds the callable that raised)."""
    import torch

    names = list(fns)
    if not names:
        return {}
    sync = torch.cuda.synchronize
    est: dict[str, float] = {}
    for n in names:
        fns[n](0)
        sync()
        t0 = time.perf_counter()
        for i in range(5):
            fns[n](i % n_sets)
        sync()
        est[n] = max((time.perf_counter() - t0) / 5 * 1e3, 1e-3)   # ms per call, >= GPU and host time
    total = sum(est.values())
    warm = max(1, int(warmup_ms / total))
    for i in range(warm if max_warmup is None else min(warm, max_warmup)):
        for n in names:
            fns[n](i % n_sets)
    reps = min(max_reps, max(min_reps, int(rep_ms / total)))
    seq = [names[i] for i in call_order(len(names), reps, order)]
    cpm = _cycles_per_ms() if hasattr(torch.cuda, "_sleep") else 0.0
    times: dict[str, list[float]] = {n: [] for n in names}
    step = batch * len(names)
    for c0 in range(0, len(seq), step):   # (c: calls made, the input set's index)
        ev = [(n, torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for n in seq[c0:c0 + step]]
        if cpm:
            torch.cuda._sleep(int(cpm * 1.5 * len(ev) / len(names) * min(total, 0.2 * len(names))))
        for c, (n, a, b) in enumerate(ev, c0):
            a.record()
            fns[n](c % n_sets)
            b.record()
        sync()
        for n, a, b in ev:
            times[n].append(a.elapsed_time(b))
    return {n: summarize(times[n]) for n in names}


def gpu_times(fns: dict[str, Callable[[int], object]], n_sets: int, rounds: int = 3, *, rep_ms: float = 60.0,
              timer: Callable[..., dict] | None = None, paired: bool = False,
              paired_timer: Callable[..., dict] | None = None) -> dict[str, dict]:
    """``gpu_time`` of several callables (``fn(i)``, i the input set) with their rounds interleaved.

    Round r times every callable once, the order rotated by r, so a slow drift of the GPU's clocks
    or temperature lands on all of them alike instead of on whichever ran last.  Each result has
    ``summarize``'s keys: ``ms`` / ``ms_p20`` / ``ms_p80`` the medians over the rounds of each round's
    value, ``ms_min`` the least, ``n`` every call; ``rounds_ms`` lists the rounds' medians and
    ``spread`` is their max / min (how far to trust a ratio of two results; None if a round took no
    time).  A callable that raises is reported as ``{"err": ...}`` and left out of the later rounds.
    ``paired``: each round times all callables together with :func:`gpu_time_paired` (call by call, ``rep_ms`` each);
    if that raises, the round times them one by one to find the callable that fails.
    ``timer`` / ``paired_timer`` replace :func:`gpu_time` / :func:`gpu_time_paired` (tests)."""
    if rounds < 1:
        raise ValueError(f"rounds is {rounds}; it must be at least 1")
    timer = timer or gpu_time
    paired_timer = paired_timer or gpu_time_paired
    names = list(fns)
    per: dict[str, list[dict]] = {n: [] for n in names}
    out: dict[str, dict] = {}
    for r in range(rounds if names else 0):
        alive = [n for n in names if n not in out]
        if paired and len(alive) > 1:
            try:
                got = paired_timer({n: fns[n] for n in alive}, n_sets, rep_ms=rep_ms * len(alive))
                for n in alive:
                    per[n].append(got[n])
                continue
            except Exception:   # one of them fails: time them one by one this round, to name it
                pass
        for n in names[r % len(names):] + names[:r % len(names)]:   # round r starts with callable r
            if n in out:
                continue
            try:
                per[n].append(timer(fns[n], n_sets, rep_ms=rep_ms))
            except Exception as e:   # a callable that accepts its first call but fails later is n/a
                out[n] = {"err": f"timing failed: {type(e).__name__}: {e}"[:400]}
    for n in names:
        if n in out:
            continue
        meds = [t["ms"] for t in per[n]]
        total = sum(t["n"] for t in per[n])
        out[n] = {"ms": statistics.median(meds), "ms_p20": statistics.median(t["ms_p20"] for t in per[n]),
                  "ms_p80": statistics.median(t["ms_p80"] for t in per[n]), "ms_min": min(t["ms_min"] for t in per[n]),
                  "n": total, "rounds_ms": meds, "spread": max(meds) / min(meds) if min(meds) > 0 else None}
    return out


def host_time(fn: Callable[[], object], sync: Callable[[], None], rounds: int = 7, calls: int = 300,
              sync_each: bool = True) -> dict:
    """Host time per call: the median over rounds of each round's median, in microseconds.
    ``sync()`` runs after every call (outside the clock: the GPU is idle at each call), or with
    ``sync_each=False`` only after each round (back-to-back calls, the queue never fills)."""
    return host_times({"fn": fn}, sync, rounds, calls, sync_each)["fn"]


def host_times(fns: dict[str, Callable[[], object]], sync: Callable[[], None], rounds: int = 7,
               calls: int = 300, sync_each: bool = True) -> dict[str, dict]:
    """``host_time`` of several callables with their rounds interleaved (round r times every
    callable, in an order rotated by r), so that a slow spell of the machine falls on all of
    them alike instead of on whichever was being timed."""
    for fn in fns.values():
        for _ in range(50):
            fn()
    sync()
    clock = time.perf_counter_ns
    names = list(fns)
    p50s: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn = fns[name]
            samples = []
            for _ in range(calls):
                t0 = clock()
                fn()
                samples.append(clock() - t0)
                if sync_each:
                    sync()
            sync()
            p50s[name].append(statistics.median(samples) / 1e3)
    return {n: {"p50_us": statistics.median(v), "best_round_p50_us": min(v), "rounds_p50_us": v}
            for n, v in p50s.items()}


# -- implementations ---------------------------------------------------------------------------


def _torch_dtype(dtype: str):
    import torch

    return {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]


def make_inputs(shape: Shape, dtype: str, n_sets: int, seed: int) -> list[tuple]:
    """``n_sets`` fresh (q, k, v) BSHD sets, standard normal, never zeros."""
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = _torch_dtype(dtype)
    s = shape
    return [tuple(torch.randn(*dims, device="cuda", dtype=dt, generator=g)
                  for dims in ((s.b, s.sq, s.hq, s.d), (s.b, s.sk, s.hk, s.d), (s.b, s.sk, s.hk, s.d)))
            for _ in range(n_sets)]


def _sdpa_call(backend_name: str, shape: Shape) -> Callable:
    """``f(q, k, v)`` on BSHD tensors through one SDPA backend; returns BSHD output."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION, "default": None}[backend_name]
    s = shape
    kw: dict = {"enable_gqa": s.hq != s.hk}
    if s.causal and s.sq > 1:   # sq == 1 bottom-right causal sees every key: no mask at all
        if s.sq == s.sk:
            kw["is_causal"] = True          # SDPA's is_causal is top-left: equal only when square
        else:
            from torch.nn.attention.bias import causal_lower_right

            kw["attn_mask"] = causal_lower_right(s.sq, s.sk)

    def call(q, k, v):
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        if backend is None:
            return F.scaled_dot_product_attention(qt, kt, vt, **kw).transpose(1, 2)
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(qt, kt, vt, **kw).transpose(1, 2)

    return call


def present_peers(peers: list[str]) -> tuple[list[str], dict[str, str]]:
    """The requested peers installed here, and ``{peer: why not}`` for the others."""
    present, absent = [], {}
    for p in peers:
        if p == "flash_attn":
            try:
                from flash_attn import flash_attn_func  # noqa: F401
            except Exception as e:
                absent[p] = f"not importable ({type(e).__name__}: {e}); pip install flash-attn"
                continue
        present.append(p)
    return present, absent


def implementations(peers: list[str], shape: Shape) -> dict[str, Callable]:
    """``{name: f(q, k, v) -> BSHD out}`` for ours and ``peers`` (all present, see present_peers)."""
    from ..api import mha_fwd

    impls: dict[str, Callable] = {"ours": lambda q, k, v: mha_fwd(q, k, v, causal=shape.causal)}
    for p in peers:
        if p in SDPA_PEERS:
            impls[p] = _sdpa_call(p, shape)
        elif p == "flash_attn":
            from flash_attn import flash_attn_func

            impls[p] = lambda q, k, v, f=flash_attn_func: f(q, k, v, causal=shape.causal)
    return impls


def _first_call(f: Callable, q, k, v):
    """Run ``f`` once; (output, None) or (None, reason) with torch's warnings folded in."""
    import warnings

    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = f(q, k, v)
            torch.cuda.synchronize()
            return out, None
        except Exception as e:
            why = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
            notes = [str(w.message).split("\n")[0] for w in caught if "not used because" in str(w.message)
                     or "kernel" in str(w.message).lower()]
            if notes:
                why += " (" + "; ".join(dict.fromkeys(notes))[:240] + ")"
            return None, why[:400]


def reference_slice(shape: Shape, q, k, v, budget: int = 1 << 25):
    """float64 reference on a slice small enough to hold: batch 0, the first <= 2 KV heads and
    their query heads, the last rows (bottom-right causal is unchanged by dropping top rows).
    Returns (ref, take) where ``take(out)`` cuts the same slice from a full BSHD output."""
    from ..reference import attention_ref

    s = shape
    g = s.hq // s.hk
    kh = min(s.hk, 2)
    qh = kh * g
    rows = max(1, min(s.sq, 128, budget // (qh * s.sk)))

    def take(x):
        return x[:1, s.sq - rows:, :qh]

    ref, _ = attention_ref(take(q), k[:1, :, :kh], v[:1, :, :kh], causal=s.causal)
    return ref, take


def check_verdict(ours_err: float | None, peer_errs: list[float], dtype: str, nan: bool) -> str:
    """``ok``/``BAD`` and the error: the limit is the larger of the sweep's absolute tolerance
    and twice the best peer's error on the same slice."""
    from .sweep import ABS_TOL

    if nan:
        return "BAD: NaN (unwritten output)"
    if ours_err is None:
        return "n/a"
    limit = max([ABS_TOL[dtype]] + [2 * e for e in peer_errs[:1]])
    return f"{'ok' if ours_err <= limit else 'BAD'} {ours_err:.1e}"


# -- the run -----------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    from importlib import metadata

    from .. import __version__

    v = {"pyhipattn": __version__, "python": sys.version.split()[0]}
    for dist in ("torch", "triton", "numpy", "cuda-bindings", "flash-attn", "matplotlib"):
        try:
            v[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            v[dist] = "missing"
    try:
        import torch

        v["torch.cuda"] = str(torch.version.cuda)
        v["cudnn"] = str(torch.backends.cudnn.version())
    except Exception as e:
        v["torch.cuda"] = f"error: {e}"
    return v


def _device() -> dict:
    import torch

    p = torch.cuda.get_device_properties(0)
    dev = {"name": p.name, "sms": p.multi_processor_count, "l2": int(getattr(p, "L2_cache_size", 50 << 20)),
           "cc": f"{p.major}.{p.minor}", "memory": p.total_memory}
    try:
        from ..runtime import get_backend

        info = get_backend().device_info(0)
        dev["arch"], dev["compute_units"] = info.arch, info.compute_units
    except Exception as e:
        dev["arch"] = f"error: {e}"
    return dev


def _plan(shape: Shape, dtype: str, dev: dict) -> dict:
    """Family and split count dispatch picks for this shape (pure planning)."""
    from ..api import plan_mha_fwd

    s = shape
    try:
        dec = plan_mha_fwd((s.b, s.sq, s.hq, s.d), (s.b, s.sk, s.hk, s.d), (s.b, s.sk, s.hk, s.d), dtype=dtype,
                           arch=dev["arch"], compute_units=dev.get("compute_units"), causal=s.causal, explain=True)
        return {"family": dec.family, "splits": dec.num_splits}
    except Exception as e:
        return {"err": f"{type(e).__name__}: {e}"}


def bench_shape(shape: Shape, dtype: str, peers: list[str], dev: dict, seed: int,
                log: Callable[[str], None], rounds: int = 3, paired: bool = True, order: str = ORDERS[0]) -> dict:
    """Check and time ours and every peer on one shape (``rounds`` interleaved rounds, ``paired``: call by call
    within each round in ``order``: :func:`gpu_times`, :func:`call_order`); the row of the report."""
    import torch

    from ..api import mha_fwd
    from ..reference import rel_error

    s = shape
    itemsize = 2
    nbytes = attn_bytes(s.b, s.hq, s.hk, s.sq, s.sk, s.d, itemsize)
    in_bytes = nbytes - itemsize * s.b * s.sq * s.hq * s.d
    n_sets = rotation_sets(in_bytes, dev["l2"])
    row: dict = {"tag": s.tag, "shape": s.dims(), "causal": s.causal, "unit": s.unit,
                 "flops": attn_flops(s.b, s.hq, s.sq, s.sk, s.d, s.causal), "bytes": nbytes, "rotation_sets": n_sets}
    sets = make_inputs(s, dtype, n_sets, seed)
    q, k, v = sets[0]
    ref, take = reference_slice(s, q, k, v)
    impls = implementations(peers, s)
    nan = False
    errs: dict[str, float] = {}
    timed: dict[str, Callable[[int], object]] = {}
    for name, f in impls.items():
        if name == "ours":   # poisoned out=: a NaN left over is an element never written
            poisoned = torch.full((s.b, s.sq, s.hq, s.d), float("nan"), device=q.device, dtype=q.dtype)
            out, why = _first_call(lambda q_, k_, v_: mha_fwd(q_, k_, v_, causal=s.causal, out=poisoned), q, k, v)
            nan = out is not None and bool(torch.isnan(out).any())
        else:
            out, why = _first_call(f, q, k, v)
        if why:
            row[name] = {"err": why}
            log(f"    {name:10s} n/a: {why[:100]}")
            continue
        errs[name] = rel_error(take(out), ref)
        del out
        timed[name] = lambda i, f=f: f(*sets[i])
    paired_timer = functools.partial(gpu_time_paired, order=order)
    for name, t in gpu_times(timed, n_sets, rounds, paired=paired, paired_timer=paired_timer).items():
        if "err" in t:
            row[name] = t
            log(f"    {name:10s} n/a: {t['err'][:100]}")
            continue
        row[name] = {**t, **rates(s, t["ms"], itemsize), "rel_err": errs[name]}
        rate = row[name]["TBps"] if s.decode else row[name]["tflops"]
        log(f"    {name:10s} {t['ms']:9.4f} ms {rate:8.2f} {s.unit}  rel err {errs[name]:.1e}  "
            f"(rounds {min(t['rounds_ms']):.4f}-{max(t['rounds_ms']):.4f} ms)")
    row["ours"] = {**row.get("ours", {}), "plan": _plan(s, dtype, dev)}
    peer_errs = sorted(e for p in peers if math.isfinite(e := row.get(p, {}).get("rel_err", math.inf)))
    row["check"] = check_verdict(row["ours"].get("rel_err"), peer_errs, dtype, nan)
    row["ratio_best"], row["ratio_flash"] = ratios(row, peers)
    row["ratio_best_rounds"] = round_ratios(row, peers)
    return row


def measure_host_time(dtype: str, peers: list[str], rounds: int = 11, calls: int = 200) -> dict:
    """Host time per call of mha_fwd, torch SDPA (default dispatch, no backend context: what a
    user calls) and flash_attn_func where present, on HOST_TIME_SHAPE, the GPU idle each call,
    their rounds interleaved (``host_times``)."""
    import torch

    s = HOST_TIME_SHAPE
    q, k, v = make_inputs(s, dtype, 1, seed=7)[0]
    impls = implementations([p for p in peers if p == "flash_attn"], s)
    impls["sdpa"] = _sdpa_call("default", s)
    res: dict = {}
    timed = {}
    for name, f in impls.items():
        _, why = _first_call(f, q, k, v)
        if why:
            res[name] = {"err": why}
        else:
            timed[name] = lambda f=f: f(q, k, v)
    res.update(host_times(timed, torch.cuda.synchronize, rounds, calls))
    return {"shape": s.dims(), "causal": s.causal, "rounds": rounds, "calls": calls, "interleaved": True,
            "results": {n: res[n] for n in impls}}


def run_bench(args) -> int:
    """``pyhipattn bench``: the sweep, then the JSON, the PNG and the table (printed last)."""
    plot_json = getattr(args, "plot", None)
    if plot_json:
        from .plot import plot_file

        try:
            print(f"wrote {plot_file(Path(plot_json))}")
        except ImportError as e:
            raise RuntimeError(str(e)) from None
        return 0
    shapes = parse_shapes(getattr(args, "shapes", "default"))
    requested = parse_peers(getattr(args, "peers", ",".join(PEERS)))
    dtype = getattr(args, "dtype", "bf16")
    rounds = getattr(args, "rounds", 3)
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"--rounds is {rounds!r}; it must be an integer of at least 1")
    timing = getattr(args, "timing", TIMINGS[0])
    if timing not in TIMINGS:
        raise ValueError(f"--timing is {timing!r}; accepted: {', '.join(TIMINGS)}")
    order = getattr(args, "order", ORDERS[0])
    if order not in ORDERS:
        raise ValueError(f"--order is {order!r}; accepted: {', '.join(ORDERS)}")
    try:
        import torch
    except ImportError:
        raise RuntimeError("bench needs PyTorch (pip install torch) and a GPU it can see") from None

    if not torch.cuda.is_available():
        raise RuntimeError("bench needs a CUDA/ROCm GPU visible to torch; on this machine only "
                           "`pyhipattn bench --plot results.json` works")
    peers, absent = present_peers(requested)
    out_dir = Path(getattr(args, "out", "bench-out"))
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "results.json"

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t0 = time.time()
    dev = _device()
    report: dict = {"command": " ".join(["pyhipattn"] + sys.argv[1:]), "argv": sys.argv, "device": dev,
                    "versions": _versions(), "dtype": dtype, "peers": peers, "peers_absent": absent,
                    "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "conventions": {"flops": "4*b*hq*d*visible pairs, causal bottom-right (square: s(s+1)/2; "
                                             "the baseline used s*s/2 for s >= 8192)",
                                    "bytes": "q+k+v+o once each", "unit": "TB/s when sq <= 16, else TFLOP/s",
                                    "gqa": "SDPA enable_gqa=True (no repeated K/V)",
                                    "timing": f"median over {rounds} rounds of each round's median of per-call "
                                              "CUDA events after warm-up"
                                              + (", ours and the peers alternating call by call within a round"
                                                 f" ({order} order)" if timing == "paired" else
                                                 ", each timed alone in turn (order rotating by round)")
                                              + ", sleep kernel before each batch, inputs rotated past 3x L2"},
                    "host_time": {}, "rows": [], "seconds": 0.0}
    log(f"bench: {dev['name']} ({dev.get('arch')}), {len(shapes)} shapes, {dtype}, peers {peers}; "
        f"writing {json_path}")
    log("host time per call (GPU idle) ...")
    try:
        report["host_time"] = measure_host_time(dtype, peers)
    except Exception as e:
        report["host_time"] = {"err": f"{type(e).__name__}: {e}"}
    write_json(json_path, report)
    for i, s in enumerate(shapes):
        log(f"[{i + 1}/{len(shapes)}] {s.label()} ({s.tag}) {time.time() - t0:.0f}s")
        try:
            row = bench_shape(s, dtype, peers, dev, seed=1000 + i, log=log, rounds=rounds, paired=timing == "paired",
                              order=order)
        except Exception as e:   # e.g. out of memory: the sweep goes on
            row = {"tag": s.tag, "shape": s.dims(), "causal": s.causal, "unit": s.unit,
                   "ours": {"err": f"{type(e).__name__}: {e}"[:400]}, "check": "failed"}
        torch.cuda.empty_cache()   # this shape's inputs are gone: give their memory back
        report["rows"].append(row)
        report["seconds"] = round(time.time() - t0, 1)
        write_json(json_path, report)
    png = out_dir / "results.png"
    try:
        from .plot import plot_results

        plot_results(report, png)
        where = f"plot {png}"
    except ImportError:
        where = (f"no plot: matplotlib is missing (pip install matplotlib, or pip install 'pyhipattn[bench]'), "
                 f"then: pyhipattn bench --plot {json_path}")
    print(f"{dev['name']}: results {json_path}; {where}; {report['seconds']:.0f}s")
    for name, why in absent.items():
        print(f"peer {name} left out: {why}")
    ht = report["host_time"]
    print(format_host_time(ht) if "results" in ht else f"host time: {ht.get('err')}")
    print(format_table(report["rows"], peers))
    return 1 if any(str(r.get("check", "")).startswith(("BAD", "failed")) for r in report["rows"]) else 0
