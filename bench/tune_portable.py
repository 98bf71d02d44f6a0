"""Check and time the portable Triton kernels by JIT-running the same source the build
AOT-compiles (kernels/src/portable/attn_fwd.py), with torch tensors.

    python bench/tune_portable.py check          # correctness vs an fp32 reference
    python bench/tune_portable.py bench [--tune] # timings vs torch SDPA flash / cuDNN
    TRITON_INTERPRET=1 python bench/tune_portable.py check --small   # on a CPU

Grid, split and scratch rules mirror pyhipattn/families/portable.py (planned launches are
the same shapes); configs can be overridden to tune.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_spec = importlib.util.spec_from_file_location("portable_attn_fwd", ROOT / "kernels/src/portable/attn_fwd.py")
K = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(K)

from pyhipattn.tools.bench import attn_bytes, attn_flops  # noqa: E402
from pyhipattn.dispatch import split_heuristic  # noqa: E402
from pyhipattn.families.portable import SPLIT_EFFICIENCY, TILES  # noqa: E402

DEV = "cuda" if torch.cuda.is_available() else "cpu"

if os.environ.get("TRITON_INTERPRET") == "1":
    # The interpreter keeps program ids as 1-element arrays; numpy 2 refuses int() on those,
    # which breaks range() over run-time bounds.  Index them by their single element.
    import triton.runtime.interpreter as _interp

    _orig_patch = _interp._patch_lang_tensor

    def _patch_lang_tensor(tensor, scope):
        _orig_patch(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    _interp._patch_lang_tensor = _patch_lang_tensor


def hd_class(d: int) -> int:
    return 64 if d <= 64 else 128 if d <= 128 else 256


def run_attn(q, k, v, *, causal=False, window=(-1, -1), softcap=0.0, scale=None, splits=1, cfg=None,
             cu_q=None, cu_k=None, max_sq=None, max_sk=None, return_lse=True, decode=None):
    """q (b, sq, hq, d) or packed (tq, hq, d) with cu_q; returns (out, lse)."""
    varlen = cu_q is not None
    if varlen:
        tq, hq, d = q.shape
        _, hk, dv = v.shape
        b = cu_q.numel() - 1
        sq, sk = max_sq, max_sk
        qs = (0, q.stride(0), q.stride(1))
        ks = (0, k.stride(0), k.stride(1))
        vs = (0, v.stride(0), v.stride(1))
        out = torch.empty(tq, hq, dv, device=q.device, dtype=q.dtype)
        os_ = (0, out.stride(0), out.stride(1))
        lse = torch.empty(hq, tq, device=q.device, dtype=torch.float32)
        lb, lh = 0, tq
        rows_total = tq
    else:
        b, sq, hq, d = q.shape
        _, sk, hk, dv = v.shape
        qs, ks, vs = q.stride()[:3], k.stride()[:3], v.stride()[:3]
        out = torch.empty(b, sq, hq, dv, device=q.device, dtype=q.dtype)
        os_ = out.stride()[:3]
        lse = torch.empty(b, hq, sq, device=q.device, dtype=torch.float32)
        lb, lh = hq * sq, sq
        rows_total = b * sq
    g = hq // hk
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    wl, wr = window
    if causal:
        wl, wr = (wl if wl >= 0 else -1), 0
    masked = (wl >= 0 or wr >= 0 or softcap > 0)
    if decode is None:
        decode = (not varlen) and sq * g <= 16
    hdc = hd_class(max(d, dv))
    if cfg is None:
        cfg = TILES["sm_90a"][("decode" if decode else "masked" if masked else "plain", hdc)]
    bm, bn, nw, ns = cfg
    if decode:
        masked = True
    ws_split_rows = hq * rows_total
    ws = torch.empty(splits * ws_split_rows * (dv + 1) if splits > 1 else 1, device=q.device, dtype=torch.float32)
    grid = (triton_cdiv(sq * g, bm), b * hk, splits)
    dummy = torch.zeros(2, device=q.device, dtype=torch.int32)
    K.attn_fwd[grid](
        q, k, v, out, lse, cu_q if varlen else dummy, cu_k if varlen else dummy, ws,
        qs[0], ks[0], vs[0], os_[0], qs[1], qs[2], ks[1], ks[2], vs[1], vs[2], os_[1], os_[2],
        lb, lh, ws_split_rows, sq, sk, hk, g, d, dv, wl, wr, int(return_lse), splits, scale, float(softcap),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_D=hdc, BLOCK_DV=hdc, IS_MASKED=masked, IS_VARLEN=varlen,
        HAS_SOFTCAP=masked, num_warps=nw, num_stages=ns)
    if splits > 1:
        br, bdv = 16, 64
        seq_eff, ob = (rows_total, 0) if varlen else (sq, os_[0])
        K.attn_combine[(triton_cdiv(ws_split_rows, br), triton_cdiv(dv, bdv))](
            ws, out, lse, ob, os_[1], os_[2], seq_eff, hq, ws_split_rows, dv, splits, int(return_lse),
            BLOCK_R=br, BLOCK_DV=bdv, num_warps=4)
    return out, lse


def triton_cdiv(a, b):
    return -(-a // b)


def reference(q, k, v, *, causal=False, window=(-1, -1), softcap=0.0, scale=None):
    """fp32 math on (b, s, h, d) tensors; returns out (b, sq, hq, dv) fp32 and lse (b, hq, sq)."""
    b, sq, hq, d = q.shape
    sk, hk = k.shape[1], k.shape[2]
    g = hq // hk
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    qf = q.float().transpose(1, 2)
    kf = k.float().repeat_interleave(g, dim=2).transpose(1, 2)
    vf = v.float().repeat_interleave(g, dim=2).transpose(1, 2)
    s = qf @ kf.transpose(-1, -2) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    wl, wr = window
    if causal:
        wr = 0
    i = torch.arange(sq, device=q.device)[:, None]
    j = torch.arange(sk, device=q.device)[None, :]
    vis = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if wr >= 0:
        vis &= j <= i + sk - sq + wr
    if wl >= 0:
        vis &= j >= i + sk - sq - wl
    s = s.masked_fill(~vis, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - torch.where(torch.isinf(lse), 0.0, lse)[..., None])
    out = (p @ vf).transpose(1, 2)
    return out, lse


def rel_err(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-12)).item()


def check(small: bool) -> list[str]:
    torch.manual_seed(0)
    dt = torch.float16 if os.environ.get("PORTABLE_CHECK_DTYPE") == "fp16" else torch.bfloat16
    cases = [
        # b, sq, sk, hq, hk, d, dv, causal, window, softcap, splits
        (1, 1, 3, 4, 1, 64, 64, False, (-1, -1), 0.0, 1),
        (2, 7, 13, 4, 2, 40, 40, True, (-1, -1), 0.0, 1),
        (1, 17, 5, 2, 2, 64, 64, True, (-1, -1), 0.0, 1),          # sq > sk: early rows see nothing
        (1, 31, 97, 4, 1, 80, 80, False, (5, 3), 0.0, 1),
        (2, 1, 131, 8, 2, 128, 128, True, (-1, -1), 0.0, 4),        # decode, split
        (1, 3, 61, 2, 1, 96, 96, False, (-1, -1), 30.0, 1),
        (1, 9, 200, 4, 4, 192, 128, True, (16, -1), 20.0, 3),
        (1, 64, 64, 2, 1, 256, 256, True, (-1, -1), 0.0, 1),
        (1, 5, 70, 2, 2, 64, 64, False, (-1, -1), 0.0, 16),         # empty splits
    ]
    if not small:
        cases += [
            (2, 257, 509, 8, 2, 128, 128, True, (-1, -1), 0.0, 1),
            (1, 1000, 1000, 4, 4, 64, 64, False, (-1, -1), 0.0, 1),
            (1, 128, 4099, 4, 4, 64, 64, False, (-1, -1), 0.0, 8),
            (3, 1, 1029, 16, 2, 128, 128, True, (64, 0), 0.0, 7),
            (1, 333, 333, 4, 2, 160, 160, True, (100, 10), 50.0, 2),
        ]
    lines = []
    bad = 0
    for (b, sq, sk, hq, hk, d, dv, causal, window, softcap, splits) in cases:
        q = torch.randn(b, sq, hq, d, device=DEV, dtype=dt)
        k = torch.randn(b, sk, hk, d, device=DEV, dtype=dt)
        v = torch.randn(b, sk, hk, dv, device=DEV, dtype=dt)
        ref, ref_lse = reference(q, k, v, causal=causal, window=window, softcap=softcap)
        out, lse = run_attn(q, k, v, causal=causal, window=window, softcap=softcap, splits=splits)
        fin = torch.isfinite(ref_lse)
        e = rel_err(out, ref)
        le = (lse[fin] - ref_lse[fin]).abs().max().item() if fin.any() else 0.0
        ok = e < 2e-2 and le < 1e-2 and not torch.isnan(out).any() and bool((lse[~fin] == float("-inf")).all()) \
            and bool((out.float().transpose(1, 2)[~fin] == 0).all())
        bad += not ok
        lines.append(f"{'ok ' if ok else 'BAD'} b{b} sq{sq} sk{sk} hq{hq} hk{hk} d{d}/{dv} causal={causal} "
                     f"win={window} cap={softcap} G={splits}: rel {e:.2e} lse {le:.1e}")
    # varlen, incl. a zero-length sequence, vs per-sequence reference
    lens_q = [5, 0, 17, 1]
    lens_k = [9, 4, 17, 33]
    hq, hk, d = 4, 2, 64
    for causal, splits in ((True, 1), (False, 3)):
        cu_q = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), dtype=torch.int32, device=DEV)
        cu_k = torch.tensor([0] + list(torch.tensor(lens_k).cumsum(0)), dtype=torch.int32, device=DEV)
        q = torch.randn(sum(lens_q), hq, d, device=DEV, dtype=dt)
        k = torch.randn(sum(lens_k), hk, d, device=DEV, dtype=dt)
        v = torch.randn(sum(lens_k), hk, d, device=DEV, dtype=dt)
        out, lse = run_attn(q, k, v, causal=causal, cu_q=cu_q, cu_k=cu_k, max_sq=max(lens_q), max_sk=max(lens_k),
                            splits=splits)
        errs = []
        for i in range(len(lens_q)):
            a, z = int(cu_q[i]), int(cu_q[i + 1])
            ka, kz = int(cu_k[i]), int(cu_k[i + 1])
            if z == a:
                continue
            ref, ref_lse = reference(q[None, a:z], k[None, ka:kz], v[None, ka:kz], causal=causal)
            errs.append(rel_err(out[a:z], ref[0]))
            fin = torch.isfinite(ref_lse[0])
            errs.append((lse[:, a:z][fin] - ref_lse[0][fin]).abs().max().item() if fin.any() else 0)
        ok = max(errs) < 2e-2
        bad += not ok
        lines.append(f"{'ok ' if ok else 'BAD'} varlen lens_q={lens_q} lens_k={lens_k} causal={causal} G={splits}: "
                     f"max err {max(errs):.2e}")
    lines.append(f"check: {len(lines) - bad} ok, {bad} bad")
    return lines


def bench(tune: bool, out_json: str | None):
    import triton
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dt = torch.bfloat16
    cus = torch.cuda.get_device_properties(0).multi_processor_count
    shapes = [
        # name, b, hq, hk, sq, sk, d, causal
        ("prefill d64", 4, 32, 32, 4096, 4096, 64, False),
        ("prefill d64 causal", 4, 32, 32, 4096, 4096, 64, True),
        ("prefill d128", 4, 32, 32, 4096, 4096, 128, False),
        ("prefill d128 causal", 4, 32, 32, 4096, 4096, 128, True),
        ("16k d128 causal b1", 1, 16, 16, 16384, 16384, 128, True),
        ("longkv", 1, 16, 16, 128, 65535, 64, False),
        ("decode 128k", 1, 32, 8, 1, 131072, 128, True),
        ("decode b16 32k", 16, 32, 8, 1, 32768, 128, True),
    ]
    rows = []
    for name, b, hq, hk, sq, sk, d, causal in shapes:
        q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
        flops = attn_flops(b, hq, sq, sk, d, causal)   # the baseline's convention: exact visible pairs
        nbytes = attn_bytes(b, hq, hk, sq, sk, d)
        decode = sq * (hq // hk) <= 16
        masked = causal and not decode
        kind = "decode" if decode else "masked" if masked else "plain"
        g = hq // hk
        tile = TILES["sm_90a"][(kind, hd_class(d))]
        mt = triton_cdiv(sq * g, tile[0])
        splits = split_heuristic(b * hk * mt, cus, triton_cdiv(sk, tile[1]), efficiency=SPLIT_EFFICIENCY)
        trials = [(None, splits)]
        if tune:
            trials += [(c, splits) for c in TUNE_CFGS.get((kind, hd_class(d)), [])]
            if splits > 1 or decode:
                trials += [(None, s) for s in sorted({max(1, splits // 2), splits * 2, splits * 4}) if s != splits]
        res = {}
        for cfg, sp in trials:
            key = f"{cfg or tile} G={sp}"
            try:
                fn = lambda: run_attn(q, k, v, causal=causal, splits=sp, cfg=cfg, return_lse=False)
                fn()
                ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
                res[key] = ms
            except Exception as e:  # a config that does not fit shows up in the log, not as a crash
                res[key] = f"fail: {type(e).__name__}: {str(e)[:120]}"
        # peers (torch layout b h s d)
        qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
        peers = {}
        for pname, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel([be]):
                    f = lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal and sq > 1,
                                                               enable_gqa=hq != hk)
                    f()
                    peers[pname] = triton.testing.do_bench(f, warmup=50, rep=300, return_mode="median")
            except Exception as e:
                peers[pname] = f"fail: {type(e).__name__}: {str(e)[:80]}"
        ok_ms = {c: t for c, t in res.items() if isinstance(t, float)}
        best_cfg = min(ok_ms, key=ok_ms.get) if ok_ms else None
        ours = ok_ms.get(best_cfg) if best_cfg else None
        rows.append(dict(name=name, shape=(b, hq, hk, sq, sk, d), causal=causal, splits=splits, configs=res,
                         best_cfg=best_cfg, ours_ms=ours, peers_ms=peers, flops=flops, bytes=nbytes, decode=decode))
        print(json.dumps(rows[-1]), flush=True)
    if out_json:
        Path(out_json).write_text(json.dumps(rows, indent=1))
    print(f"\n{'shape':24s} {'G':>3s} {'ours':>9s} {'flash':>9s} {'cudnn':>9s} {'unit':6s} {'/flash':>7s} {'/best':>7s}  best cfg")
    for r in rows:
        def rate(ms):
            if not isinstance(ms, float):
                return float("nan")
            return (r["bytes"] / ms / 1e9) if r["decode"] else (r["flops"] / ms / 1e9)
        o = rate(r["ours_ms"])
        fl = rate(r["peers_ms"].get("flash"))
        cu = rate(r["peers_ms"].get("cudnn"))
        best = max([x for x in (fl, cu) if x == x] or [float("nan")])
        unit = "TB/s" if r["decode"] else "TFLOP"
        print(f"{r['name']:24s} {r['splits']:3d} {o:9.2f} {fl:9.2f} {cu:9.2f} {unit:6s} {o / fl:7.2f} {o / best:7.2f}  {r['best_cfg']}")


def load_cubins() -> str:
    """Load every AOT-built sm_90a object through the driver (cuda-bindings) and look up its
    kernel: proves the committed cubins load on this machine's driver."""
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        return "load: cuda-bindings missing"
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    n, bad = 0, []
    for f in sorted((ROOT / "kernels/co/sm_90a").glob("portable_*.cubin")):
        err, mod = cu.cuModuleLoadData(f.read_bytes())
        if err != cu.CUresult.CUDA_SUCCESS:
            bad.append(f"{f.name}: {err}")
            continue
        err, fn = cu.cuModuleGetFunction(mod, b"attn_combine" if "combine" in f.name else b"attn_fwd")
        if err != cu.CUresult.CUDA_SUCCESS:
            bad.append(f"{f.name}: get function {err}")
        n += 1
        cu.cuModuleUnload(mod)
    return f"load: {n} sm_90a cubins loaded, {len(bad)} failed {bad[:3]}"


