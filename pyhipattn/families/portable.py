"""The portable family: one Triton source (kernels/src/portable/attn_fwd.py) AOT-compiled for
every shipped arch (sm_90a, sm_80, gfx942, gfx950, gfx1100) by scripts/build/portable.py.

It runs every forward problem the API accepts (bf16/fp16, head dims up to 256 in multiples of
8, GQA/MQA, causal and sliding windows, softcap, LSE, varlen, split-K), so it is the family
dispatch falls back to.  Variants per (dtype, head-dim class 64/128/256):
  plain   no window, no softcap: the hot loop carries no mask arithmetic;
  masked  causal / window / softcap, edge blocks masked, invisible blocks skipped;
  decode  like masked, with a 16-row tile for sq * group <= 16 (packed GQA), no varlen;
plain and masked also come as varlen variants; one split-K combine kernel per dtype.
Short KV (seqlen_k <= SHORT_KV, not varlen): the kinds plain_short / masked_short, the same
code with a smaller tile, where an arch has tiles for them (sm_90a: d64 plain and masked, d128
masked); elsewhere those problems take the plain / masked objects.  Where an arch also has a
softcap_short tile for the class (sm_90a d64), masked_short is built without the softcap code
(causal / window only: fewer registers) and short problems with softcap take softcap_short.

Launch: grid (cdiv(sq * group, BLOCK_M), batch * heads_k, num_splits) of num_warps * wave
threads.  With num_splits > 1 the kernel writes the ``workspace`` (fp32: partial O
[G][rows][dv] then partial LSE [G][rows], rows = hq * (batch * sq), or hq * total_q for
varlen), and the partials are folded either by the last split of each row tile itself (objects
built with FOLD_COUNTERS > 0, the manifest's options: one launch; an int32 arrival counter per
row tile, in the FOLD_COUNTERS words the runtime reserves, zeroed, in front of the workspace
pointer, left zero by each launch; a problem with more row tiles than that is not split) or
by a separate combine launch (the variants the build lists in separate_combine).  Requirements the planner cannot see: q/k/v/out/lse base addresses
16-byte aligned (the kernels use 16-byte vector loads), lse contiguous (b, hq, sq), or
(hq, total_q) for varlen.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path

from ..arch import SHIPPED_ARCHES, canonical_arch
from ..kernargs import StructLayout, layout_from_header
from ..kernels_dir import header, kernels_dir
from ..manifest import family_manifest
from ..plan import LaunchPlan
from ..runtime.memory import SPLIT_COUNTERS
from .base import Problem, gqa_refusal

NAME = "portable"
PRIORITY = 10          # the fallback: any specialised family that accepts a problem wins

HEADER = header("portable/portable_args.h")
DTYPES = ("bf16", "fp16")
HEAD_DIM_CLASSES = (64, 128, 256)
DECODE_ROWS = 16       # sq * group at or below this takes the decode tile
MAX_GRID_YZ = 65535    # CUDA's limit on grid y and z (HIP's is larger; plan for the smaller)
_I32_MAX = 2**31 - 1

# (BLOCK_M, BLOCK_N, num_warps, num_stages) per arch and (kind, head-dim class).  The build
# compiles exactly these and refuses any object that spills or uses scratch / local memory.
# sm_90a d64/d128 values come from bench/tune_portable.py on an H100 (see notes/portable.md);
# the others are chosen to fit the registers (checked statically), not yet timed.  gfx1100
# (RDNA3 WMMA: every lane holds a 16-row tile's whole head dim of each operand) runs 16 rows
# per warp with small key blocks, and q . k^T by head-dim chunks (the build's ARCH_OPTIONS).
TILES: dict[str, dict[tuple[str, int], tuple[int, int, int, int]]] = {
    "sm_90a": {
        ("plain", 64): (128, 128, 8, 4), ("plain", 128): (128, 64, 8, 3), ("plain", 256): (128, 32, 8, 2),
        ("masked", 64): (128, 64, 4, 3), ("masked", 128): (128, 128, 8, 3), ("masked", 256): (128, 32, 8, 2),
        ("decode", 64): (16, 64, 4, 3), ("decode", 128): (16, 64, 4, 3), ("decode", 256): (16, 64, 4, 3),
        # seqlen_k <= SHORT_KV: a few key blocks per program, so prologue and epilogue weigh more and
        # smaller tiles (more CTAs per SM) win; measured at s = 512 / 1024 (notes/portable.md).  The
        # d64 short tiles are built with at most 128 registers (the build's ARCH_OPTIONS: four
        # 128-thread CTAs per SM) and the scale folded into the exponent (issue 11, notes/portable.md)
        ("plain_short", 64): (64, 64, 4, 3), ("masked_short", 64): (64, 64, 4, 3),
        ("softcap_short", 64): (64, 64, 4, 3), ("masked_short", 128): (64, 64, 4, 3),
    },
    "sm_80": {
        ("plain", 64): (128, 64, 4, 3), ("plain", 128): (128, 64, 8, 3), ("plain", 256): (64, 64, 8, 2),
        ("masked", 64): (128, 64, 4, 3), ("masked", 128): (128, 64, 8, 3), ("masked", 256): (64, 32, 8, 2),
        ("decode", 64): (16, 128, 4, 3), ("decode", 128): (16, 128, 4, 3), ("decode", 256): (16, 64, 4, 3),
    },
    "gfx942": {
        ("plain", 64): (128, 64, 4, 2), ("plain", 128): (128, 64, 4, 1), ("plain", 256): (64, 32, 4, 1),
        ("masked", 64): (128, 64, 4, 2), ("masked", 128): (128, 64, 4, 1), ("masked", 256): (64, 32, 4, 1),
        ("decode", 64): (16, 64, 4, 2), ("decode", 128): (16, 64, 4, 2), ("decode", 256): (16, 64, 4, 1),
    },
    "gfx950": {
        ("plain", 64): (128, 64, 4, 2), ("plain", 128): (128, 64, 8, 2), ("plain", 256): (64, 64, 4, 2),
        ("masked", 64): (128, 64, 4, 2), ("masked", 128): (128, 64, 8, 2), ("masked", 256): (64, 64, 4, 2),
        ("decode", 64): (16, 128, 4, 2), ("decode", 128): (16, 128, 4, 2), ("decode", 256): (16, 64, 4, 2),
    },
    "gfx1100": {
        ("plain", 64): (64, 64, 4, 1), ("plain", 128): (64, 16, 4, 1), ("plain", 256): (16, 32, 4, 1),
        ("masked", 64): (64, 32, 4, 1), ("masked", 128): (64, 16, 4, 1), ("masked", 256): (16, 16, 4, 1),
        ("decode", 64): (16, 64, 4, 1), ("decode", 128): (16, 32, 4, 1), ("decode", 256): (16, 16, 4, 1),
    },
}
COMBINE_TILE = (16, 64, 4, 1)        # BLOCK_R, BLOCK_DV, num_warps, num_stages
# The split heuristic wants 95% of a wave, not FA2's 85%: on the H100 the long-KV shape ran 5%
# faster with 8 splits (128 of 132 SMs) than FA2's 7, and decode 128k 1-3% faster with 16
# than 15; packing more splits per SM (2 waves and up) was slower (notes/portable.md).
SPLIT_EFFICIENCY = 0.95
# Short-KV kinds: (kind, the kind whose code they run).  Chosen for seqlen_k <= SHORT_KV when the
# arch has a tile for (short kind, head-dim class); not for varlen (seqlen_k is only the maximum).
# softcap_short: softcap problems, where the arch has that tile (then masked_short has no softcap code).
SHORT_KINDS = {"plain_short": "plain", "masked_short": "masked", "softcap_short": "masked"}
SHORT_KV = 1024


def variant_name(dtype: str, kind: str, hd_class: int = 0, varlen: bool = False) -> str:
    """File stem (without ``portable_``) of a variant: ``fwd_bf16_d128_masked_varlen``, ``combine_fp16``."""
    if kind == "combine":
        return f"combine_{dtype}"
    return f"fwd_{dtype}_d{hd_class}_{kind}" + ("_varlen" if varlen else "")


def has_softcap_code(arch: str, kind: str, hd_class: int) -> bool:
    """Whether the ``kind`` object of this class carries the softcap code (HAS_SOFTCAP): every masked
    kind, except masked_short where the arch has a softcap_short tile (softcap problems go there)."""
    base = SHORT_KINDS.get(kind, kind)
    if base == "plain":
        return False
    return not (kind == "masked_short" and ("softcap_short", hd_class) in TILES[arch])


def variants(arch: str) -> list[dict]:
    """Every object the build makes for ``arch``: name, role, dtype, class, flags, tile."""
    out = []
    for dt in DTYPES:
        for hdc in HEAD_DIM_CLASSES:
            for kind in ("plain", "masked", "decode", *SHORT_KINDS):
                if (kind, hdc) not in TILES[arch]:
                    continue        # a short kind this arch does not build: plain / masked run it
                for varlen in ((False, True) if kind in ("plain", "masked") else (False,)):
                    bm, bn, nw, ns = TILES[arch][(kind, hdc)]
                    out.append(dict(name=variant_name(dt, kind, hdc, varlen), role="fwd", dtype=dt, kind=kind,
                                    head_dim_class=hdc, varlen=varlen,
                                    masked=SHORT_KINDS.get(kind, kind) != "plain",
                                    block_m=bm, block_n=bn, num_warps=nw, num_stages=ns))
        br, bdv, nw, ns = COMBINE_TILE
        out.append(dict(name=variant_name(dt, "combine"), role="combine", dtype=dt, kind="combine",
                        head_dim_class=0, varlen=False, masked=False, block_m=br, block_n=bdv,
                        num_warps=nw, num_stages=ns))
    return out


# ---------------------------------------------------------------------------------------
# kernarg structs (declared once in portable_args.h)

@lru_cache(maxsize=None)
def layout(struct_name: str) -> StructLayout:
    """``portable_fwd_args`` / ``portable_combine_args`` from portable_args.h (natural alignment)."""
    return layout_from_header(HEADER, struct_name)


def pack_args(struct_name: str, values: dict, slots: tuple[str, ...]) -> tuple[bytes, tuple[tuple[str, int], ...]]:
    """Pack ``values`` into the header struct, fields not given (the pointers) as 0; return the
    bytes and the (name, offset) of each pointer field in ``slots``, for LaunchPlan.bind."""
    lay = layout(struct_name)
    data = lay.packer().pack(**{n: values.get(n, 0) for n in lay.names})
    return data, tuple((s, lay[s].offset) for s in slots)


# ---------------------------------------------------------------------------------------
# manifest


def co_dir() -> Path:
    return kernels_dir()


@lru_cache(maxsize=None)
def manifest(arch: str) -> dict | None:
    """The build's manifest for ``arch`` (kernels/co/<arch>/portable_manifest.json), or None."""
    return family_manifest(arch, "portable")


