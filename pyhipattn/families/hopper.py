"""The hopper family: attention forward for sm_90a (H100 / H200) with wgmma and warp specialisation.

Kernels: ``kernels/src/hopper/hopper_fwd.cu`` (CUDA C++ with inline PTX: wgmma.mma_async,
mbarrier, cp.async, setmaxnreg), built by ``scripts/build/hopper.sh`` into
``kernels/co/sm_90a/hopper_fwd.cubin`` with ``hopper_manifest.json``; kernel arguments
``hopper_fwd_args`` (``kernels/src/hopper/hopper_args.h``), one launch per call.

A CTA is one producer warpgroup (TMA, with tensor maps the kernel makes itself in a per-CTA slot of the
workspace (d64 since 2026-11-26's issue11e; cp.async before, and in builds with TMA_D64=0); into a multi-stage shared-memory ring and two Q
buffers (one at d256), mbarriers) and two (d96, d128, d256, the d64 ``_c2`` siblings) or three (d64) consumer warpgroups (64 query rows each:
S = Q K^T and O += P V with wgmma, online softmax in registers, P kept in registers, the
warpgroups taking turns at the tensor cores), and runs tiles of 128 / 192 query rows of one
(batch, q head) (key blocks of 128, 64 at d256; d96 computes 96 columns on tiles of two 64-column
atoms) in a persistent loop: grid = min(tiles, compute_units) CTAs, or one CTA per
tile for causal problems outside :data:`CAUSAL_PERSISTENT`.  Kernels marked ``dynamic_causal`` in
the manifest (d128 since 2026-11-26, d64 since issue11e, which deals non-causal tiles out the same way)
take causal tiles from a counter (the two zeroed int32 the
runtime's workspace keeps below the pointer it binds) on a persistent grid, heaviest first within
sections of heads whose K / V fit L2 (manifest ``l2_section_kb``).

What it runs: bf16 / fp16; head_dim == head_dim_v in {64, 96, 128, 256}; GQA / MQA (heads_q %
heads_k == 0); causal (bottom-right aligned, FlashAttention >= 2.1; rows that see no key give
out 0 and LSE -inf) or no mask; sliding windows (left, right), with or without causal, in kernels whose
manifest entry says ``window`` (issue11g: every kernel; key blocks [n_min, n_max), masks on the edge blocks
only); softcap > 0 in the ``_softcap`` siblings (each head dim's main kernel with tanh scores, manifest
``softcap``); any softmax_scale > 0; LSE (fp32 (batch, heads_q, seqlen_q));
any sequence lengths (ragged tails masked); BSHD strides in multiples of 8 elements (16-byte
copies: q / k / v / out must also be 16-byte aligned, which the planner cannot see); with TMA
(d96, d128, d256) positive q / k / v strides below 2^39 elements on every axis longer than 1, and out's too for the
d128 kernels that store O with TMA (manifest ``epilogue_tma``; :func:`tma_refusal`).
varlen (cu_seqlens, packed (total, heads, d) tensors, LSE (heads_q, total_q)) in the ``_varlen`` siblings (manifest
``varlen``: the main / ``_softcap`` kernel of each head dim over packed sequences, and d96's ``_dyn`` kernel for causal
problems; issue11h / issue11i).
Not: sinks / ALiBi / KV caches, split-K; those go to the portable family.  Dispatch picks this family only where it measured faster than portable on
the H100 (:func:`preferred`); :func:`gate` with ``force=True`` accepts every problem the
kernels can run (tests).
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..arch import canonical_arch
from ..kernargs import StructLayout, encode_tile_map, layout_from_header
from ..kernels_dir import header, kernels_dir
from ..manifest import family_manifest
from ..plan import LaunchPlan
from .base import Problem, gqa_refusal, stride_refusal

NAME = "hopper"
PRIORITY = 20          # above portable (10): where both accept, this one runs
ARCHES = ("sm_90a",)
DTYPES = ("bf16", "fp16")
HEAD_DIMS = (64, 96, 128, 256)
HEADER = header("hopper/hopper_args.h")
_I32_MAX = 2**31 - 1
_POINTERS = ("q", "k", "v", "out", "lse")
#: The smallest tile (two consumer warpgroups of 64 query rows); a kernel's own is its manifest's block_m.
MIN_BLOCK_M = 128


#: window problems: seqlen_q and seqlen_k below this (the kernels' window bounds, 2 * seqlen_q + seqlen_k + a
#: tile, stay in int32)
_WINDOW_SEQ_LIMIT = 1 << 29


@lru_cache(maxsize=None)
def layout() -> StructLayout:
    """``hopper_fwd_args`` as hopper_args.h declares it."""
    return layout_from_header(HEADER, "hopper_fwd_args")


@lru_cache(maxsize=None)
def maps_layout() -> StructLayout:
    """``hopper_fwd_maps`` (the host-made tensor maps of kernels marked ``param_maps``) as hopper_args.h declares it."""
    return layout_from_header(HEADER, "hopper_fwd_maps")


#: Box rows of the O map of a TMA epilogue: each warp stores its 16 staged rows (manifest ``epilogue_smem_per_warp``,
#: EPI_TMA64: the ``_c2`` kernels), else a warpgroup its 64 (EPI_TMA: the ``_fk`` kernels)
_EPI_TMA64_BOX_ROWS = 16
_EPI_TMA_BOX_ROWS = 64


def tile_maps(p: Problem, obj: dict) -> bytes:
    """The Q / K / V / O tensor maps (``hopper_fwd_maps``, 512 bytes, addresses 0: the plan binds them) that kernel
    ``obj`` of the manifest, marked ``param_maps`` (HOPPER_PARAM_MAPS_C2: the d64 ``_c2`` and ``_c2q3`` kernels;
    HOPPER_PARAM_MAPS_FK: the d128 ``_fk`` ones), takes from the host: the maps its ``tmap_make`` calls would make (dims
    (head_dim, seq, heads, batch), byte strides, 16 bytes for a dimension of size 1, 16-bit elements, boxes of block_m (Q)
    / block_n (K, V) / 16 (O, ``_c2``: a warp's rows) or 64 (O, ``_fk``: a warpgroup's rows) rows of 64 columns).

    Raises ValueError (from :func:`pyhipattn.kernargs.encode_tile_map`, naming the map) for what the encoder refuses:
    strides of 64 GiB or more, strides not multiples of 16 bytes, empty dimensions; or for a kernel it does not apply to.
    """
    if p.varlen or obj.get("head_dim") != p.head_dim or not obj.get("epilogue_tma"):
        raise ValueError(f"obj: kernel {obj.get('name')!r} with param_maps; accepted: a kernel of the problem's head dim "
                         "with a TMA epilogue (the d64 _c2 / _c2q3 and d128 _fk kernels), not varlen")
    # the O map's boxes: the rows one TMA store writes (each warp its 16 staged rows, else a warpgroup its 64)
    o_rows = _EPI_TMA64_BOX_ROWS if obj.get("epilogue_smem_per_warp") else _EPI_TMA_BOX_ROWS

    def one(what: str, dims: tuple[int, int, int], strides: tuple[int, int, int], rows: int) -> bytes:
        seq, heads, batch = dims
        st = tuple(2 * s if n > 1 else 16 for s, n in zip((strides[1], strides[2], strides[0]), dims))
        try:
            return encode_tile_map(0, "u16", (p.head_dim, seq, heads, batch), st, rows)
        except ValueError as e:
            raise ValueError(f"the {what} tensor map of {obj['name']}: {e}") from None

    blob = b"".join((
        one("q", (p.seqlen_q, p.heads_q, p.batch), p.q_strides, obj["block_m"]),
        one("k", (p.seqlen_k, p.heads_k, p.batch), p.k_strides, obj["block_n"]),
        one("v", (p.seqlen_k, p.heads_k, p.batch), p.v_strides, obj["block_n"]),
        one("out", (p.seqlen_q, p.heads_q, p.batch), p.o_strides, o_rows),
    ))
    if len(blob) != maps_layout().size:
        raise ValueError(f"obj: {len(blob)} bytes of maps, hopper_fwd_maps is {maps_layout().size}")
    return blob


def param_maps_refusal(p: Problem, obj: dict) -> str | None:
    """Why kernel ``obj`` (manifest ``param_maps``) cannot take ``p``'s maps from the host (:func:`tile_maps`), or None
    (also for a kernel that makes its own maps).  Where it cannot, :func:`kernel_name` runs the next kernel instead."""
    if not obj.get("param_maps"):
        return None
    try:
        tile_maps(p, obj)
    except ValueError as e:
        return str(e)
    return None


@lru_cache(maxsize=None)
def manifest(arch: str) -> dict | None:
    """kernels/co/<arch>/hopper_manifest.json (with ``by_name``), or None."""
    return family_manifest(arch, "hopper")


def variant_name(dtype: str, head_dim: int) -> str:
    """Manifest name of the kernel for (dtype, head_dim): ``fwd_bf16_d128``."""
    return f"fwd_{dtype}_d{head_dim}"


def check_problem(p: Problem) -> str | None:
    """Why the hopper kernels cannot run ``p`` (on any device), or None."""
    if p.dtype not in DTYPES:
        return f"dtype {p.dtype!r} is not supported (accepted: {', '.join(DTYPES)})"
    if p.head_dim != p.head_dim_v or p.head_dim not in HEAD_DIMS:
        return (f"head_dim {p.head_dim} / head_dim_v {p.head_dim_v}: the hopper kernels are built for "
                f"head_dim == head_dim_v in {HEAD_DIMS}")
    if p.has_window and max(p.seqlen_q, p.seqlen_k) >= _WINDOW_SEQ_LIMIT:
        return (f"sliding window {p.window} with seqlen_q {p.seqlen_q} / seqlen_k {p.seqlen_k}: the hopper kernels "
                f"take windows on sequences below 2^29 (their int32 window arithmetic)")
    if p.serving:
        return "KV caches, sinks and ALiBi are not supported by the hopper kernels"
    if p.num_splits >= 2:
        return f"num_splits {p.num_splits}: the hopper kernels do not split the KV range"
    if not p.softmax_scale > 0:
        return f"softmax_scale {p.softmax_scale} must be > 0 for the hopper kernels"
    if why := gqa_refusal(p):
        return why
    if why := stride_refusal(p, "the hopper kernels copy 16-byte pieces"):
        return why
    bm = MIN_BLOCK_M
    if -(-p.seqlen_q // bm) * p.heads_q * p.batch > _I32_MAX:
        return "more than 2^31 - 1 tiles of 128 query rows (batch * heads_q * ceil(seqlen_q / 128))"
    if max(p.seqlen_q, p.seqlen_k) + bm > _I32_MAX:
        return "sequence lengths must stay below 2^31 - 128 for the hopper kernels"
    return None


#: Where the hopper kernels measured faster than the portable family on the H100 (bf16, same
#: run, notes/hopper.md): (head_dim, causal) -> (min, max) of seqlen_q and of seqlen_k.
#: Non-causal d128 won from 512 tokens up (1.05-1.22x; with TMA since 2026-11-26 1.07-1.14x), non-causal
#: d64 from 2048 up (from 512 since issue11f, below; three consumer warpgroups since 2026-11-24: 0.96-1.18x at 2048-16384 over runs 4
#: and 6, 0.96-1.03x at 512 / 1024), causal d128 from 4096 up (TMA, 2026-11-26: 1.02-1.18x at
#: 4096-16384 and on the GQA rows; 0.87-0.96x at 512-2048), causal d64 from 2048 up since run 6 (three
#: warpgroups on the persistent grid: 1.04-1.13x at 2048-16384; 0.91-0.97x at 512 / 1024).  Causal d128
#: from 512 up since the dynamic causal schedule with L2 sections (2026-11-26, branch issue11d-short,
#: calls 2 / 3: 1.12 / 1.16x at b32 s512, 1.16 / 1.22x at b16 s1024, 1.38 / 1.40x at b8 s2048, 1.18 /
#: 1.24x at b4 s2048 h32/8; not timed below 512).  d256 and d96
#: (2026-11-26, branch issue11d-dims, two runs, sq = sk 512-16384, the grid :data:`CAUSAL_PERSISTENT`
#: picks): d256 non-causal 1.64-1.78x, d256 causal 1.15-1.19x at 512-2048 and 1.46-1.74x at 4096-16384 (the
#: 1,4096,16/8 GQA row 2.02-2.04x); d96 non-causal 1.21-1.50x, d96 causal 1.04-1.23x at 2048-16384 (the
#: 4,2048,32/32 row 1.18-1.22x), 1.01-1.05x at 512 and 0.97-0.99x at 1024 (left to portable below 2048
#: until the ``_dyn`` siblings: causal d96 from 512 up since then, lead's merged run: 1.31x at b32 s512,
#: 1.28x at b16 s1024, 1.43x at b4 s2048, 1.44x at b4 s4096).
#: d64 with the TMA producer and the dynamic schedule (issue11e, 2026-11-26, calls 1-2) at 512 / 1024 against portable:
#: non-causal 1.02 / 0.99 / 1.00 / 1.01x and 1.03 / 0.99 / 1.02 / 1.01x (b32 h16, b16 h12, b32 h32, b16 h32), causal
#: 0.93 / 0.92x and 0.93 / 0.92x (b32 h32, b16 h32): not faster, so short d64 stays on portable.
#: d64 with O staged through shared memory (issue11f, 2026-11-26 evening, call 1): non-causal 1.11 / 1.05x at 512 /
#: 1024 h32 and 1.11 / 1.05x on the b32 h16 / b16 h12 rows, so non-causal d64 from 512 up; causal 1.04x at 512 and
#: 0.98x at 1024 (h32): causal d64 stays on portable below 2048.
#: d64 with the producer's tile decode (HOPPER_PDEC_D64, 2026-11-27, call d2): 1.07x the kernel before at causal 512 /
#: 1024, which had measured 0.98-1.00x portable (issue11i-d64, call 1): causal d64 from 512 up.  Checked in call d3 (the
#: bench's run): hopper / portable 1.09 / 1.08x at b32 s512 (h32 / h16), 1.06 / 1.04x at b16 s1024 (h32 / h12).
#: fp16 runs the same instructions and takes the bf16 rules (not timed separately).
PREFERRED: dict[tuple[int, bool], tuple[int, int]] = {
    (128, False): (512, 1 << 30),
    (64, False): (512, 1 << 30),
    (128, True): (512, 1 << 30),
    (64, True): (512, 1 << 30),
    (256, False): (512, 1 << 30),
    (256, True): (512, 1 << 30),
    (96, False): (512, 1 << 30),
    (96, True): (512, 1 << 30),
}

#: Causal problems whose seqlen_k lies in head_dim's range run on the persistent grid (the kernel
#: deals the heavy-first tiles out in a snake); the others launch one CTA per tile.  Measured on the
#: H100 (notes/hopper.md, runs 4 and 6): persistent won at d64 (1.06-1.31x at 512-2048, 1.02-1.14x
#: at 4096 and 16384, 0.99-1.00x at 8192) and at d128 from 2048 to 4096 (1.02-1.04x, the 2x4096
#: 64/8 GQA row 1.08-1.12x), and lost at d128 512 / 1024 (0.95-0.97x) and 16384 (0.96-0.97x);
#: 8192 at d128 was 0.96-1.05x.  d96 (2026-11-26, two runs): persistent / per tile 0.96-1.09x, no
#: consistent side (1.00-1.04x averaged over the two runs at 2048-16384 and the 4,2048,32/32 row), so
#: persistent as at d64; d256: 1.03-1.10x at 4096-8192 (the 1,4096,16/8 row 1.00-1.04x), 0.86-1.00x at
#: 512-2048, 0.93 and 1.09x at 16384 (left per tile).  Kernels with the dynamic causal schedule (manifest
#: ``dynamic_causal``, the d128 ones since 2026-11-26) always get the persistent grid: this table is for the others.
CAUSAL_PERSISTENT: dict[int, tuple[int, int]] = {
    64: (0, 1 << 30),
    96: (0, 1 << 30),
    128: (2048, 4096),
    256: (4096, 8192),
}


#: TMA tensor maps take byte strides below 2^40 (elements of 2 bytes: below 2^39).
_TMA_STRIDE_LIMIT = 1 << 39


def tma_refusal(p: Problem, store: bool = False) -> str | None:
    """Why kernels that load q / k / v with TMA (``store``: and store out with TMA, manifest ``epilogue_tma``)
    cannot run ``p`` (a tensor map needs a positive stride below 2^39 elements on every axis longer than 1),
    or None."""
    # varlen: maps over the packed (total, heads, d) tensors, batch 1
    bq, sq, bk, sk = (1, p.total_q, 1, p.total_k) if p.varlen else (p.batch, p.seqlen_q, p.batch, p.seqlen_k)
    tensors = [("q", p.q_strides, (bq, sq, p.heads_q)),
               ("k", p.k_strides, (bk, sk, p.heads_k)),
               ("v", p.v_strides, (bk, sk, p.heads_k))]
    if store:
        tensors.append(("out", p.o_strides, (bq, sq, p.heads_q)))
    for name, strides, sizes in tensors:
        if 0 in sizes:      # an empty tensor: nothing is loaded
            continue
        for axis, st, n in zip(("batch", "seq", "head"), strides, sizes):
            if n > 1 and not 0 < st < _TMA_STRIDE_LIMIT:
                return (f"{name} {axis} stride {st}: the hopper kernels {'store' if name == 'out' else 'load'} with TMA, "
                        f"which needs a positive stride "
                        f"below 2^39 elements on every axis longer than 1")
    return None


#: Non-causal problems whose seqlen_k lies in this range run the ``_bn176`` kernel of their (dtype,
#: head_dim) where the manifest has one (key block 176, one Q buffer: FA3's non-causal d128 tile).
#: Measured on the H100 (notes/hopper.md, 2026-11-26): 1.07x the 128-key TMA kernel at 8192 and
#: 1.02-1.03x at 16384; 0.95-1.00x from 512 to 4096.
WIDE_BLOCK_NONCAUSAL: tuple[int, int] = (8192, 1 << 30)


#: Causal problems whose seqlen_k lies in head_dim's range run the ``_dyn`` sibling of their kernel where
#: the manifest has one: the same tile with the dynamic causal schedule (and its 32 / 232 register split,
#: which made non-causal d96 6-8% slower, hence a sibling rather than the one d96 kernel).  Measured on the
#: H100 (2026-11-26, lead's merged run, notes/hopper.md): d96 causal ``_dyn`` / the static kernel 1.28x at
#: b32 s512, 1.34x at b16 s1024, 1.37x at b8 s2048, 1.21x at b4 s2048 (the issue row), 1.38x at b4 s4096;
#: 0.90x at b2 s8192 and 1.04x at b1 s16384 (left static from 8192 up).
DYN_SIBLING_CAUSAL: dict[int, tuple[int, int]] = {96: (0, 4096)}


#: Causal problems whose seqlen_k lies in head_dim's (min, max) and whose K + V (batch * heads_k * seqlen_k *
#: (head_dim + head_dim_v) * 2 bytes) is at most the third value run the ``_static`` sibling of their kernel where
#: the manifest has one: the same tile on the static schedule (CAUSAL_PERSISTENT's grid; at d128 the 24 / 240 register
#: split), where the dynamic schedule with L2 sections measured slower.  H100, bf16, static / dynamic in the same run
#: (notes/hopper.md, 2026-11-26, branch issue11e-causal, calls 1-3): d128 with all of K + V within 32 MiB of L2 (no
#: section needed) at 2048-4096 keys: 2x4096 64/8 1.09 / 1.04 / 1.07x, 4x2048 32/8 1.04 / 1.04x, 2x4096 32/8 1.07x,
#: 2x4096 h16 1.02x, 1x2048 h32 1.03x; where K + V exceed L2 the sections win (4x4096 32/8 0.95x, the h16 rows with
#: 128 MiB of K + V 0.68-0.96x at 512-4096).  d64 at 16384 keys: b1 h32 1.07x (call 1, the cp.async static kernel)
#: and 1.04x (call 2, the sibling), b1 h16 1.06x (call 3).
STATIC_SIBLING_CAUSAL: dict[int, tuple[int, int, int]] = {
    128: (2048, 4096, 32 << 20),
    64: (16384, 1 << 30, 1 << 62),
}


#: d64 problems (not softcap) whose seqlen_k lies in the (min, max) of their causal flag run the ``_s4`` sibling of the
#: d64 kernel where the manifest has one: the same tile with a 4-deep K / V ring (HOPPER_S4_D64) instead of 3.
#: (the ``_static`` sibling, :data:`STATIC_SIBLING_CAUSAL`, comes first.)  H100, bf16, d64, ``_s4`` / the 3-stage kernel in
#: the same run (notes/hopper.md, 2026-11-26, issue11h-wave2 call 1; TFLOP/s from gpu_time, identical configurations
#: differed by up to 5% in that run): causal 4x4096 h32 1.03x, 2x8192 h32 1.04x (issue11g-d64's run: 1.07-1.09x at
#: causal 4096 / 8192); causal 8x2048 h32 1.00x, 16x1024 h32 1.01x, 32x512 h32 1.00x, 2x4096 h8 1.00x; non-causal
#: 0.98-1.03x (2x8192 h32 0.98x, 1x16384 h32 1.02x, 8x8192 h16 1.03x, 4x4096 h32 1.01x, 2048-40000 few-tile rows
#: 1.00x; issue11g-d64's run 0.94-0.97x at 8x8192 h16 and 32768), so causal 4096-8192 only.
S4_SIBLING_D64: dict[bool, tuple[int, int]] = {
    True: (4096, 8192),
    False: (0, -1),
}


def _in_sibling_range(table: dict[bool, tuple[int, int]], head_dim: int, p: Problem) -> bool:
    """Whether ``p`` (of ``head_dim``) has its seqlen_k in ``table``'s (min, max) for its causal flag: the rule of the
    ``_c2`` / ``_s4`` / ``_fk`` siblings (:data:`C2_SIBLING_D64`, :data:`S4_SIBLING_D64`, :data:`FK_SIBLING_D128`)."""
    lo, hi = table.get(p.causal, (0, -1))
    return p.head_dim == head_dim and lo <= p.seqlen_k <= hi


#: d128 problems (not softcap, not varlen) whose seqlen_k lies in the (min, max) of their causal flag run the ``_fk``
#: sibling of the d128 kernel where the manifest has one (HOPPER_FK_D128: a tile's last PV and the next tile's first
#: QK^T in one ping-pong turn, each V block loaded after the next K block).  H100, bf16, ``_fk``'s code / the d128 kernel
#: in the same run (notes/hopper.md, 2026-11-27, issue11i-d128 call 2, one interleaved run of 5 rounds): 1.02x at
#: 32x512 h16, 1.05x causal; 1.01 / 1.02x at 16x1024; 1.01x at 8x2048; 0.975x at 4x4096 non-causal (so up to 2048);
#: the ranges below were then checked in the run that validated the kernels (issue11i-fk).  Up to 4096 since issue11w:
#: ``_fk`` / the d128 kernel at 4x4096 h16, paired runs of 7 rounds: 1.021x non-causal / 1.016x causal (call w2), 1.001x /
#: 1.011x (issue11r call g1); at 2x8192 h16 non-causal ``_fk`` read 0.988x the ``_bn176`` kernel (w2), which stays there.
FK_SIBLING_D128: dict[bool, tuple[int, int]] = {
    True: (0, 4096),
    False: (0, 4096),
}


#: d64 problems (not softcap, not varlen) whose seqlen_k lies in the (min, max) of their causal flag run the ``_c2``
#: sibling of the d64 kernel where the manifest has one (HOPPER_C2_D64: 128-row tiles of two consumer warpgroups at
#: setmaxnreg 232 in cuDNN's loop shape: the ping-pong turn around the exponentials only, the next key block's QK^T
#: issued right behind the PV; 128-row tiles divide 512 / 1024 rows where the d64 kernel's 192 leave 11% of the work
#: idle), before the ``_static`` / ``_s4`` siblings.  H100, bf16, same runs (notes/hopper.md, 2026-11-27, issue11j-k,
#: calls e1, m2, e4): 1.01-1.09x the d64 kernel at 512-1024 (16x1024 h32 0.99x) before descriptor adds (1.007-1.020x
#: more) and interleaved exponentials (1.000-1.021x more); above 1024 keys, as shipped, 0.971-1.003x the d64 kernel
#: (8x2048-1x32768, call e4): so up to 1024 keys.  Causal d64 runs on hopper from 512 (:data:`PREFERRED`).
C2_SIBLING_D64: dict[bool, tuple[int, int]] = {
    True: (0, 1024),
    False: (0, 1024),
}

#: Of the problems :func:`kernel_name` gives the ``_c2`` sibling, those whose seqlen_k lies in the (min, max) of their
#: causal flag run its ``_c2q3`` sibling where the manifest has one (HOPPER_C2_CAUSAL_Q3_D64: the same kernel with three
#: Q buffers, so a short tile's successor has its Q and first K / V loaded two tiles ahead).  H100, bf16, call a2
#: (2026-11-27 session 5, issue11ac, one paired run of 5 rounds, three Q buffers / two): causal 1.041x at 32x256 h32,
#: 1.038x at 32x512 h32, 1.030x at 32x512 h16, 1.001x at 16x1024 h32; non-causal 0.996-0.999x (A/A 0.998-1.001): so
#: causal only.
C2Q3_SIBLING_D64: dict[bool, tuple[int, int]] = {
    True: (0, 1024),
    False: (0, -1),
}

#: Non-causal d64 problems (not softcap, not varlen) above :data:`C2_SIBLING_D64`'s range also run the ``_c2`` sibling
#: where the d64 kernel's tiles (192 rows) fill at most this many rounds of the GPU's compute units: there 128-row tiles
#: leave less of the last round idle.  H100, bf16, call st (2026-11-27, session 4), one paired run of 5 rounds, ``_c2``
#: / the d64 kernel (the d64 kernel built without HOPPER_PV_LATE_D64; with it, 1.005-1.024x faster in the same run):
#: 1.173x at 1x8192 h4 (1.30 rounds), 1.078x at 2x4096 h8 (2.67), 1.055x at 1x40000 h2 (3.17); 0.997x at 1x32768 h8
#: (10.4 rounds), 0.954-0.987x at 21 rounds.  0 turns the rule off.
C2_FEW_ROUNDS_D64: float = 4.0


def _c2_few_rounds(p: Problem, names, compute_units: int | None) -> bool:
    """Whether non-causal d64 ``p`` is a :data:`C2_FEW_ROUNDS_D64` problem on ``compute_units`` SMs (None: unknown, no)."""
    name = variant_name(p.dtype, 64)
    if p.causal or p.head_dim != 64 or not compute_units or name not in names:
        return False
    tiles = p.batch * p.heads_q * -(-p.seqlen_q // names[name]["block_m"])   # (names: manifest name -> object)
    return tiles <= C2_FEW_ROUNDS_D64 * compute_units


def _runs_static_sibling(p: Problem) -> bool:
    lo, hi, kv_max = STATIC_SIBLING_CAUSAL.get(p.head_dim, (0, -1, 0))
    kv = p.batch * p.heads_k * p.seqlen_k * (p.head_dim + p.head_dim_v) * 2
    return p.causal and lo <= p.seqlen_k <= hi and kv <= kv_max


def kernel_name(p: Problem, names, compute_units: int | None = None) -> str:
    """The manifest name of the kernel that runs ``p`` among ``names``: ``fwd_<dtype>_d<D>``, its
    ``_bn176`` sibling for long non-causal problems (:data:`WIDE_BLOCK_NONCAUSAL`), or its ``_dyn``
    / ``_static`` sibling for causal ones (:data:`DYN_SIBLING_CAUSAL`, :data:`STATIC_SIBLING_CAUSAL`), the d64 ``_s4``
    sibling where :data:`S4_SIBLING_D64` says, the d128 ``_fk`` sibling where :data:`FK_SIBLING_D128` says, the d64 ``_c2``
    sibling where :data:`C2_SIBLING_D64` says or, on ``compute_units`` SMs, :data:`C2_FEW_ROUNDS_D64` (its ``_c2q3``
    sibling where :data:`C2Q3_SIBLING_D64` says; before ``_static`` / ``_s4``; not where it takes host-made maps, manifest ``param_maps``, that :func:`param_maps_refusal` refuses);
    softcap problems: ``fwd_<dtype>_d<D>_softcap``; varlen problems ``fwd_<dtype>_d<D>[_softcap]_varlen`` (whether or not
    ``names`` has it: :func:`gate` checks), causal ones without softcap ``fwd_<dtype>_d<D>_dyn_varlen`` where ``names``
    has it (d96: the dynamic causal schedule, as ``_dyn`` on uniform batches)."""
    name = variant_name(p.dtype, p.head_dim)
    if p.varlen:
        if p.causal and p.softcap == 0 and name + "_dyn_varlen" in names:
            return name + "_dyn_varlen"
        return name + ("_softcap" if p.softcap > 0 else "") + "_varlen"
    if p.softcap > 0:
        return name + "_softcap"
    lo, hi = WIDE_BLOCK_NONCAUSAL
    if not p.causal and lo <= p.seqlen_k <= hi and name + "_bn176" in names:
        return name + "_bn176"
    lo, hi = DYN_SIBLING_CAUSAL.get(p.head_dim, (0, -1))
    if p.causal and lo <= p.seqlen_k <= hi and name + "_dyn" in names:
        return name + "_dyn"
    if ((_in_sibling_range(C2_SIBLING_D64, 64, p) or _c2_few_rounds(p, names, compute_units)) and name + "_c2" in names
            and not param_maps_refusal(p, names[name + "_c2"])):   # (host-made maps the encoder refuses: the next kernel)
        if _in_sibling_range(C2Q3_SIBLING_D64, 64, p) and name + "_c2q3" in names:
            return name + "_c2q3"     # (the same maps as _c2's: what _c2 takes, it takes)
        return name + "_c2"
    if _runs_static_sibling(p) and name + "_static" in names:
        return name + "_static"
    if _in_sibling_range(S4_SIBLING_D64, 64, p) and name + "_s4" in names:
        return name + "_s4"
    if (_in_sibling_range(FK_SIBLING_D128, 128, p) and name + "_fk" in names
            and not param_maps_refusal(p, names[name + "_fk"])):   # (HOPPER_PARAM_MAPS_FK: maps the encoder refuses: d128)
        return name + "_fk"
    return name


def preferred(p: Problem) -> str | None:
    """None where the hopper kernels measured faster than the portable family on the H100
    (:data:`PREFERRED`, varlen: :data:`VARLEN_PREFERRED` instead; windows and softcap: :data:`WINDOW_PREFERRED`,
    :data:`SOFTCAP_PREFERRED` too), else why dispatch leaves the problem to portable."""
    if p.varlen:
        return _varlen_preferred(p) or _window_softcap_preferred(p)
    if why := _window_softcap_preferred(p):
        return why
    lo, hi = PREFERRED.get((p.head_dim, p.causal), (0, -1))
    kind = _kind(p)
    if hi < lo:
        return f"{kind}: the portable kernels measured faster on the H100 (notes/hopper.md)"
    return _outside_range(lo, hi, kind, (("seqlen_q", p.seqlen_q), ("seqlen_k", p.seqlen_k)))


def _kind(p: Problem) -> str:
    """``p``'s row of the preference tables in words: "head_dim 64 causal"."""
    return f"head_dim {p.head_dim} {'causal' if p.causal else 'non-causal'}"


