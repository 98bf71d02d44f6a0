"""The serving family: KV caches (contiguous or paged) with per-sequence lengths read on the
GPU, new tokens appended in the same call, attention sinks and ALiBi.  One Triton source
(kernels/src/portable/attn_serve.py) AOT-compiled for every shipped arch by
scripts/build/serve.py, like the portable family.

Dispatch gives it every problem that uses one of those features (``Problem.serving``) and
nothing else: the other families refuse them, and for plain problems it ranks below
``portable``.  Launches: ``kv_append`` first when the call appends tokens (k_new / v_new into
the caches at cache_seqlens[b]), then ``attn_serve`` (split-K folded in the same launch by
the last split of each row tile, as the portable family's fold).

Variants per arch: dtype x head-dim class (64 / 128 / 256) x where the keys live (kv_mode 0:
dense arrays or a contiguous cache, 1: a paged cache, 2: varlen), plus two append kernels
(contiguous, paged) that copy 16-bit words for both dtypes; on NVIDIA and CDNA each fwd variant
also has two decode twins with a 16-row pipelined tile for seqlen_q * group_size <= 16:
``_decode`` (softcap and ALiBi compiled out) and ``_decode_mods`` (for problems with them), and
where SPLIT_DECODE_TILES lists one a ``_decode_split`` twin for plain decode that is split.
General tiles are chosen to fit the registers (the build refuses spills); the decode tiles were
measured on the H100 (notes/serving.md).
"""

from __future__ import annotations

from functools import lru_cache

from ..arch import canonical_arch
from ..kernargs import StructLayout, layout_from_header
from ..kernels_dir import header, kernels_dir
from ..manifest import family_manifest
from ..plan import LaunchPlan
from ..runtime.memory import SPLIT_COUNTERS
from .base import Problem, gqa_refusal
from .portable import head_dim_class

NAME = "serve"
PRIORITY = 5            # below portable: plain problems never come here
SERVING = True          # dispatch sends KV-cache / sink / ALiBi problems only to SERVING families
HEADER = header("portable/serve_args.h")
DTYPES = ("bf16", "fp16")
HEAD_DIM_CLASSES = (64, 128, 256)
KV_MODES = {"dense": 0, "cache": 0, "paged": 1, "varlen": 2}
MODE_NAMES = ("contig", "paged", "varlen")
PAGE_MULTIPLE = 16      # page sizes the kernels accept: multiples of 16 tokens
MAX_GRID_YZ = 65535
MAX_SPLITS = 128
SPLIT_EFFICIENCY = 0.95
_I32_MAX = 2**31 - 1

# (BLOCK_M, BLOCK_N, num_warps, num_stages) per arch and head-dim class
TILES: dict[str, dict[int, tuple[int, int, int, int]]] = {
    "sm_90a": {64: (64, 64, 4, 1), 128: (64, 64, 4, 1), 256: (64, 32, 8, 1)},
    "sm_80": {64: (64, 64, 4, 1), 128: (64, 64, 4, 1), 256: (32, 32, 4, 1)},
    "gfx942": {64: (32, 64, 4, 1), 128: (32, 64, 4, 1), 256: (16, 32, 4, 1)},
    "gfx950": {64: (32, 64, 4, 1), 128: (32, 64, 4, 1), 256: (16, 32, 4, 1)},
    "gfx1100": {64: (16, 32, 4, 1), 128: (16, 16, 4, 1), 256: (16, 16, 4, 1)},
}
for _rdna in ("gfx1101", "gfx1102", "gfx1200", "gfx1201"):
    TILES[_rdna] = TILES["gfx1100"]
