"""Serving cases of the emulated sweep: KV caches (contiguous or paged, shuffled block tables,
ragged lengths including 0 and full pages), appended tokens, sinks, ALiBi, splits.

Each case is planned by the serve family (a Problem as ``mha_fwd_kvcache`` builds it), run on
the emulator with the caches, lengths and block table in host memory, and compared with
``reference.attention_kvcache_ref``: the output (poisoned with NaN), the LSE, and the caches
after the append bit for bit.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from .. import reference
from ..arch import arch_info, canonical_arch
from ..families import serve
from ..families.base import Problem
from ..runtime.memory import COUNTER_BYTES


@dataclass(frozen=True)
class ServeCase:
    b: int
    sq: int
    hq: int
    hk: int
    d: int
    dtype: str = "bf16"
    page: int = 16             # 0: contiguous cache
    capacity: int = 128        # tokens per sequence the cache holds
    n_new: int = 0
    causal: bool = False
    window: tuple[int, int] = (-1, -1)
    softcap: float = 0.0
    sinks: bool = False
    alibi: int = 0             # 0, 1 (hq,), 2 (b, hq)
    splits: int = 0
    seed: int = 0

    @property
    def id(self) -> str:
        kv = f"paged{self.page}" if self.page else "contig"
        f = "causal" if self.causal else ("window" + str(self.window) if self.window != (-1, -1) else "full")
        extra = "".join(x for x, on in (("+sinks", self.sinks), ("+alibi", self.alibi), ("+softcap", self.softcap),
                                         (f"+new{self.n_new}", self.n_new), (f"-split{self.splits}", self.splits)) if on)
        return f"b{self.b}-sq{self.sq}-{kv}x{self.capacity}-h{self.hq}x{self.hk}-d{self.d}-{self.dtype}-{f}{extra}"


def make_serve_cases(arch: str, n: int = 12, seed: int = 2026) -> list[ServeCase]:
    """Fixed cases for the acceptance's features, then random ones."""
    rng = random.Random(f"{seed}-serve-{arch}")
    out = [
        ServeCase(3, 1, 8, 2, 128, "bf16", page=16, capacity=128, sinks=True),                  # paged decode, sinks
        ServeCase(2, 4, 4, 1, 64, "fp16", page=64, capacity=192, n_new=4, causal=True),        # spec decode, append
        ServeCase(2, 3, 4, 4, 128, "bf16", page=0, capacity=96, alibi=2, causal=True, n_new=3),  # contiguous, ALiBi
        ServeCase(1, 1, 8, 8, 256, "bf16", page=32, capacity=256, splits=4, sinks=True, alibi=1),  # long, split fold
        ServeCase(2, 2, 2, 2, 64, "fp16", page=128, capacity=256, window=(40, 0), causal=True, softcap=5.0),
        ServeCase(4, 1, 4, 2, 64, "bf16", page=256, capacity=512, n_new=1),                     # big pages
        ServeCase(2, 9, 8, 4, 64, "bf16", page=32, capacity=96, causal=True, n_new=2),          # 18 rows: general tile
    ]
    while len(out) < n:
        page = rng.choice((0, 16, 32, 64, 128))
        hk = rng.choice((1, 2))
        out.append(ServeCase(rng.randint(1, 4), rng.choice((1, 2, 5, 16)), hk * rng.choice((1, 2, 4)), hk,
                             rng.choice((64, 128, 256)), rng.choice(("bf16", "fp16")), page=page,
                             capacity=(page or 16) * rng.randint(1, 6), n_new=rng.choice((0, 0, 1, 3)),
                             causal=rng.random() < 0.5, sinks=rng.random() < 0.4, alibi=rng.choice((0, 0, 1, 2)),
                             splits=rng.choice((0, 0, 3)), seed=len(out)))
    return out[:n]