def _outside_range(lo: int, hi: int, kind: str, lengths) -> str | None:
    """Why dispatch leaves a problem of ``kind`` to portable when one of ``lengths`` ((name, n) pairs) is outside
    ``lo..hi``, the lengths where a preference table says the hopper kernels measured faster; else None."""
    for name, n in lengths:
        if not lo <= n <= hi:
            return (f"{name} {n} is outside {lo}..{hi}, where the hopper kernels measured faster than portable "
                    f"for {kind} (notes/hopper.md)")
    return None


#: Sliding windows (issue11g): head_dim -> (min, max) of seqlen_q / seqlen_k where the hopper kernels measured faster
#: than portable on window problems; :data:`PREFERRED` applies on top (by head dim and causal).  A head dim missing
#: here leaves its window problems to portable.  H100, bf16, hopper / portable forced (notes/hopper.md, 2026-11-26,
#: issue11g calls 1 and 2): d128 causal (left, 0) 1.18x at 2x8192 32/8 (4096, 0), 1.62x at 8x2048 (512, 0),
#: 1.38x at 32x512 (256, 0), non-causal (256, 256) 1.60x at 4x4096; d64 causal (512, 0) 1.17x at 8x2048 h32,
#: non-causal (256, 256) 1.19x at 8x2048 h32, 0.90x at 16x1024 h32, (128, 128) 0.85x at 32x512 h32 (so d64 from
#: 2048); d96 causal (512, 0) 1.48x at 4x2048 h32, (256, 0) 1.27x at 32x512 h32; d256 causal (1024, 0) 1.43x at
#: 4x4096 16/8, non-causal (128, 128) 1.12x at 32x512.
WINDOW_PREFERRED: dict[int, tuple[int, int]] = {
    64: (2048, 1 << 30),
    96: (512, 1 << 30),
    128: (512, 1 << 30),
    256: (512, 1 << 30),
}