# (BLOCK_M, BLOCK_N, num_warps, num_stages) candidates tried with --tune
TUNE_CFGS = {
    ("plain", 64): [(128, 128, 8, 3), (128, 64, 4, 3), (128, 128, 4, 3), (128, 64, 8, 4)],
    ("plain", 128): [(128, 64, 8, 3), (128, 128, 8, 2), (128, 64, 4, 3), (64, 64, 4, 3)],
    ("masked", 64): [(128, 128, 8, 3), (128, 64, 4, 3), (128, 64, 8, 3)],
    ("masked", 128): [(128, 64, 8, 3), (128, 128, 8, 2), (128, 64, 4, 3)],
    ("decode", 128): [(16, 128, 4, 3), (16, 64, 4, 4), (16, 128, 4, 4), (16, 256, 8, 3), (16, 64, 2, 5)],
}


ROUND2 = [
    # name, (b, hq, hk, sq, sk, d, causal), [(cfg, splits), ...]
    ("longkv", (1, 16, 16, 128, 65535, 64, False),
     [((128, 128, 8, 3), 7), ((128, 128, 8, 3), 8), ((128, 128, 8, 3), 9), ((128, 64, 8, 4), 8),
      ((64, 128, 4, 3), 4), ((64, 64, 4, 4), 4), ((128, 128, 8, 4), 8)]),
    ("decode 128k", (1, 32, 8, 1, 131072, 128, True),
     [((16, 128, 4, 3), 15), ((16, 128, 4, 3), 16), ((16, 128, 4, 3), 33), ((16, 64, 4, 3), 16),
      ((16, 64, 4, 3), 33), ((16, 128, 4, 2), 16), ((16, 128, 4, 2), 33), ((16, 64, 8, 4), 16)]),
    ("decode b16 32k", (16, 32, 8, 1, 32768, 128, True),
     [((16, 128, 4, 3), 1), ((16, 128, 4, 3), 2), ((16, 64, 4, 3), 2), ((16, 128, 4, 2), 2)]),
    ("prefill d128 causal", (4, 32, 32, 4096, 4096, 128, True),
     [((128, 64, 8, 3), 1), ((128, 64, 8, 4), 1), ((128, 128, 8, 3), 1)]),
]