def _strides(a: np.ndarray) -> tuple[int, int, int]:
    return tuple(x // a.itemsize for x in a.strides[:3])


def run_serve_case(c: ServeCase, arch: str, scratch, result, overrides=None, kernels_root=None) -> None:
    """Fill ``result`` (a sweep CaseResult) for ``c`` on ``arch``; ``scratch`` registers host arrays."""
    from .emulated_objects import NP_DTYPES, run_plans

    arch = canonical_arch(arch)
    rng = np.random.default_rng(5000 + c.seed)
    dt = NP_DTYPES[c.dtype]
    cap = c.capacity
    if c.page:
        per_seq = cap // c.page
        pages = c.b * per_seq + 2
        kc = scratch.array(rng.standard_normal((pages, c.page, c.hk, c.d)).astype(dt))
        vc = scratch.array(rng.standard_normal((pages, c.page, c.hk, c.d)).astype(dt))
        bt = scratch.array(rng.permutation(pages)[:c.b * per_seq].reshape(c.b, per_seq).astype(np.int32))
    else:
        kc = scratch.array(rng.standard_normal((c.b, cap, c.hk, c.d)).astype(dt))
        vc = scratch.array(rng.standard_normal((c.b, cap, c.hk, c.d)).astype(dt))
        bt = None
    lens = rng.integers(0, cap - c.n_new + 1, c.b).astype(np.int32)
    lens[0] = 0 if c.b > 1 else lens[0]                      # an empty sequence
    lens[-1] = cap - c.n_new                                  # a full one
    seqlens = scratch.array(lens.copy())
    q = scratch.array(rng.standard_normal((c.b, c.sq, c.hq, c.d)).astype(dt))
    kn = scratch.array(rng.standard_normal((c.b, c.n_new, c.hk, c.d)).astype(dt)) if c.n_new else None
    vn = scratch.array(rng.standard_normal((c.b, c.n_new, c.hk, c.d)).astype(dt)) if c.n_new else None
    sinks = scratch.array(rng.standard_normal(c.hq).astype(np.float32) * 2) if c.sinks else None
    alibi = scratch.array((rng.random(c.hq if c.alibi == 1 else (c.b, c.hq)) * 0.3).astype(np.float32)) \
        if c.alibi else None
    out = scratch.array(np.full((c.b, c.sq, c.hq, c.d), np.nan, dt))
    lse = scratch.array(np.full((c.b, c.hq, c.sq), np.nan, np.float32))
    p = Problem(batch=c.b, seqlen_q=c.sq, seqlen_k=cap, heads_q=c.hq, heads_k=c.hk, head_dim=c.d, head_dim_v=c.d,
                dtype=c.dtype, softmax_scale=1 / np.sqrt(c.d), causal=c.causal,
                window=(c.window[0], 0 if c.causal else c.window[1]), softcap=c.softcap, return_lse=True,
                num_splits=c.splits, q_strides=_strides(q), k_strides=_strides(kc), v_strides=_strides(vc),
                o_strides=_strides(out), kv_layout="paged" if c.page else "cache", page_size=c.page,
                kv_append=c.n_new, cache_seqlens=True, sinks=c.sinks, alibi=c.alibi,
                block_table_stride=bt.strides[0] // 4 if c.page else 0,
                new_k_strides=_strides(kn) if c.n_new else (0, 0, 0), new_v_strides=_strides(vn) if c.n_new else (0, 0, 0))
    why = serve.gate(p, arch)
    if why:
        result.failure = f"not run: the serve gate refuses it ({why})"
        return
    from .. import dispatch

    cus = arch_info(arch).default_cus
    splits = dispatch.resolve_splits(p, serve, arch, cus)
    plans = serve.plan(p, arch, cus, splits)
    result.kernels, result.splits = tuple(pl.kernel for pl in plans), splits
    ws = scratch.array(np.zeros(COUNTER_BYTES + max(pl.workspace_bytes for pl in plans) + 256, np.uint8))
    ptrs = dict(q=q.ctypes.data, k=kc.ctypes.data, v=vc.ctypes.data, out=out.ctypes.data, lse=lse.ctypes.data,
                cache_seqlens=seqlens.ctypes.data, block_table=bt.ctypes.data if c.page else 0,
                sinks=sinks.ctypes.data if c.sinks else 0, alibi=alibi.ctypes.data if c.alibi else 0,
                k_new=kn.ctypes.data if c.n_new else 0, v_new=vn.ctypes.data if c.n_new else 0,
                workspace=ws.ctypes.data + COUNTER_BYTES)
    k0, v0 = kc.copy(), vc.copy()
    t0 = time.perf_counter()
    result.wave_instructions += run_plans(plans, ptrs, arch, kernels_root, overrides)
    result.seconds = time.perf_counter() - t0
    nan = int(np.isnan(out.astype(np.float32)).sum())
    if nan:
        result.failure = f"{nan} output elements are NaN (unwritten or broken)"
        return
    ro, rl, rk, rv = reference.attention_kvcache_ref(q, k0, v0, lens, block_table=bt, k_new=kn, v_new=vn,
                                                     causal=c.causal, window=c.window, softcap=c.softcap,
                                                     sinks=sinks, alibi_slopes=alibi)
    if c.n_new and not (np.array_equal(kc.view(np.uint16), rk.astype(dt).view(np.uint16))
                        and np.array_equal(vc.view(np.uint16), rv.astype(dt).view(np.uint16))):
        result.failure = "the caches after the append differ from the reference's"
        return
    result.error = reference.rel_error(out, ro)
    result.limit = {"bf16": 1e-2, "fp16": 2e-3}[c.dtype]
    if result.error > result.limit:
        result.failure = f"rel error {result.error:.3e} > {result.limit:.0e}"
        return
    if not np.array_equal(np.isneginf(lse), np.isneginf(rl)):
        result.failure = "lse is -inf at other rows than the reference's rows without keys"
        return
    fin = np.isfinite(rl)
    result.lse_error = float(np.abs(lse[fin] - rl[fin]).max()) if fin.any() else 0.0
    if fin.any() and not np.allclose(lse[fin], rl[fin], rtol=1e-3, atol=2e-3):
        result.failure = f"lse differs by up to {result.lse_error:.3e}"