# ---------------------------------------------------------------------------------------
# gate and plan


def head_dim_class(problem: Problem) -> int | None:
    d = max(problem.head_dim, problem.head_dim_v)
    return next((c for c in HEAD_DIM_CLASSES if d <= c), None)


def effective_window(problem: Problem) -> tuple[int, int]:
    """(left, right) with causal folded in and sides that hide no key turned to -1."""
    wl, wr = problem.window
    if problem.causal:
        wr = 0
    if wr >= problem.seqlen_q - 1:
        wr = -1
    if wl >= problem.seqlen_k - 1:
        wl = -1
    return wl, wr


def tile_kind(problem: Problem, arch: str | None = None) -> str:
    """decode, plain or masked; with ``arch``, plain_short / masked_short (softcap_short for softcap
    where the arch has it) for seqlen_k <= SHORT_KV (not varlen) where the arch has a tile for them
    at this head-dim class."""
    wl, wr = effective_window(problem)
    if not problem.varlen and problem.seqlen_q * problem.group_size <= DECODE_ROWS:
        return "decode"
    kind = "masked" if (wl >= 0 or wr >= 0 or problem.softcap > 0) else "plain"
    if arch is not None and not problem.varlen and problem.seqlen_k <= SHORT_KV:
        tiles = TILES.get(canonical_arch(arch), {})
        hdc = head_dim_class(problem)
        short = kind + "_short"
        if problem.softcap > 0 and ("softcap_short", hdc) in tiles:
            short = "softcap_short"
        if (short, hdc) in tiles:
            return short
    return kind