#: every arch pyhipattn knows gets the serving kernels (the portable family skips gfx1101-1201)
ARCHES = tuple(TILES)
APPEND_TILE = (16, 256, 4, 1)   # BLOCK_T tokens, BLOCK_D, num_warps, num_stages
#: decode tiles (seqlen_q * group_size <= BLOCK_M): 16 query rows and a pipelined KV loop, the
#: portable family's decode tiles.  The general tiles' 64 rows and single stage left paged decode
#: at half the copy bandwidth on the H100 (notes/serving.md).  RDNA's general tiles are already 16.
DECODE_TILES: dict[str, dict[int, tuple[int, int, int, int]]] = {
    # d128 measured on the H100 (bench-kvcache, notes/serving.md): 8 warps and 3 stages beat
    # 4 warps / 2 stages and 16x32 tiles; 4 warps / 3 stages needed a stack frame when paged
    "sm_90a": {64: (16, 64, 4, 3), 128: (16, 64, 8, 3), 256: (16, 64, 4, 3)},
    "sm_80": {64: (16, 128, 4, 3), 128: (16, 128, 4, 3), 256: (16, 64, 4, 3)},
    "gfx942": {64: (16, 64, 4, 2), 128: (16, 64, 4, 2), 256: (16, 32, 4, 1)},   # 16x64 d256 spilled SGPRs
    "gfx950": {64: (16, 128, 4, 2), 128: (16, 128, 4, 2), 256: (16, 32, 4, 2)},
}
#: paged decode tiles where they differ from DECODE_TILES.  Each KV tile's block-table read takes
#: one pipeline stage of its own (Triton's pipeliner keeps (num_stages - 1) // 2 K/V buffers for
#: these indirect loads: 3 stages give one buffer, so every tile's load latency was exposed).
#: sm_90a: 5 stages, two K+V buffers of 64 KB (d128: 128 keys; d256: 64 keys, 8 warps), one
#: program per SM (140 KB of shared memory); on the H100 batch-1 64k decode went from 78-80% to
#: 85% of copy at d128 and from 86-87% to 93% at d256 (notes/serving.md).
PAGED_DECODE_TILES: dict[str, dict[int, tuple[int, int, int, int]]] = {
    "sm_90a": {128: (16, 128, 8, 5), 256: (16, 64, 8, 5)},
}
#: split-K twins of the plain contiguous decode objects, (kv_mode, head-dim class) -> tile: plain
#: decode problems (no softcap / ALiBi) that the plan splits take ``_decode_split`` instead of
#: ``_decode``.  sm_90a d128: 4 warps, the portable family's decode tile.  On the H100 (bf16,
#: GQA 32/8, notes/serving.md, 2026-11-26, issue13d) the 4-warp object ran 0.997-1.000x mha_fwd
#: at batch 1 / 128k (16 splits) and batch 8 / 8k-32k (2 splits) where the 8-warp one ran
#: 0.988-0.998x, but 3.5% slower than it at batch 64 / 4k (no split, 512 programs).
SPLIT_DECODE_TILES: dict[str, dict[tuple[int, int], tuple[int, int, int, int]]] = {
    "sm_90a": {(0, 128): (16, 64, 4, 3)},
}
#: the split-K fold's loads (kernel constexprs FOLD_SPLITS, FOLD_UNROLL, FOLD_CHUNK) per decode
#: tile.  FOLD_CHUNK > 0: one online pass over the splits, FOLD_CHUNK splits' lse and partials per
#: load (two when the launch has at most two splits), the other two unused; else every split's
#: lse in chunks of FOLD_SPLITS, then the partials' loop unrolled FOLD_UNROLL times.  The fold is
#: the launch's serial tail.  sm_90a d128: chunks of 8 (8-warp objects; SPLIT_FOLD_CHUNK for the
#: 4-warp split twins, where 8 needed a stack frame).  On the H100 (notes/serving.md, 2026-11-26,
#: issue13e) the online fold took paged decode at batch 1 / 64k from 86.0% to 87.8% of copy and
#: the 4-warp contiguous twin from 0.998x to 1.004x mha_fwd at batch 8 / 8k (2 splits) and from
#: 0.999x to 1.012x at batch 1 / 128k (16 splits), where the two-pass (32, 4) fold cost three
#: dependent loads at two splits.  d64 ran 1-5% slower with (32, 2) than with (1, 1, 0), and d256
#: paged reached 255 registers at (32, 2); every other object folds one split per step.
DECODE_FOLD: dict[str, dict[int, tuple[int, int, int]]] = {
    "sm_90a": {128: (32, 4, 8)},
}
SPLIT_FOLD_CHUNK: dict[str, dict[tuple[int, int], int]] = {
    "sm_90a": {(0, 128): 4},
}


#: decode objects are built with the kernel's DECODE_LOOP: the key blocks every query row sees in
#: full in a loop of their own without masks, then the edge blocks masked (attn_fwd's split of the
#: key range), contiguous / varlen keys addressed from each block's first key.  The general tiles
#: keep the single masked loop and per-row addresses (notes/serving.md, branch issue13d).
DECODE_LOOP = True


def variant_name(dtype: str, hd_class: int, kv_mode: int, decode: bool = False, mods: bool = False,
                 split: bool = False) -> str:
    """``fwd_bf16_d128_paged``; decode objects ``..._decode`` (softcap / ALiBi compiled out),
    ``..._decode_mods`` (compiled in) and ``..._decode_split`` (SPLIT_DECODE_TILES)."""
    if not decode:
        return f"fwd_{dtype}_d{hd_class}_{MODE_NAMES[kv_mode]}"
    return f"fwd_{dtype}_d{hd_class}_{MODE_NAMES[kv_mode]}_decode" + ("_mods" if mods else "_split" if split else "")


