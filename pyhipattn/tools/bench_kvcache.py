"""``pyhipattn bench-kvcache``: decode over KV caches at the bandwidth limit (issue 13).

For each paged case (block size, batch, context; GQA 32/8, d128 by default) it times one
``mha_fwd_kvcache`` decode step (seqlen_q = 1, every sequence at the full context) and reports
the bytes it must read (K and V of every sequence, plus q and out) per second, against the
device-to-device copy bandwidth measured in the same run (bytes read + written per second of a
``copy_`` of 2 GiB).  Contiguous-cache decode is timed against ``mha_fwd`` on the same data.

Needs torch with a GPU.  Prints a table and writes ``kvcache.json`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from .bench import _device, gpu_time, rotation_sets

DEFAULT_CASES = ([(page, b, ctx) for page in (16, 64) for b in (1, 8, 64) for ctx in (4096, 16384, 65536, 131072)]
                 + [(16, 16, 2048), (16, 16, 4096), (64, 16, 4096)]                 # FlashAttention-3's shapes
                 + [(0, 1, 131072), (0, 8, 16384), (0, 64, 4096)])                  # contiguous vs mha_fwd
FA3_PAGED_TBS = (1.80, 1.85)   # FlashAttention-3's published paged decode on the H100: batch 16, 2k-4k, page 8


def parse_cases(spec: str) -> list[tuple[int, int, int]]:
    """'default' or a JSON list of [block_size, batch, context] (block size 0: contiguous)."""
    if spec == "default":
        return list(DEFAULT_CASES)
    try:
        rows = json.loads(spec)
        cases = [(int(p), int(b), int(c)) for p, b, c in rows]
    except (ValueError, TypeError) as e:
        raise ValueError(f"--cases is {spec!r}; accepted: 'default' or a JSON list of [block_size, batch, context]") \
            from e
    for p, b, c in cases:
        if b < 1 or c < 1 or p < 0 or (p and c % p):
            raise ValueError(f"--cases has [{p}, {b}, {c}]; batch and context must be >= 1 and the context a "
                             "multiple of the block size")
    return cases


def copy_bandwidth(torch, nbytes: int = 2 << 30) -> dict:
    """Device-to-device copy: (bytes read + bytes written) / median time, TB/s."""
    src = torch.empty(nbytes // 2, dtype=torch.float16, device="cuda")
    dst = torch.empty_like(src)
    t = gpu_time(lambda i: dst.copy_(src), 1, rep_ms=300.0)
    del src, dst
    return {"bytes": 2 * nbytes, "ms": t["ms"], "tbs": 2 * nbytes / (t["ms"] * 1e-3) / 1e12}


def _caches(torch, page: int, b: int, ctx: int, hk: int, d: int, gen):
    """K and V caches (paged with a shuffled block table, or contiguous) holding ctx tokens each."""
    if page:
        n = b * ctx // page
        kc = torch.randn(n, page, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        vc = torch.randn(n, page, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        bt = torch.randperm(n, device="cuda", generator=gen).to(torch.int32).reshape(b, ctx // page)
        return kc, vc, bt
    kc = torch.randn(b, ctx, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    vc = torch.randn(b, ctx, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    return kc, vc, None


def heuristic_splits(page: int, b: int, ctx: int, hq: int, hk: int, d: int, dev: dict) -> int:
    """The split count dispatch picks for this decode on this device (pure planning)."""
    import pyhipattn

    kc = (b * ctx // page, page, hk, d) if page else (b, ctx, hk, d)
    dec = pyhipattn.plan_mha_fwd_kvcache((b, 1, hq, d), kc, kc, arch=dev["arch"], compute_units=dev.get("compute_units"),
                                         block_table_shape=(b, ctx // page) if page else None, causal=True,
                                         explain=True)
    return dec.num_splits


def bench_case(torch, page: int, b: int, ctx: int, hq: int, hk: int, d: int, l2: int, dev: dict | None = None,
               factors: tuple[float, ...] = (1,)) -> dict:
    """One decode step over full caches; the row for the table.  ``factors`` other than 1 also
    time the heuristic's split count times each factor (``splits_ms``: {splits: ms})."""
    import pyhipattn

    gen = torch.Generator(device="cuda").manual_seed(page * 7 + b * 131 + ctx)
    kv_bytes = 2 * b * ctx * hk * d * 2
    moved = kv_bytes + 2 * b * hq * d * 2
    sets = rotation_sets(kv_bytes, l2, cap=4)
    data = []
    for _ in range(sets):
        kc, vc, bt = _caches(torch, page, b, ctx, hk, d, gen)
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        lens = torch.full((b,), ctx, dtype=torch.int32, device="cuda")
        data.append((q, kc, vc, bt, lens, torch.empty_like(q)))

    def stepper(splits: int):
        def step(i):
            q, kc, vc, bt, lens, out = data[i]
            return pyhipattn.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens, block_table=bt, causal=True, out=out,
                                             num_splits=splits)
        return step

    t = gpu_time(stepper(0), sets)
    row = {"block_size": page, "batch": b, "context": ctx, "hq": hq, "hk": hk, "d": d, "bytes": moved,
           "ms": t["ms"], "ms_p20": t["ms_p20"], "ms_p80": t["ms_p80"], "tbs": moved / (t["ms"] * 1e-3) / 1e12}
    if dev is not None and any(f != 1 for f in factors):
        base = heuristic_splits(page, b, ctx, hq, hk, d, dev)
        row["splits"] = base
        row["splits_ms"] = {}
        for f in factors:
            s_ = max(1, round(base * f))
            if s_ != base and str(s_) not in row["splits_ms"]:
                row["splits_ms"][str(s_)] = gpu_time(stepper(s_ if s_ > 1 else 1), sets)["ms"]
    if not page:
        def dense(i):
            q, kc, vc, _, _, out = data[i]
            return pyhipattn.mha_fwd(q, kc, vc, causal=True, out=out)
        td = gpu_time(dense, sets)
        row["mha_fwd_ms"] = td["ms"]
    del data
    torch.cuda.empty_cache()
    return row