#: Softcap (issue11g, the ``_softcap`` kernels), as :data:`WINDOW_PREFERRED` (both apply to a window + softcap
#: problem).  Same calls: d128 1.32x at 2x8192 causal, 1.24x at 1x16384 non-causal, 1.38x at 8x2048 non-causal with a
#: (512, 512) window, 1.22x at 32x512 causal, 1.16x at 16x1024 non-causal; d96 1.32x at 4x2048 h32 and 1.23x at
#: 16x1024 h32 non-causal (512 not timed); d256 1.76x at 4x4096 causal, 1.38x at 2x8192 16/8 causal with a (4096, 0)
#: window, 1.75x at 8x2048 non-causal, 1.29x at 32x512 causal; d64 0.88x at 16x1024 h32 non-causal, 1.03x at 8x2048
#: h32 non-causal, 1.06x at 4x4096 h32 causal (the softcap's ex2 + rcp per score weigh most at d64).
SOFTCAP_PREFERRED: dict[int, tuple[int, int]] = {
    64: (2048, 1 << 30),
    96: (1024, 1 << 30),
    128: (512, 1 << 30),
    256: (512, 1 << 30),
}


def _window_softcap_preferred(p: Problem) -> str | None:
    for what, on, table in ((f"window {p.window}", p.has_window, WINDOW_PREFERRED),
                            (f"softcap {p.softcap}", p.softcap > 0, SOFTCAP_PREFERRED)):
        if not on:
            continue
        lo, hi = table.get(p.head_dim, (0, -1))
        if hi < lo:
            return f"head_dim {p.head_dim} with {what}: not measured faster than portable on the H100 (notes/hopper.md)"
        if why := _outside_range(lo, hi, f"head_dim {p.head_dim} with {what}",
                                 (("seqlen_q", p.seqlen_q), ("seqlen_k", p.seqlen_k))):
            return why
    return None