def gate(problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
    """None when the portable kernels run ``problem`` on ``arch``, else why not."""
    try:
        a = canonical_arch(arch)
    except ValueError as e:
        return str(e)
    if a not in SHIPPED_ARCHES:
        return f"portable kernels are built for {', '.join(SHIPPED_ARCHES)}, not {a}"
    if manifest(a) is None:
        return f"no portable code objects for {a} (kernels/co/{a}/portable_manifest.json missing; run scripts/build_co.sh portable)"
    p = problem
    if p.dtype not in DTYPES:
        return f"dtype {p.dtype} is not supported (bf16, fp16)"
    for nm, d in (("head_dim", p.head_dim), ("head_dim_v", p.head_dim_v)):
        if not 8 <= d <= HEAD_DIM_CLASSES[-1] or d % 8:
            return f"{nm} {d} is not a multiple of 8 in 8..{HEAD_DIM_CLASSES[-1]} (pad the head dim)"
    if why := gqa_refusal(p):
        return why
    if p.batch * p.heads_k > MAX_GRID_YZ:
        return f"batch * heads_k = {p.batch * p.heads_k} exceeds the grid limit {MAX_GRID_YZ}"
    if p.softcap < 0:
        return f"softcap {p.softcap} is negative (0 = off)"
    rows = p.total_q if p.varlen else p.batch * p.seqlen_q
    if max(p.seqlen_q * p.group_size, p.seqlen_k, p.heads_q * rows * max(p.head_dim_v, 1)) > _I32_MAX:
        return "sequence too long for 32-bit row indices"
    for nm, s in (("q", p.q_strides), ("k", p.k_strides), ("v", p.v_strides), ("out", p.o_strides)):
        if any(x % 8 for x in s):
            return f"{nm} strides {s} are not multiples of 8 elements (the kernels use 16-byte loads)"
        if any(abs(x) > _I32_MAX for x in s[1:]):
            return f"{nm} sequence/head strides {s[1:]} exceed 32 bits"
    name = variant_name(p.dtype, tile_kind(p, a), head_dim_class(p), p.varlen)
    if name not in manifest(a)["by_name"]:
        return f"variant portable_{name} is not in kernels/co/{a}"
    if p.softcap > 0 and manifest(a)["by_name"][name]["options"].get("HAS_SOFTCAP") is False:
        return f"portable_{name} is built without softcap code but softcap is {p.softcap}"
    fold = manifest(a)["by_name"][name]["options"].get("FOLD_COUNTERS", 0)
    if fold not in (0, SPLIT_COUNTERS):
        return (f"portable_{name} counts splits in {fold} words but the runtime reserves {SPLIT_COUNTERS}: "
                "rebuild it (scripts/build_co.sh portable)")
    return None


MAX_SPLITS = 128


def split_work(problem: Problem, arch: str) -> tuple[int, int]:
    """(parallel programs, KV blocks) of ``problem`` with this family's tiles: the inputs of
    dispatch's split heuristic."""
    a = canonical_arch(arch)
    bm, bn, _, _ = TILES[a][(tile_kind(problem, a), head_dim_class(problem) or 256)]
    programs = problem.batch * problem.heads_k * -(-problem.seqlen_q * problem.group_size // bm)
    return programs, -(-problem.seqlen_k // bn)


def _launch_shared(obj: dict) -> int:
    # Triton's shared memory / LDS is dynamic on both platforms (the hsaco's
    # group_segment_fixed_size is 0): the launch passes it.  Over 48 KiB on CUDA the runtime
    # must raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first.
    return obj["shared"]


def plan(problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
    """Launches for ``problem``: the forward kernel, then the combine when num_splits > 1 and
    the forward object does not fold the splits itself."""
    why = gate(problem, arch, compute_units)
    if why:
        raise ValueError(f"portable family cannot run this problem on {arch}: {why}")
    if num_splits < 1:
        raise ValueError(f"num_splits {num_splits} must be >= 1 here (dispatch resolves 0 = heuristic)")
    a = canonical_arch(arch)
    p = problem
    m = manifest(a)
    kind = tile_kind(p, a)
    hdc = head_dim_class(p)
    obj = m["by_name"][variant_name(p.dtype, kind, hdc, p.varlen)]
    g = p.group_size
    splits = min(num_splits, MAX_GRID_YZ, max(1, -(-p.seqlen_k // obj["block_n"])))
    rows_total = p.total_q if p.varlen else p.batch * p.seqlen_q
    ws_split_rows = p.heads_q * rows_total
    if p.varlen:
        lb, lh = 0, rows_total
    else:
        lb, lh = p.heads_q * p.seqlen_q, p.seqlen_q
    wl, wr = effective_window(p)
    tiles = -(-p.seqlen_q * g // obj["block_m"]) * p.batch * p.heads_k
    fused = bool(obj["options"].get("FOLD_COUNTERS"))
    if fused and tiles > SPLIT_COUNTERS:
        splits = 1          # more row tiles than arrival counters: they fill the GPU many times anyway
    grid = (-(-p.seqlen_q * g // obj["block_m"]), p.batch * p.heads_k, splits)
    fused = fused and splits > 1
    # fp32 partial O [G][rows][dv] and LSE [G][rows] (the counters sit in front of the workspace)
    workspace = splits * ws_split_rows * (p.head_dim_v + 1) * 4 if splits > 1 else 0
    slots = ["q", "k", "v"]
    if p.varlen:
        slots += ["cu_seqlens_q", "cu_seqlens_k"]
    if splits == 1 or fused:
        slots += ["out"] + (["lse"] if p.return_lse else [])
    if splits > 1:
        slots += ["workspace"]
    qs, ks, vs, os_ = p.q_strides, p.k_strides, p.v_strides, p.o_strides
    args, pslots = pack_args("portable_fwd_args", dict(
        stride_qb=qs[0], stride_kb=ks[0], stride_vb=vs[0], stride_ob=os_[0],
        stride_qs=qs[1], stride_qh=qs[2], stride_ks=ks[1], stride_kh=ks[2],
        stride_vs=vs[1], stride_vh=vs[2], stride_os=os_[1], stride_oh=os_[2],
        stride_lb=lb, stride_lh=lh, ws_split_rows=ws_split_rows,
        seqlen_q=p.seqlen_q, seqlen_k=p.seqlen_k, heads_kv=p.heads_k, group=g,
        head_dim=p.head_dim, head_dim_v=p.head_dim_v, window_left=wl, window_right=wr,
        store_lse=int(p.return_lse), num_splits=splits,
        softmax_scale=p.softmax_scale, softcap=p.softcap), tuple(slots))
    co = str(co_dir() / a / obj["file"])
    plans = [LaunchPlan(
        code_object=co, kernel=obj["kernel"],
        grid=grid, block=(obj["threads"], 1, 1), shared_mem=_launch_shared(obj),
        kernargs=args, workspace_bytes=workspace, pointer_slots=pslots)]
    if splits > 1 and not fused:
        cmb = m["by_name"][variant_name(p.dtype, "combine")]
        cargs, cslots = pack_args("portable_combine_args", dict(
            stride_ob=0 if p.varlen else os_[0], stride_os=os_[1], stride_oh=os_[2],
            seqlen_q=rows_total if p.varlen else p.seqlen_q, heads_q=p.heads_q,
            ws_split_rows=ws_split_rows, head_dim_v=p.head_dim_v, num_splits=splits,
            store_lse=int(p.return_lse)), ("workspace", "out") + (("lse",) if p.return_lse else ()))
        plans.append(LaunchPlan(
            code_object=str(co_dir() / a / cmb["file"]), kernel=cmb["kernel"],
            grid=(-(-ws_split_rows // cmb["block_m"]), -(-p.head_dim_v // cmb["block_n"]), 1),
            block=(cmb["threads"], 1, 1), shared_mem=_launch_shared(cmb),
            kernargs=cargs, workspace_bytes=workspace, pointer_slots=cslots))
    return plans