def format_table(rows: list[dict], copy: dict) -> str:
    head = f"{'kv':>9} {'batch':>5} {'context':>7} {'ms':>8} {'TB/s':>6} {'% copy':>6} {'mha_fwd ms':>10}"
    lines = [f"copy bandwidth (read + write, same run): {copy['tbs']:.2f} TB/s", head, "-" * len(head)]
    for r in rows:
        kv = f"paged{r['block_size']}" if r["block_size"] else "contig"
        dense = f"{r['mha_fwd_ms']:.4f}" if "mha_fwd_ms" in r else "-"
        other = "".join(f"  s{s}: {ms:.3f}" for s, ms in r.get("splits_ms", {}).items())
        base = f"  (s{r['splits']})" if "splits" in r else ""
        lines.append(f"{kv:>9} {r['batch']:>5} {r['context']:>7} {r['ms']:>8.4f} {r['tbs']:>6.2f} "
                     f"{100 * r['tbs'] / copy['tbs']:>5.0f}% {dense:>10}{base}{other}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        import torch
    except ImportError:
        print("pyhipattn bench-kvcache: needs torch", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("pyhipattn bench-kvcache: no GPU visible to torch", file=sys.stderr)
        return 2
    cases = parse_cases(args.cases)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    free = torch.cuda.mem_get_info()[0]
    copy = copy_bandwidth(torch)
    dev = _device()
    try:
        factors = tuple(float(x) for x in args.split_factors.split(","))
    except ValueError:
        raise ValueError(f"--split-factors is {args.split_factors!r}; accepted: numbers separated by commas") from None
    rows = []
    for n, (page, b, ctx) in enumerate(cases, 1):
        need = 2 * b * ctx * args.heads_k * args.head_dim * 2
        if need > free * 0.8:
            print(f"[{n}/{len(cases)}] skip block {page} batch {b} context {ctx}: {need / 2**30:.1f} GiB of cache "
                  f"does not fit", file=sys.stderr)
            continue
        print(f"[{n}/{len(cases)}] block {page} batch {b} context {ctx}", file=sys.stderr, flush=True)
        rows.append(bench_case(torch, page, b, ctx, args.heads_q, args.heads_k, args.head_dim, l2, dev, factors))
    report = {"device": props.name, "arch": dev.get("arch"), "copy": copy, "rows": rows, "fa3_published_paged_tbs": FA3_PAGED_TBS}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kvcache.json").write_text(json.dumps(report, indent=1))
    print(format_table(rows, copy))
    long = [r for r in rows if r["block_size"] and r["context"] >= 65536]
    if long:
        worst = min(long, key=lambda r: r["tbs"])
        print(f"long contexts (>= 64k): worst {worst['tbs']:.2f} TB/s = {100 * worst['tbs'] / copy['tbs']:.0f}% of copy")
    for r in rows:
        if r["block_size"] and r["batch"] == 16 and r["context"] <= 4096:
            print(f"paged{r['block_size']} batch 16 context {r['context']}: {r['tbs']:.2f} TB/s = "
                  f"{r['tbs'] / FA3_PAGED_TBS[1]:.2f}x FlashAttention-3's published {FA3_PAGED_TBS[0]}-"
                  f"{FA3_PAGED_TBS[1]} TB/s (their page size 8)")
    for r in rows:
        if "mha_fwd_ms" in r:
            print(f"contiguous batch {r['batch']} context {r['context']}: {r['ms']:.4f} ms vs mha_fwd "
                  f"{r['mha_fwd_ms']:.4f} ms ({r['mha_fwd_ms'] / r['ms']:.3f}x)")
    return 0 if rows and not any(math.isnan(r["tbs"]) for r in rows) else 1


def add_parser(sub) -> None:
    s = sub.add_parser("bench-kvcache", help="time paged / contiguous decode against the copy bandwidth",
                       description="Time one decode step of mha_fwd_kvcache over paged and contiguous caches and "
                                   "report its bandwidth against a device copy measured in the same run; contiguous "
                                   "decode is also timed with mha_fwd. Needs torch and a GPU.")
    s.add_argument("--cases", default="default", help="'default' or a JSON list of [block_size, batch, context]")
    s.add_argument("--heads-q", type=int, default=32)
    s.add_argument("--heads-k", type=int, default=8)
    s.add_argument("--head-dim", type=int, default=128)
    s.add_argument("--split-factors", default="1", metavar="F,F,...",
                   help="also time each case at the heuristic's split count times these factors (e.g. 0.5,1.5,2)")
    s.add_argument("--out", default="bench-out")
    s.set_defaults(fn=run)