def score_mods(problem: Problem) -> bool:
    """Whether ``problem`` needs softcap or ALiBi in the scores (a decode problem then takes the
    ``_decode_mods`` object: those branches cost the plain decode loop 0.2-0.5% on the H100)."""
    return problem.softcap > 0 or problem.alibi != 0


def is_decode(problem: Problem, arch: str) -> bool:
    """Whether ``problem`` takes ``arch``'s decode tile: it has one, and every query row of a KV
    head (seqlen_q * group_size, max_seqlen_q for varlen) fits its BLOCK_M."""
    tiles = DECODE_TILES.get(canonical_arch(arch))
    hdc = head_dim_class(problem)
    return bool(tiles) and hdc is not None and problem.seqlen_q * problem.group_size <= tiles[hdc][0]


def decode_tile(arch: str, hd_class: int, kv_mode: int) -> tuple[int, int, int, int]:
    """``arch``'s decode tile for ``hd_class`` and ``kv_mode`` (paged ones may differ)."""
    paged = PAGED_DECODE_TILES.get(arch, {}) if kv_mode == 1 else {}
    return paged.get(hd_class) or DECODE_TILES[arch][hd_class]


def tile(problem: Problem, arch: str) -> tuple[int, int, int, int]:
    """(BLOCK_M, BLOCK_N, num_warps, num_stages) that ``problem`` runs with on ``arch``."""
    a, hdc = canonical_arch(arch), head_dim_class(problem) or 256
    return decode_tile(a, hdc, kv_mode(problem)) if is_decode(problem, a) else TILES[a][hdc]


def variants(arch: str) -> list[dict]:
    """Every object the build makes for ``arch``."""
    out = []
    for dt in DTYPES:
        for hdc in HEAD_DIM_CLASSES:
            bm, bn, nw, ns = TILES[arch][hdc]
            for mode in range(3):
                out.append(dict(name=variant_name(dt, hdc, mode), role="fwd", dtype=dt, head_dim_class=hdc,
                                kv_mode=mode, block_m=bm, block_n=bn, num_warps=nw, num_stages=ns,
                                fold_splits=1, fold_unroll=1, fold_chunk=0, decode_loop=False, score_mods=True))
                if arch in DECODE_TILES:
                    dm, dn, dw, ds = decode_tile(arch, hdc, mode)
                    fs, fu, fc = DECODE_FOLD.get(arch, {}).get(hdc, (1, 1, 0))
                    for mods in (False, True):
                        out.append(dict(name=variant_name(dt, hdc, mode, True, mods), role="fwd", dtype=dt,
                                        head_dim_class=hdc, kv_mode=mode, block_m=dm, block_n=dn, num_warps=dw,
                                        num_stages=ds, fold_splits=fs, fold_unroll=fu, fold_chunk=fc,
                                        decode_loop=DECODE_LOOP, score_mods=mods))
                    if (mode, hdc) in SPLIT_DECODE_TILES.get(arch, {}):
                        sm, sn, sw, ss = SPLIT_DECODE_TILES[arch][(mode, hdc)]
                        out.append(dict(name=variant_name(dt, hdc, mode, True, split=True), role="fwd", dtype=dt,
                                        head_dim_class=hdc, kv_mode=mode, block_m=sm, block_n=sn, num_warps=sw,
                                        num_stages=ss, fold_splits=fs, fold_unroll=fu,
                                        fold_chunk=SPLIT_FOLD_CHUNK.get(arch, {}).get((mode, hdc), fc),
                                        decode_loop=DECODE_LOOP, score_mods=False))
    bt, bd, nw, ns = APPEND_TILE
    for mode in (0, 1):
        out.append(dict(name=f"append_{MODE_NAMES[mode]}", role="append", dtype="b16", head_dim_class=0,
                        kv_mode=mode, block_m=bt, block_n=bd, num_warps=nw, num_stages=ns))
    return out


@lru_cache(maxsize=None)
def layout(struct_name: str) -> StructLayout:
    return layout_from_header(HEADER, struct_name)


def _pack(struct_name: str, values: dict, slots) -> tuple[bytes, tuple[tuple[str, int], ...]]:
    """Pack ``values`` (pointers 0) and return the bytes and each pointer slot's (name, offset);
    ``slots`` are field names, or (slot name, field name) where they differ."""
    lay = layout(struct_name)
    data = lay.packer().pack(**{n: values.get(n, 0) for n in lay.names})
    pairs = [(s, s) if isinstance(s, str) else s for s in slots]
    return data, tuple((slot, lay[field].offset) for slot, field in pairs)