#: Varlen (issue11h, the ``_varlen`` kernels): (head_dim, causal) -> (min, max) of max_seqlen_q / max_seqlen_k where
#: dispatch runs varlen problems on the hopper kernels; window / softcap tables apply on top, :data:`PREFERRED` (timed
#: on uniform batches) does not.  A key missing here leaves those varlen problems to portable.  Each range ends at the
#: longest max_seqlen timed.  H100, bf16, hopper forced / portable forced over the same packed inputs
#: (bench/hopper_varlen_dev.py time, notes/hopper.md 2026-11-27): 16 sequences of 128-4096 tokens: d128 1.20x / causal
#: 1.38x (32/8: 1.32x), d64 1.35 / 1.16x, d96 1.34 / 1.00x, d256 1.48 / 1.52x; 32 of 128-1024: d128 1.08 / 1.57x, d64
#: 1.49 / 1.18x; 4 of 4096-16384 (longest 11237-15186): d128 1.25 / 1.20x, d64 1.28 / 1.08x; 8 of 1024-8192: d256
#: causal 1.22x, d96 causal 0.93x; 256 of 16-256: d64 1.55x, d128 causal 1.85x; 128 of 64-512, 32/8 d128 causal 1.52x.
#: d96 causal on the main d96 kernel (static schedule) timed 0.93-1.00x; on ``_dyn_varlen`` (the dynamic schedule) 1.49x
#: (16 of 128-4096; 32/8: 1.50x), 1.41x (8 of 1024-8192), 1.53x (32 of 128-1024), 1.35x (4 of 4096-16384, longest
#: 14075), 1.77x (256 of 16-256).
VARLEN_PREFERRED: dict[tuple[int, bool], tuple[int, int]] = {
    (64, False): (1, 16384),
    (64, True): (1, 16384),
    (128, False): (1, 16384),
    (128, True): (1, 16384),
    (256, False): (1, 4096),
    (256, True): (1, 8192),
    (96, False): (1, 4096),
    (96, True): (1, 16384),
}


