"""Write kernels/co/<arch>/hopper_manifest.json from the built hopper cubin, and check it.

    python3 kernels/src/hopper/make_manifest.py <arch> <dir with hopper_fwd.cubin> <stages d64> <stages d128> <consumer warpgroups d64> <Q buffers> [KEY=VALUE ...]

KEY=VALUE (defaults: the build's before TMA): ``tma_d64`` / ``tma_d128`` (0 / 1: the producer loads with
TMA, the kernel needs the ``tmaps`` scratch), ``bn_d128`` (key block), ``q_stages_d128`` (Q buffers of
the d128 kernels; default <Q buffers>), ``regs_2wg`` (setmaxnreg producer/consumer with two consumer
warpgroups, e.g. ``40/232``), ``bn_d256`` (key block of the d256 kernels, default 64), ``d96_compute`` (the
width the d96 kernels' GEMMs compute: 96, or 128 over zero-filled columns; default 96), ``dyn_causal`` (0 / 1:
the d128 TMA kernels with 128-key blocks deal causal tiles out dynamically, with a tile counter just below
``tmaps``, and split setmaxnreg 32 / 232), ``dyn_d64`` (0 / 1: so do the d64 kernels when they load with TMA;
default 0), ``l2_section_kb`` (causal tile order in sections of heads whose K + V fit that many KiB; 0: none),
``l2_section_mode`` (how sections are sized, hopper_fwd.cu's HOPPER_L2_SECTION_MODE; default 0), ``l2_short_sk`` /
``l2_short_kb`` (HOPPER_L2_SHORT_SK / _KB: causal problems of at most l2_short_sk keys take sections of l2_short_kb KiB;
default 0: no such rule; recorded beside ``l2_section_kb`` where not 0),
``epi_smem_d128`` (0 / 1: the d128 TMA kernels with 128-key blocks and two Q buffers, _static siblings included,
stage O through a shared-memory buffer of block_m x 128 columns for coalesced stores; recorded as ``epilogue_smem``),
``epi_smem_d64`` (0 / 1 / 2: the same for the d64 TMA kernels with two Q buffers, _static siblings included, a buffer
of block_m x 64 columns; 2: each warp stages and stores its own rows, recorded as ``epilogue_smem_per_warp`` too), ``epi_v4_d128`` (0 / 1: the d128 buffer's rows go out with
st.global.v4 as the d64 ones always do; recorded as ``epilogue_v4`` on every kernel whose rows do), ``epi_tma_d128`` (0 / 1:
the d128 kernels with that buffer store it with TMA, through a fourth tensor map: 128 more bytes of shared memory and
512 bytes of ``tmaps`` scratch per CTA; recorded as ``epilogue_tma``), ``rescale_in_turn_d128`` / ``rescale_vote_d128``
(hopper_fwd.cu's HOPPER_RESCALE_IN_TURN_D128 / HOPPER_RESCALE_VOTE_D128, defaults 0 / 1; recorded as
``rescale_in_turn`` / ``rescale_vote`` on the d128 kernels where they differ from those defaults), ``desc_add_d128``
(HOPPER_DESC_ADD_D128, default 0; recorded as ``desc_add`` on the d128 kernels when 1), ``decode_once_d128``
(HOPPER_DECODE_ONCE_D128: a tile decoded once by the d128 consumers; recorded as ``decode_once`` on the d128 kernels when
1), ``wg_skip_d64`` (0 / 1:
each consumer warpgroup of the d64 TMA kernels, not the ``_static`` / ``_softcap`` siblings, computes only the key blocks its own rows
see, HOPPER_WG_SKIP_D64; recorded as ``wg_skip``), ``window`` (0 / 1:
the kernels take hopper_fwd_args' sliding window, HOPPER_WINDOW; recorded as ``window`` on every kernel), ``epi_tma_d64``
(0 / 1: the d64 kernels with the per-warp O buffer, ``epi_smem_d64=2``, not the ``_static`` /
``_softcap`` siblings, store it with TMA, HOPPER_EPI_TMA_D64: a fourth
tensor map as ``epi_tma_d128``'s; recorded as ``epilogue_tma``; default 0), ``decode_once_d64`` (0 / 1: the d64
consumers, not the ``_static`` / ``_softcap`` siblings, decode a tile's row block once, HOPPER_DECODE_ONCE_D64; recorded as
``decode_once``; default 0).
``hopper_fwd_<dtype>_d<D>[_softcap]_varlen`` kernels (HOPPER_VARLEN_SIBLINGS) are the main / ``_softcap`` kernel over
packed sequences (cu_seqlens; recorded as ``varlen``; O stored with row stores, never ``epilogue_tma``).
``hopper_fwd_<dtype>_d<D>_softcap`` kernels (HOPPER_SOFTCAP_SIBLINGS) are each head dim's main kernel with softcap
scores (recorded as ``softcap``; every other fact as the main kernel's).  ``hopper_fwd_<dtype>_d64_s4`` kernels (HOPPER_S4_D64) are the d64 kernel (TMA) with ``s4_stages_d64`` (default 4)
K / V stages, recorded as ``stages``; every other fact as the d64 kernel's.  ``hopper_fwd_<dtype>_d64_c2`` kernels
(HOPPER_C2_D64) are d64 with two consumer warpgroups (block_m 128, 384 threads) in cuDNN's loop shape, TMA, two Q
buffers, ``c2_stages_d64`` (default 3) K / V stages, the dynamic schedule and the d64 TMA epilogue, no ``wg_skip`` /
tail split (recorded as ``exp_turn``; ``c2_desc_add_d64`` 1: descriptors by add, recorded as ``desc_add``).  ``hopper_fwd_<dtype>_d64_c2q3``
kernels (HOPPER_C2_CAUSAL_Q3_D64) are the ``_c2`` kernel with three Q buffers (``q_stages`` 3, one more 128-row Q tile of
shared memory); every other fact and mark as ``_c2``'s; with ``c2q3_kahead_d64`` 1 (HOPPER_C2Q3_KAHEAD_D64) their producer
loads K ahead of V as the ``_fk`` siblings' (recorded as ``k_ahead``).  ``dec1_causal_d128`` (0 / 1, default 0:
HOPPER_DEC1_CAUSAL_D128 with ``decode_once_d128``: the d128 kernel and its ``_fk`` sibling, 128-key blocks, skip next_tile's
empty-tile decode on causal problems with seqlen_k >= seqlen_q; recorded as ``decode_once_causal``).  ``desc_add_d64``
(0 / 1, default 0: HOPPER_DESC_ADD_D64, the d64 kernels of three consumer warpgroups on the dynamic schedule, ``_d64`` and
``_d64_s4``, build their wgmma descriptors by adds; recorded as ``desc_add``).  ``pdec_d128`` (0 / 1, default 0:
HOPPER_PDEC_D128 with ``decode_once_d128``: the d128 kernel and its ``_fk`` sibling, 128-key blocks, TMA, read each tile's
coordinates from the producer's entry beside the Q slot; recorded as ``producer_decode``).  ``smx_tree_d128`` (0 / 1, default 0:
HOPPER_SMX_TREE_D128, the d128 kernel and its ``_fk`` sibling, 128-key blocks, TMA, take each row max of a key block in
four partial chains; recorded as ``max_tree``).  ``c2_defer_d64`` (0 / 1, default 0: HOPPER_C2_DEFER_D64, the ``_c2``
kernels store each tile's O during the next key block's PV wait; recorded as ``deferred_store``).  ``param_maps_c2`` (0 / 1,
default 0: HOPPER_PARAM_MAPS_C2, the ``_c2`` kernels take their Q / K / V / O tensor maps from the host as a second
parameter, hopper_args.h's hopper_fwd_maps at HOPPER_FWD_MAPS_ALIGN; their kernarg check covers both parameters;
recorded as ``param_maps``: the struct, its kernarg offset from the metadata, its alignment).  ``param_maps_fk`` (0 / 1,
default 0: HOPPER_PARAM_MAPS_FK, the same on the d128 ``_fk`` kernels; recorded as ``param_maps`` too).  ``c2_kvwait_d64``
(0-15, default 0: HOPPER_C2_KVWAIT_D64, the ``_c2`` / ``_c2q3`` kernels' mbarrier waits, bits as in hopper_fwd.cu; recorded as
``kv_wait`` with the value where not 0).  ``fast_rcp`` (0 / 1, default 0: HOPPER_FAST_RCP, a tile's 1 / l by
rcp.approx, not the IEEE division; recorded as ``fast_rcp`` on every kernel).  ``lazy_rescale`` (0-15, default 0:
HOPPER_LAZY_RESCALE, every kernel but the ``_c2`` / ``_c2q3`` siblings keeps a warp's row maxima while no row's new max
exceeds its kept one by more than that many in the exp2 domain, and the d128 kernels then vote on O's rescale too;
recorded as ``lazy_rescale`` with the value on those kernels).  ``start_wait`` (0 / 1, default 0: HOPPER_START_WAIT,
the ``_c2`` producer waits for its first K block before the deeper prefetch; recorded as ``start_wait`` on the ``_c2``
kernels).  ``pv_late_d64`` (0 / 1 / 2, default 0:
HOPPER_PV_LATE_D64, the d64 kernels of three consumer warpgroups keep the steady loop's PV wait behind the row maxima (2)
or sums (1); recorded as ``pv_late`` with the value).  ``tail_split_d64`` (0 / 1: the d64 kernels
with ``wg_skip`` and ``dynamic_causal`` split a non-causal last round of few tiles into 64-row pieces,
HOPPER_TAIL_SPLIT_D64; recorded as ``tail_split``), ``tail_rounds_d64`` (HOPPER_TAIL_ROUNDS_D64, default 8: only problems
of at most that many rounds of tiles; recorded as ``tail_split_rounds``).  ``hopper_fwd_<dtype>_d96_dyn`` kernels (HOPPER_DYN_D96) are
the d96 tile with the dynamic causal schedule; their name says so.  ``hopper_fwd_<dtype>_d{64,128}_static``
kernels (HOPPER_STATIC_SIBLINGS) are the tile of a dynamic kernel on the static schedule (TMA, no
``dynamic_causal``).
The d96 and d256 kernels always load with TMA and run two consumer warpgroups and 2 stages; d96 keeps two
Q buffers and 128-key blocks, d256 one Q buffer.

Facts come from the object's own metadata (pyhipattn.codeobj), the kernel names
(``hopper_fwd_<dtype>_d<D>``) and the stage / warpgroup counts the build passed to nvcc
(block_m = 64 per consumer warpgroup, threads = 128 per warpgroup, the producer's included).  The launch's dynamic shared memory is the kernel's layout (hopper_fwd.cu): QS Q tiles,
STAGES K and V tiles (each tile holds whole 64-column atoms: a d96 tile is 128 columns wide),
2 * QS + 4 * STAGES mbarriers, and 1024 bytes of slack to align the tiles to
1024 bytes (the 128-byte swizzle's period); a TMA kernel has 256 + 384 bytes after its tiles instead of
the mbarriers' (the mbarriers, then its three tensor maps).  The build fails here when a kernel's kernarg
layout differs from hopper_args.h, when it spills or uses local memory, when its shared
memory exceeds the arch's limit, or when its SASS has no HGMMA (when a disassembler is found).
Output is deterministic (sorted keys, no timestamps).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..")))

from pyhipattn import codeobj  # noqa: E402
from pyhipattn.arch import arch_info  # noqa: E402
from pyhipattn.codeobj.isa import ToolNotFoundError, mnemonics  # noqa: E402
from pyhipattn.codeobj.limits import resource_report  # noqa: E402
from pyhipattn.kernargs import check_layout, check_params, layout_from_header, read_header  # noqa: E402

HEADER = "kernels/src/hopper/hopper_args.h"
FWD = re.compile(r"hopper_fwd_(bf16|fp16)_d(\d+)(_bn176|_dyn|_static|_s4|_fk|_c2q3|_c2)?(_softcap)?(_varlen)?$")
#: the ``_bn176`` kernels (HOPPER_BN176_D128): key block 176, one Q buffer, TMA, whatever the options
BN176 = {"block_n": 176, "q_stages": 1, "tma": True}


def shared_bytes(block_m: int, block_n: int, d: int, stages: int, q_stages: int, tma: bool = False,
                 o_stage: bool = False, maps: int = 3) -> int:
    """Dynamic shared memory of one CTA (see the module docstring); ``o_stage``: plus the O staging buffer;
    ``maps``: tensor maps of a TMA kernel (4 with the O map of ``epi_tma_d128``)."""
    tail = 256 + maps * 128 if tma else 8 * (2 * q_stages + 4 * stages)
    width = 64 * -(-d // 64)        # whole 64-column atoms
    o_bytes = block_m * width * 2 if o_stage else 0
    return q_stages * block_m * width * 2 + 2 * stages * block_n * width * 2 + o_bytes + tail + 1024


#: TMA kernels: bytes of ``tmaps`` scratch per CTA (three 128-byte tensor maps) and the alignment slack
TMAP_BYTES_PER_CTA = 384
TMAP_ALIGN = 128


def main(arch: str, folder: str, stages64: str, stages128: str, nwg64: str, q_stages: str, *opts: str) -> None:
    kv = dict(o.split("=", 1) for o in opts)
    unknown = set(kv) - {"tma_d64", "tma_d128", "bn_d128", "q_stages_d128", "regs_2wg", "bn_d256", "d96_compute",
                         "dyn_causal", "dyn_d64", "l2_section_kb", "l2_section_mode", "l2_short_sk", "l2_short_kb",
                         "epi_smem_d128", "epi_smem_d64", "epi_v4_d128",
                         "epi_tma_d128", "rescale_in_turn_d128", "rescale_vote_d128", "desc_add_d128", "decode_once_d128", "wg_skip_d64",
                         "window", "epi_tma_d64", "decode_once_d64", "s4_stages_d64", "tail_split_d64", "tail_rounds_d64",
                         "c2_stages_d64", "c2_desc_add_d64", "dec1_causal_d128", "desc_add_d64", "pdec_d128", "smx_tree_d128", "c2_defer_d64", "pv_late_d64", "param_maps_c2", "c2q3_kahead_d64", "param_maps_fk", "c2_kvwait_d64", "fast_rcp", "lazy_rescale", "start_wait"}
    if unknown:
        raise SystemExit(f"make_manifest: unknown option(s) {sorted(unknown)}")
    qs = {64: int(q_stages), 96: 2, 128: int(kv.get("q_stages_d128", q_stages)), 256: 1}
    block_n = {64: 128, 96: 128, 128: int(kv.get("bn_d128", 128)), 256: int(kv.get("bn_d256", 64))}
    tma = {64: kv.get("tma_d64", "0") == "1", 96: True, 128: kv.get("tma_d128", "0") == "1", 256: True}
    regs = kv.get("regs_2wg", "40/232")
    dyn_causal = kv.get("dyn_causal", "0") == "1"
    dyn_d64 = kv.get("dyn_d64", "0") == "1"
    l2_section_mode = int(kv.get("l2_section_mode", "0"))
    lazy = int(kv.get("lazy_rescale", "0"))
    if not 0 <= lazy <= 15:   # (P <= 2^lazy must fit fp16: hopper_fwd.cu's static_assert)
        raise SystemExit(f"make_manifest: lazy_rescale={lazy}; accepted: 0 .. 15")
    l2_section_kb = int(kv.get("l2_section_kb", "0"))
    # HOPPER_L2_SHORT_SK / _KB: short causal problems' sections (recorded beside l2_section_kb; None: no such rule)
    l2_short = ({"max_seqlen_k": int(kv["l2_short_sk"]), "kb": int(kv.get("l2_short_kb", "4096"))}
                if int(kv.get("l2_short_sk", "0")) else None)
    epi_smem_d128 = kv.get("epi_smem_d128", "0") == "1"
    epi_smem_d64 = int(kv.get("epi_smem_d64", "0"))
    if epi_smem_d64 not in (0, 1, 2):
        raise SystemExit(f"make_manifest: epi_smem_d64={epi_smem_d64}; accepted: 0, 1, 2")
    stages = {64: int(stages64), 96: 2, 128: int(stages128), 256: 2}
    nwg = {64: int(nwg64), 96: 2, 128: 2, 256: 2}
    compute = {96: int(kv.get("d96_compute", 96))}
    hdr_path = os.path.join(HERE, "hopper_args.h")
    lay = layout_from_header(hdr_path, "hopper_fwd_args")
    # HOPPER_PARAM_MAPS_C2: the _c2 kernels' second parameter (the host's tensor maps)
    param_maps_c2 = kv.get("param_maps_c2", "0") == "1"
    # HOPPER_PARAM_MAPS_FK (issue11af): the same second parameter on the d128 _fk siblings
    param_maps_fk = kv.get("param_maps_fk", "0") == "1"
    hdr = read_header(hdr_path)
    maps_lay, maps_align = hdr["hopper_fwd_maps"], hdr.constants["HOPPER_FWD_MAPS_ALIGN"]
    fname = "hopper_fwd.cubin"
    data = open(os.path.join(folder, fname), "rb").read()
    (co,) = codeobj.read(data)
    if co.arch != arch:
        raise SystemExit(f"make_manifest: {fname} is for {co.arch}, expected {arch}")
    try:
        ops = mnemonics(os.path.join(folder, fname), arch)
    except ToolNotFoundError as e:
        print(f"make_manifest: HGMMA not checked ({e})", file=sys.stderr)
        ops = None
    limit = arch_info(arch).shared_limit
    objects, problems = [], []
    for name in sorted(co.kernels):
        m = FWD.match(name)
        if not m:
            raise SystemExit(f"make_manifest: kernel {name} does not follow "
                             "hopper_fwd_<dtype>_d<D>[_bn176|_dyn|_static|_s4|_fk|_c2|_c2q3][_softcap][_varlen]")
        k = co.kernels[name]
        d = int(m[2])
        kwg = nwg[d]            # this kernel's consumer warpgroups
        c2 = m[3] in ("_c2", "_c2q3")   # HOPPER_C2_D64: d64 with two consumer warpgroups (128-row tiles), TMA; the
        if c2:                          # _c2q3 siblings (HOPPER_C2_CAUSAL_Q3_D64) with three Q buffers, else two
            kwg = 2
        bm, bn, q_bufs, uses_tma = 64 * kwg, block_n[d], qs[d], tma[d]
        if m[3] == "_bn176":
            bn, q_bufs, uses_tma = BN176["block_n"], BN176["q_stages"], BN176["tma"]
        if m[3] == "_static":   # HOPPER_STATIC_SIBLINGS: built only from kernels with the dynamic schedule, all TMA
            uses_tma = True
        kstages = stages[d]
        if m[3] == "_s4":       # HOPPER_S4_D64: the d64 kernel (TMA) with a deeper K / V ring
            uses_tma, kstages = True, int(kv.get("s4_stages_d64", "4"))
        if c2:
            uses_tma, bn, q_bufs, kstages = True, 128, 3 if m[3] == "_c2q3" else 2, int(kv.get("c2_stages_d64", "3"))
        if m[3] == "_fk":       # HOPPER_FK_D128: the d128 kernel (TMA, 128-key blocks) with the fused last turn, K ahead
            uses_tma, bn = True, 128
        if m[5]:                # HOPPER_KERNEL_VARLEN: the _varlen siblings always load with TMA (whatever TMA_D64 / TMA_D128)
            uses_tma = True
        # hopper_fwd.cu's EPI
        epi_mode = ({128: int(epi_smem_d128), 64: epi_smem_d64}.get(d, 0)
                    if uses_tma and bn == 128 and (q_bufs == 2 or (c2 and q_bufs == 3)) else 0)
        epi = epi_mode != 0
        epi_tma = epi and d == 128 and epi_mode == 1 and kv.get("epi_tma_d128", "0") == "1"   # hopper_fwd.cu's EPI_TMA
        epi_tma = epi_tma or (epi and d == 64 and epi_mode == 2 and (m[3] in (None, "_s4") or c2) and not m[4]
                              and kv.get("epi_tma_d64", "0") == "1")   # EPI_TMA64 (the _s4 sibling is the d64 kernel's code)
        epi_tma = epi_tma and not m[5]   # the _varlen siblings store O with row stores (clipped at the sequence's end)
        shared = shared_bytes(bm, bn, d, kstages, q_bufs, uses_tma, epi, 4 if epi_tma else 3)
        param_maps = (param_maps_c2 and c2) or (param_maps_fk and m[3] == "_fk")
        maps_offset = None
        try:
            if param_maps:   # hopper_fwd_args, then hopper_fwd_maps where the metadata puts it (nvcc aligns its address)
                maps_offset = check_params([lay, maps_lay], k)[1]
            else:
                check_layout(lay, k)
        except ValueError as e:
            problems.append(f"{name}: {e}")
        problems += [f"{name}: {p}" for p in resource_report(k, arch)]
        if k.shared_bytes + shared > limit:
            problems.append(f"{name}: {k.shared_bytes} + {shared} shared bytes > {limit}")
        if ops is not None and not any(op.upper().startswith("HGMMA") for op in ops.get(name, {})):
            problems.append(f"{name}: no HGMMA in its SASS")
        objects.append({
            "name": f"fwd_{m[1]}_d{d}{m[3] or ''}{m[4] or ''}{m[5] or ''}", "file": fname, "kernel": name, "role": "fwd", "struct": "hopper_fwd_args",
            "dtype": m[1], "head_dim": d, "block_m": bm, "block_n": bn, "stages": kstages, "q_stages": q_bufs,
            "threads": 128 * (kwg + 1), "shared": shared, "registers": k.registers,
        })
        if d in compute:
            objects[-1]["compute_dim"] = compute[d]
        # hopper_fwd.cu's DYN: the d128 TMA kernels with 128-key blocks, the _dyn siblings, d64 with HOPPER_DYN_D64
        dyn = (uses_tma and dyn_causal and bn != BN176["block_n"] and m[3] != "_static"
               and (d == 128 or m[3] == "_dyn" or (d == 64 and dyn_d64)))
        if uses_tma:
            objects[-1]["tma"] = {"bytes_per_cta": TMAP_BYTES_PER_CTA + (128 if epi_tma else 0), "align": TMAP_ALIGN}
        if epi_tma:
            objects[-1]["epilogue_tma"] = True
        if d == 128 and kv.get("rescale_in_turn_d128", "0") == "1":
            objects[-1]["rescale_in_turn"] = True
        if d == 128 and kv.get("rescale_vote_d128", "1") == "0":   # (the flag; lazy_rescale kernels vote anyway)
            objects[-1]["rescale_vote"] = False
        if d == 128 and kv.get("desc_add_d128", "0") == "1":
            objects[-1]["desc_add"] = True
        if d == 64 and (m[3] in (None, "_s4") or c2) and not m[4] and kv.get("decode_once_d64", "0") == "1":
            objects[-1]["decode_once"] = True
        if d == 128 and kv.get("decode_once_d128", "0") == "1":
            objects[-1]["decode_once"] = True
        if dyn:
            objects[-1]["dynamic_causal"] = True
        on = lambda key: kv.get(key, "0") == "1"
        if c2:                  # cuDNN's loop shape: the ping-pong turn around the exponentials, each GEMM waited at once
            objects[-1]["exp_turn"] = True
            if on("c2_desc_add_d64"):   # HOPPER_C2_DESC_D64: descriptors by add, as the d128 kernels'
                objects[-1]["desc_add"] = True
            if on("c2_defer_d64"):   # HOPPER_C2_DEFER_D64: a tile's O stored in the next block's PV wait
                objects[-1]["deferred_store"] = True
        if m[3] == "_fk":
            objects[-1]["fused_turn"] = objects[-1]["k_ahead"] = True
        if param_maps and maps_offset is not None:   # HOPPER_PARAM_MAPS_C2 / _FK: hopper_fwd_args, then the host's maps
            objects[-1]["param_maps"] = {"struct": "hopper_fwd_maps", "offset": maps_offset, "align": maps_align}
        if c2 and int(kv.get("c2_kvwait_d64", "0")):   # HOPPER_C2_KVWAIT_D64: how the _c2 / _c2q3 kernels wait (bits)
            objects[-1]["kv_wait"] = int(kv["c2_kvwait_d64"])
        if on("fast_rcp"):   # HOPPER_FAST_RCP: the epilogue's 1 / l by one MUFU.RCP (every kernel)
            objects[-1]["fast_rcp"] = True
        if lazy and not c2:   # HOPPER_LAZY_RESCALE: kept row maxima (every kernel but _c2 / _c2q3)
            objects[-1]["lazy_rescale"] = lazy
        if m[3] == "_c2" and on("start_wait"):   # HOPPER_START_WAIT: the first K block before the deeper prefetch
            objects[-1]["start_wait"] = True
        if m[3] == "_c2q3" and on("c2q3_kahead_d64"):   # HOPPER_C2Q3_KAHEAD_D64: K(n - 1) loaded before V(n)
            objects[-1]["k_ahead"] = True
        # the d128 kernel and its _fk sibling with 128-key blocks (not _bn176 / _softcap / _varlen / _static): the kernels
        # of fwd_body's DEC1C, PDEC128 and SMX_TREE
        d128_main = d == 128 and bn == 128 and m[3] in (None, "_fk") and not m[4] and not m[5]
        # HOPPER_DEC1_CAUSAL_D128 (DEC1C): next_tile's decode skipped on causal problems with seqlen_k >= seqlen_q too
        if d128_main and on("decode_once_d128") and on("dec1_causal_d128"):
            objects[-1]["decode_once_causal"] = True
        # the d64 kernels of three consumer warpgroups on the dynamic schedule (not _c2 / _static / _softcap / _varlen): the
        # kernels of fwd_body's DESC64 and PV_LATE (d64)
        d64_main = d == 64 and m[3] in (None, "_s4") and not m[4] and not m[5] and dyn
        # HOPPER_DESC_ADD_D64 (DESC64): wgmma descriptors by adds
        if d64_main and on("desc_add_d64"):
            objects[-1]["desc_add"] = True
        # HOPPER_PV_LATE_D64 (PV_LATE): the steady loop's PV wait pinned behind the row maxima (2) / row sums (1)
        if d64_main and kv.get("pv_late_d64", "0") != "0":
            objects[-1]["pv_late"] = int(kv["pv_late_d64"])
        # HOPPER_PDEC_D128 (PDEC128, TMA and decode once): each tile's (m_block, head, batch) from the producer's entry
        # beside the Q slot
        if d128_main and uses_tma and on("decode_once_d128") and on("pdec_d128"):
            objects[-1]["producer_decode"] = True
        # HOPPER_SMX_TREE_D128 (SMX_TREE, TMA): each row max of a key block in four partial chains
        if d128_main and uses_tma and on("smx_tree_d128"):
            objects[-1]["max_tree"] = True
        if l2_section_kb:
            objects[-1]["l2_section_kb"] = l2_section_kb
            if l2_section_mode:
                objects[-1]["l2_section_mode"] = l2_section_mode
            if l2_short:
                objects[-1]["l2_short"] = dict(l2_short)
        if epi:
            objects[-1]["epilogue_smem"] = True
        if epi_mode == 2:
            objects[-1]["epilogue_smem_per_warp"] = True
        if epi and not epi_tma and (d == 64 or kv.get("epi_v4_d128", "0") == "1"):   # (TMA stores: no st.global.v4)
            objects[-1]["epilogue_v4"] = True
        if d == 64 and uses_tma and m[3] != "_static" and not c2 and not m[4] and kv.get("wg_skip_d64", "0") == "1":   # hopper_fwd.cu's WG_SKIP
            objects[-1]["wg_skip"] = True
            if dyn and not m[5] and kv.get("tail_split_d64", "0") == "1":   # hopper_fwd.cu's TSPLIT (not _varlen)
                objects[-1]["tail_split"] = True
                objects[-1]["tail_split_rounds"] = int(kv.get("tail_rounds_d64", "8"))
        if kv.get("window", "0") == "1":
            objects[-1]["window"] = True
        if m[4]:
            objects[-1]["softcap"] = True
        if m[5]:
            objects[-1]["varlen"] = True
        if kwg == 2 and (dyn or regs != "40/232"):
            objects[-1]["setmaxnreg"] = ("40/232" if kv.get("window", "0") == "1" else "32/232") if dyn else regs
    if problems:
        raise SystemExit("make_manifest: " + "; ".join(problems))
    manifest = {"family": "hopper", "arch": arch, "header": HEADER, "source": "kernels/src/hopper/hopper_fwd.cu",
                "sha256": {fname: hashlib.sha256(data).hexdigest()}, "objects": objects}
    with open(os.path.join(folder, "hopper_manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