@lru_cache(maxsize=None)
def manifest(arch: str) -> dict | None:
    """The build's manifest for ``arch`` (kernels/co/<arch>/serve_manifest.json), or None."""
    return family_manifest(arch, "serve")


def kv_mode(problem: Problem) -> int:
    return KV_MODES["varlen" if problem.varlen else problem.kv_layout]


def gate(problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
    """None when the serving kernels run ``problem`` on ``arch``, else why not."""
    p = problem
    if not p.serving:
        return "not a KV-cache / sink / ALiBi problem (the other families run it)"
    try:
        a = canonical_arch(arch)
    except ValueError as e:
        return str(e)
    if a not in ARCHES:
        return f"serving kernels are built for {', '.join(ARCHES)}, not {a}"
    if manifest(a) is None:
        return f"no serving code objects for {a} (kernels/co/{a}/serve_manifest.json missing; run scripts/build_co.sh serve)"
    if p.dtype not in DTYPES:
        return f"dtype {p.dtype} is not supported (bf16, fp16)"
    for nm, d in (("head_dim", p.head_dim), ("head_dim_v", p.head_dim_v)):
        if not 8 <= d <= HEAD_DIM_CLASSES[-1] or d % 8:
            return f"{nm} {d} is not a multiple of 8 in 8..{HEAD_DIM_CLASSES[-1]} (pad the head dim)"
    if why := gqa_refusal(p):
        return why
    if p.batch * p.heads_k > MAX_GRID_YZ:
        return f"batch * heads_k = {p.batch * p.heads_k} exceeds the grid limit {MAX_GRID_YZ}"
    if p.kv_layout == "paged" and (p.page_size <= 0 or p.page_size % PAGE_MULTIPLE):
        return f"page size {p.page_size} is not a positive multiple of {PAGE_MULTIPLE}"
    rows = p.total_q if p.varlen else p.batch * p.seqlen_q
    if max(p.seqlen_q * p.group_size, p.seqlen_k, p.heads_q * rows * max(p.head_dim_v, 1)) > _I32_MAX:
        return "sequence too long for 32-bit row indices"
    for nm, s in (("q", p.q_strides), ("k", p.k_strides), ("v", p.v_strides), ("out", p.o_strides)):
        if any(x % 8 for x in s):
            return f"{nm} strides {s} are not multiples of 8 elements (the kernels use 16-byte loads)"
        if any(abs(x) > _I32_MAX for x in s[1:]):
            return f"{nm} sequence/head strides {s[1:]} exceed 32 bits"
    name = variant_name(p.dtype, head_dim_class(p), kv_mode(p), is_decode(p, a), score_mods(p))
    if name not in manifest(a)["by_name"]:
        return f"variant serve_{name} is not in kernels/co/{a} (rebuild: scripts/build_co.sh serve)"
    return None


def split_work(problem: Problem, arch: str) -> tuple[int, int]:
    """(parallel programs, KV blocks of the longest sequence) for dispatch's split heuristic."""
    bm, bn, _, _ = tile(problem, arch)
    programs = problem.batch * problem.heads_k * -(-problem.seqlen_q * problem.group_size // bm)
    return programs, -(-problem.seqlen_k // bn)


def split_occupancy(problem: Problem, arch: str) -> int:
    """Programs per compute unit the split heuristic fills: 2 for paged caches (each KV tile waits
    on a block-table load first: on the H100 twice the splits of one wave ran 1.3x faster at batch
    1-16 and no slower at 64), 1 otherwise (contiguous decode matched mha_fwd at one wave); 1 also
    for the paged decode tiles of PAGED_DECODE_TILES, whose shared memory leaves room for one."""
    a = canonical_arch(arch)
    if problem.kv_layout != "paged":
        return 1
    return 1 if is_decode(problem, a) and head_dim_class(problem) in PAGED_DECODE_TILES.get(a, {}) else 2


def plan(problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
    """The append launch (when tokens are appended), then the attention launch."""
    why = gate(problem, arch, compute_units)
    if why:
        raise ValueError(f"serve family cannot run this problem on {arch}: {why}")
    a = canonical_arch(arch)
    p = problem
    m = manifest(a)
    mode = kv_mode(p)
    decode, mods = is_decode(p, a), score_mods(p)
    obj = m["by_name"][variant_name(p.dtype, head_dim_class(p), mode, decode, mods)]
    g = p.group_size
    tiles = -(-p.seqlen_q * g // obj["block_m"])
    splits = min(max(num_splits, 1), MAX_GRID_YZ, max(1, -(-p.seqlen_k // obj["block_n"])))
    if tiles * p.batch * p.heads_k > SPLIT_COUNTERS:
        splits = 1
    if decode and not mods and splits > 1:
        twin = m["by_name"].get(variant_name(p.dtype, head_dim_class(p), mode, True, split=True))
        if twin is not None and (twin["block_m"], twin["block_n"]) == (obj["block_m"], obj["block_n"]):
            obj = twin      # same tile shape: the same grid and splits
    rows_total = p.total_q if p.varlen else p.batch * p.seqlen_q
    ws_split_rows = p.heads_q * rows_total
    lb, lh = (0, rows_total) if p.varlen else (p.heads_q * p.seqlen_q, p.seqlen_q)
    wl, wr = p.window
    if p.causal:
        wr = 0
    plans = []
    qs, ks, vs, os_ = p.q_strides, p.k_strides, p.v_strides, p.o_strides
    if p.kv_append:
        app = m["by_name"][f"append_{MODE_NAMES[1 if p.kv_layout == 'paged' else 0]}"]
        ns_, ws_ = p.new_k_strides, p.new_v_strides
        aargs, aslots = _pack("serve_append_args", dict(
            stride_nb=ns_[0], stride_ns=ns_[1], stride_nh=ns_[2], stride_wb=ws_[0], stride_ws=ws_[1],
            stride_wh=ws_[2], stride_kb=ks[0], stride_ks=ks[1], stride_kh=ks[2], stride_vb=vs[0],
            stride_vs=vs[1], stride_vh=vs[2], stride_bt=p.block_table_stride, n_new=p.kv_append,
            heads_kv=p.heads_k, head_dim=p.head_dim, head_dim_v=p.head_dim_v, page_size=p.page_size or 1),
            ("k_new", "v_new", ("k", "k_cache"), ("v", "v_cache"), "cache_seqlens")
            + (("block_table",) if p.kv_layout == "paged" else ()))
        plans.append(LaunchPlan(
            code_object=str(kernels_dir() / a / app["file"]), kernel=app["kernel"],
            grid=(-(-p.kv_append // app["block_m"]), p.batch * p.heads_k, 1), block=(app["threads"], 1, 1),
            shared_mem=app["shared"], kernargs=aargs, pointer_slots=aslots))
    slots = ["q", "k", "v", "out"] + (["lse"] if p.return_lse else [])
    if p.cache_seqlens:
        slots.append("cache_seqlens")
    if p.kv_layout == "paged":
        slots.append("block_table")
    if p.varlen:
        slots += ["cu_seqlens_q", "cu_seqlens_k"]
    if p.sinks:
        slots.append("sinks")
    if p.alibi:
        slots.append("alibi")
    if splits > 1:
        slots.append("workspace")
    args, pslots = _pack("serve_fwd_args", dict(
        stride_qb=qs[0], stride_kb=ks[0], stride_vb=vs[0], stride_ob=os_[0],
        stride_qs=qs[1], stride_qh=qs[2], stride_ks=ks[1], stride_kh=ks[2], stride_vs=vs[1], stride_vh=vs[2],
        stride_os=os_[1], stride_oh=os_[2], stride_lb=lb, stride_lh=lh, stride_bt=p.block_table_stride,
        stride_ab=p.heads_q if p.alibi == 2 else 0, ws_split_rows=ws_split_rows, seqlen_q=p.seqlen_q,
        seqlen_k=p.seqlen_k, seqlen_k_add=p.kv_append, use_seqlens=int(p.cache_seqlens), heads_kv=p.heads_k,
        group=g, head_dim=p.head_dim, head_dim_v=p.head_dim_v, window_left=wl, window_right=wr,
        page_size=p.page_size or 1, store_lse=int(p.return_lse), num_splits=splits, has_sinks=int(p.sinks),
        has_alibi=int(p.alibi != 0), softmax_scale=p.softmax_scale, softcap=p.softcap), tuple(slots))
    workspace = splits * ws_split_rows * (p.head_dim_v + 1) * 4 if splits > 1 else 0
    plans.append(LaunchPlan(
        code_object=str(kernels_dir() / a / obj["file"]), kernel=obj["kernel"],
        grid=(tiles, p.batch * p.heads_k, splits), block=(obj["threads"], 1, 1), shared_mem=obj["shared"],
        kernargs=args, workspace_bytes=workspace, pointer_slots=pslots))
    return plans