def _varlen_preferred(p: Problem) -> str | None:
    lo, hi = VARLEN_PREFERRED.get((p.head_dim, p.causal), (0, -1))
    kind = f"{_kind(p)} varlen"
    if hi < lo:
        return f"{kind}: not measured faster than portable on the H100 (notes/hopper.md)"
    return _outside_range(lo, hi, kind, (("max_seqlen_q", p.seqlen_q), ("max_seqlen_k", p.seqlen_k)))


def window_args(p: Problem) -> tuple[int, int]:
    """``(window_left, window_right)`` for hopper_fwd_args: -1 = unbounded; causal problems get right 0 (the
    kernels need it); a side that reaches past every key (left >= seqlen_k, right >= seqlen_q) becomes -1, so the
    kernels' int32 bounds stay small."""
    left, right = p.window
    if p.causal:
        right = 0
    elif right >= p.seqlen_q:
        right = -1
    if left >= p.seqlen_k:
        left = -1
    return left, right


def gate(problem: Problem, arch: str, compute_units: int | None = None, force: bool = False) -> str | None:
    """None when dispatch should run ``problem`` on ``arch`` with this family.  ``force=True``
    drops the speed preference (:func:`preferred`) and keeps only what the kernels can run."""
    try:
        a = canonical_arch(arch)
    except ValueError as e:
        return str(e)
    if a not in ARCHES:
        return f"the hopper kernels need wgmma (sm_90a), not {a}"
    m = manifest(a)
    if m is None:
        return f"no hopper code objects for {a} (kernels/co/{a}/hopper_manifest.json missing; run scripts/build_co.sh hopper)"
    why = check_problem(problem)
    if why:
        return why
    name = kernel_name(problem, m["by_name"], compute_units)
    obj = m["by_name"].get(name)
    if obj is None:
        return f"kernel {name} is not in kernels/co/{a}/hopper_manifest.json"
    if problem.varlen and not obj.get("varlen"):
        return f"varlen: kernel {obj['name']} in kernels/co/{a}/hopper_manifest.json is not a _varlen kernel"
    if problem.has_window and not obj.get("window"):
        return (f"sliding window {problem.window}: kernel {obj['name']} in kernels/co/{a}/hopper_manifest.json "
                "was built without windows (HOPPER_WINDOW=0)")
    if obj.get("tma") and (why := tma_refusal(problem, bool(obj.get("epilogue_tma")))):
        return why
    return None if force else preferred(problem)