def round2():
    """Targeted trials (config x split count) chosen from round 1 (notes/portable.md)."""
    import triton

    dt = torch.bfloat16
    for name, (b, hq, hk, sq, sk, d, causal), trials in ROUND2:
        q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
        flops = attn_flops(b, hq, sq, sk, d, causal)   # the baseline's convention: exact visible pairs
        nbytes = attn_bytes(b, hq, hk, sq, sk, d)
        dec = sq * (hq // hk) <= 16
        for cfg, sp in trials:
            try:
                fn = lambda: run_attn(q, k, v, causal=causal, splits=sp, cfg=cfg, return_lse=False)
                fn()
                ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
                rate = nbytes / ms / 1e9 if dec else flops / ms / 1e9
                print(f"r2 {name:20s} {str(cfg):20s} G={sp:3d} {ms * 1e3:9.1f} us {rate:8.2f} {'TB/s' if dec else 'TFLOP/s'}",
                      flush=True)
            except Exception as e:
                print(f"r2 {name:20s} {str(cfg):20s} G={sp:3d} fail {type(e).__name__}: {str(e)[:100]}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["check", "bench", "all", "load", "round2"])
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    t0 = time.time()
    if a.what in ("load", "all"):
        print(load_cubins(), flush=True)
    if a.what in ("check", "all"):
        for line in check(a.small):
            print(line, flush=True)
    if a.what == "round2":
        round2()
    if a.what in ("bench", "all"):
        bench(a.tune, a.json)
    print(f"[{time.time() - t0:.0f}s]")


if __name__ == "__main__":
    main()