def ksplit_bytes(p: Problem, obj: dict, tiles: int, grid: int) -> int:
    """Workspace bytes past the tensor maps' scratch that kernel ``obj`` (manifest ``ksplit``: HOPPER_KSPLIT, issue11aj) needs
    for the partials of its key-split last round on ``tiles`` tiles over ``grid`` CTAs, or 0 where it does not split.
    hopper_fwd.cu's ks_geom, the same rule: not causal, no window, not varlen, more tiles than CTAs, w = (tiles % grid)
    * ceil(seqlen_k / block_n) key blocks in the last round with grid <= w and w * grid < 2 ** 31, and at least
    ``min_save`` key blocks saved (ceil(seqlen_k / block_n) - ceil(w / grid))."""
    ks = obj.get("ksplit")
    if not ks or p.causal or p.varlen or window_args(p) != (-1, -1) or tiles <= grid:
        return 0
    nb = -(-p.seqlen_k // obj["block_n"])
    w = (tiles % grid) * nb
    if w < grid or w * grid >= 1 << 31 or nb - -(-w // grid) < ks["min_save"]:
        return 0
    return ks["bytes_per_cta"] * grid


def plan(problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
    """One launch; pointer slots q, k, v, out, lse (lse only with ``return_lse``), cu_seqlens_q / cu_seqlens_k
    (varlen), and for a kernel that loads with TMA (manifest ``tma``) the workspace, where each CTA writes its tensor
    maps (a kernel marked ``param_maps`` writes none there, only its tile counters below it count: its kernargs carry
    :func:`tile_maps` at the manifest's offset, with q / k / v / out slots at each map's address too).  Varlen: tiles over ``batch * heads_q * ceil(max_seqlen_q / block_m)``; the kernel reads the cu_seqlens
    per tile and skips tiles past each sequence's end."""
    why = gate(problem, arch, compute_units, force=True)
    if why:
        raise ValueError(f"hopper family cannot run this problem on {arch}: {why}")
    if num_splits != 1:
        raise ValueError(f"num_splits {num_splits}: the hopper family runs unsplit (1)")
    p = problem
    a = canonical_arch(arch)
    if p.seqlen_q == 0 or p.batch == 0 or p.heads_q == 0:
        return []
    by_name = manifest(a)["by_name"]
    obj = by_name[kernel_name(p, by_name, compute_units)]
    bm = obj["block_m"]
    m_blocks = -(-p.seqlen_q // bm)
    tiles = m_blocks * p.heads_q * p.batch
    # Non-causal tiles cost the same: a persistent grid, one CTA per SM.  Causal tiles do not:
    # where CAUSAL_PERSISTENT says so, a persistent grid that deals the heavy-first tiles out in a
    # snake; elsewhere one CTA per tile, heavy tiles first, and the hardware hands each free SM the
    # next one.
    # A kernel with the dynamic causal schedule (manifest ``dynamic_causal``) deals causal tiles out
    # itself (a tile counter in the workspace's zeroed counters below ``tmaps``): a persistent grid.
    lo, hi = CAUSAL_PERSISTENT.get(p.head_dim, (0, -1))
    persistent = not p.causal or bool(obj.get("dynamic_causal")) or lo <= p.seqlen_k <= hi
    grid = (min(tiles, max(1, compute_units)) if persistent else tiles, 1, 1)
    lay = layout()
    values = dict.fromkeys(lay.names, 0)
    values.update(batch=p.batch, seqlen_q=p.seqlen_q, seqlen_k=p.seqlen_k, heads_q=p.heads_q, group=p.group_size,
                  m_blocks=m_blocks, causal=int(p.causal), scale_log2=p.softmax_scale * math.log2(math.e))
    values["window_left"], values["window_right"] = window_args(p)
    if p.softcap > 0:               # the _softcap kernel: tanh(scale * s / softcap), then softmax scaled by softcap
        values.update(scale_log2=p.softcap * math.log2(math.e),
                      softcap_log2=2 * math.log2(math.e) * p.softmax_scale / p.softcap)
    for name, strides in (("q", p.q_strides), ("k", p.k_strides), ("v", p.v_strides), ("o", p.o_strides)):
        for axis, s in zip(("batch", "seq", "head"), strides):
            values[f"{name}_{axis}_stride"] = s
    slots = _POINTERS if p.return_lse else _POINTERS[:-1]
    if p.varlen:
        values.update(total_q=p.total_q, total_k=p.total_k)
        slots += ("cu_seqlens_q", "cu_seqlens_k")
    tma = obj.get("tma")
    workspace = tma["align"] + tma["bytes_per_cta"] * grid[0] if tma else 0
    if tma:   # HOPPER_KSPLIT (manifest ksplit): the key-split last round's partials, past the CTAs' tensor maps
        workspace += ksplit_bytes(p, obj, tiles, grid[0])
    if tma:
        slots += ("workspace",)
    kernargs = lay.packer().pack(**values)
    pointer_slots = tuple((n, lay["tmaps" if n == "workspace" else n].offset) for n in slots)
    if pm := obj.get("param_maps"):
        # HOPPER_PARAM_MAPS_C2: hopper_fwd_maps as the second parameter, at the metadata's offset (make_manifest.py); the
        # maps made here, each map's address (its bytes 0-7) bound per call like a.q / a.k / a.v / a.out
        off, mlay = pm["offset"], maps_layout()
        if off < len(kernargs) or off % 16:
            raise ValueError(f"manifest: {obj['name']} param_maps offset {off}; accepted: a multiple of 16 >= "
                             f"{len(kernargs)} (the end of hopper_fwd_args)")
        kernargs += bytes(off - len(kernargs)) + tile_maps(p, obj)
        pointer_slots += tuple((n, off + mlay[f"{m}0"].offset) for n, m in (("q", "q"), ("k", "k"), ("v", "v"),
                                                                          ("out", "o")))
    return [LaunchPlan(
        code_object=str(kernels_dir() / a / obj["file"]),
        kernel=obj["kernel"],
        grid=grid,
        block=(obj["threads"], 1, 1),
        shared_mem=obj["shared"],
        kernargs=kernargs,
        workspace_bytes=workspace,
        pointer_slots=pointer_slots,
    )]
