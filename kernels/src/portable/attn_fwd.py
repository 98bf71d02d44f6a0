"""Portable attention forward (Triton): one source, AOT-compiled for sm_90a, sm_80, gfx942,
gfx950 and gfx1100 by scripts/build/portable.py.  The GPU tuning script JIT-runs the same
functions (bench/tune_portable.py).

Layout BSHD: q (b, sq, hq, d), k (b, sk, hk, d), v (b, sk, hk, dv), out (b, sq, hq, dv); the
last dim is contiguous, other strides are kernel arguments (elements).  Varlen (IS_VARLEN):
q/k/v/out packed (total, h, d), batch strides 0, cu_seqlens_q / cu_seqlens_k int32 (b + 1).

Packed GQA: a program owns one kv head of one sequence and BLOCK_M rows of the flattened
(query position, head within the group) index, row = qpos * group + g, so each K/V block is
read once for the whole group and decode (sq = 1) still fills a tile.

Window (bottom-right aligned, FlashAttention >= 2.1): query i sees key j iff
    i + sk - sq - window_left <= j <= i + sk - sq + window_right   (-1 = unbounded side)
causal = (-1, 0).  Softcap: scores = softcap * tanh(scale * q.k / softcap) when softcap > 0.
Rows that see no key write out 0 and LSE -inf.

Split-K (num_splits > 1): program_id(2) is the split, taking a contiguous range of the KV
blocks its row tile can see; it writes normalised fp32 partial O and the partial LSE to the
workspace, rows ordered split-major then like LSE ([G][B][Hq][Sq], or [G][Hq][total_q] for
varlen): O partials at WS, LSE partials right after them at WS + G * ws_split_rows * dv.
With FOLD_COUNTERS > 0 the last split of each row tile to finish folds them in the same launch
(_combine_if_last: arrival counters in the FOLD_COUNTERS int32 words before WS); otherwise
attn_combine folds them in a second launch.  The argument order here is declared once, for the Python side, in
portable_args.h; the build checks they agree.

Registers: the build refuses any object that spills or uses scratch / local memory.  What
keeps the register count down: one masked loop for both edges of the key range (after the
unmasked middle), the window mask as one unsigned compare per score, the epilogue's row
indices recomputed after the loops (see there), and on RDNA3 q . k^T by head-dim chunks
(D_CHUNK, chosen per arch by the build).
"""

import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
LN2 = tl.constexpr(0.6931471805599453)
FAR = tl.constexpr(1 << 30)   # "unbounded" window side: no key index comes near it


@triton.jit
def _scores_by_chunks(q_rows, row_ok, k_blk, stride_ks, offs_n, kin, head_dim,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D_CHUNK: tl.constexpr):
    """q . k^T of one key block as a run-time loop over head-dim chunks of D_CHUNK, Q re-read
    from global memory (cache hits) chunk by chunk.  For RDNA3, whose WMMA operands hold a
    16-row tile's whole head dim in every lane: Q (16 x 256) and K^T (256 x 16) alone fill the
    256 VGPRs.  A run-time trip count keeps LLVM from unrolling the loop and hoisting every
    chunk's loads back together."""
    qk = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    offs_c = tl.arange(0, D_CHUNK)
    for c in range(0, head_dim, D_CHUNK):
        cm = (c + offs_c) < head_dim
        q_c = tl.load(q_rows[:, None] + (c + offs_c)[None, :], mask=row_ok[:, None] & cm[None, :], other=0.0)
        k_c = tl.load(k_blk + (offs_n[:, None] * stride_ks + (c + offs_c)[None, :]),
                      mask=kin[:, None] & cm[None, :], other=0.0)
        qk = tl.dot(q_c, tl.trans(k_c), qk)
    return qk


@triton.jit
def _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
               offs_n, offs_d, offs_dv, dmask, dvmask, vis_lo, vis_n, seqlen_k,
               qk_scale, sc_in, sc_out, MASK: tl.constexpr, SOFTCAP: tl.constexpr, D_CHUNK: tl.constexpr,
               FMA_SCALE: tl.constexpr = False):
    """One key block of the online softmax.

    MASK 0: a block wholly inside every row's window and inside seqlen_k (no mask arithmetic);
    1: bound the keys by seqlen_k only; 2: row r sees keys vis_lo[r] <= j < vis_lo[r] + vis_n[r]
    (window and seqlen_k folded in per row: one unsigned compare per score).  Scores are kept
    in the log2 domain (qk_scale and sc_out carry log2(e)).  ``q``: the Q tile, or with
    D_CHUNK > 0 (q row pointers, row mask, head_dim) for _scores_by_chunks.  FMA_SCALE (unmasked
    blocks without softcap only): the row max is taken over the unscaled scores and scaled once
    per row, and the scale goes into the exponent's subtraction (one FFMA per score instead of an
    FMUL and an FADD); exact for the max (scale >= 0, rounding is monotone).  Masked blocks keep
    the scale before the mask: -inf * 0 would be NaN at softmax_scale 0.
    """
    FUSED: tl.constexpr = FMA_SCALE and MASK == 0 and not SOFTCAP
    kpos = start_n + offs_n
    k_blk = k_base + tl.cast(start_n, tl.int64) * stride_ks
    k_ptrs = k_blk + (offs_n[:, None] * stride_ks + offs_d[None, :])
    v_ptrs = v_base + tl.cast(start_n, tl.int64) * stride_vs + (offs_n[:, None] * stride_vs + offs_dv[None, :])
    kin = kpos < seqlen_k
    if D_CHUNK > 0:
        qk = _scores_by_chunks(q[0], q[1], k_blk, stride_ks, offs_n, kin, q[2],
                               q[0].shape[0], offs_n.shape[0], D_CHUNK)
    else:
        if MASK > 0:
            k = tl.load(k_ptrs, mask=kin[:, None] & dmask[None, :], other=0.0)
        else:
            k = tl.load(k_ptrs, mask=dmask[None, :], other=0.0)
        qk = tl.dot(q, tl.trans(k))
    if SOFTCAP:
        # tanh(y) = 1 - 2 / (1 + e^(2y)); sc_in = 2 * log2(e) * scale / softcap
        qk = sc_out * (1.0 - 2.0 / (1.0 + tl.math.exp2(qk * sc_in)))
    elif not FUSED:
        qk = qk * qk_scale
    if MASK == 1:
        qk = tl.where(kin[None, :], qk, float("-inf"))
    if MASK == 2:
        vis = (kpos[None, :] - vis_lo[:, None]).to(tl.uint32, bitcast=True) < vis_n[:, None].to(tl.uint32, bitcast=True)
        qk = tl.where(vis, qk, float("-inf"))
    if FUSED:
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_new[:, None])
        m_new_s = m_new
    else:
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        if MASK > 0:
            # a row with nothing visible so far keeps m = -inf; subtract 0 instead of -inf
            m_new_s = tl.where(m_new == float("-inf"), 0.0, m_new)
        else:
            m_new_s = m_new
        p = tl.math.exp2(qk - m_new_s[:, None])
    alpha = tl.math.exp2(m_i - m_new_s)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    if MASK > 0:
        v = tl.load(v_ptrs, mask=kin[:, None] & dvmask[None, :], other=0.0)
    else:
        v = tl.load(v_ptrs, mask=dvmask[None, :], other=0.0)
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, l_i, m_new


@triton.jit
def _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, s_lo, mid_lo, mid_hi, s_hi_blk,
                offs_n, offs_d, offs_dv, dmask, dvmask, vis_lo, vis_n, seqlen_k, qk_scale, sc_in, sc_out,
                BLOCK_N: tl.constexpr, IS_MASKED: tl.constexpr, SOFTCAP: tl.constexpr, D_CHUNK: tl.constexpr,
                FMA_SCALE: tl.constexpr = False):
    """Key blocks [s_lo, s_hi_blk): the unmasked middle [mid_lo, mid_hi) first, software-
    pipelined (the kernel's num_stages), then the edge blocks [s_lo, mid_lo) and
    [mid_hi, s_hi_blk) masked, in one loop with num_stages=1.  Edge runs are a block or two:
    pipelining them too would multiply the shared memory, and a separate loop per edge kept
    more values live across loops than the registers hold (they spilled)."""
    for start_n in range(mid_lo, mid_hi, BLOCK_N):
        acc, l_i, m_i = _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
                                   offs_n, offs_d, offs_dv, dmask, dvmask, vis_lo, vis_n, seqlen_k,
                                   qk_scale, sc_in, sc_out, 0, SOFTCAP, D_CHUNK, FMA_SCALE)
    if IS_MASKED:
        gap = mid_hi - mid_lo
        for j in tl.range(s_lo, s_hi_blk - gap, BLOCK_N, num_stages=1):
            start_n = tl.where(j < mid_lo, j, j + gap)
            acc, l_i, m_i = _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
                                       offs_n, offs_d, offs_dv, dmask, dvmask, vis_lo, vis_n, seqlen_k,
                                       qk_scale, sc_in, sc_out, 2, SOFTCAP, D_CHUNK)
    else:
        # without a window only the ragged tail block is an edge
        for start_n in tl.range(mid_hi, s_hi_blk, BLOCK_N, num_stages=1):
            acc, l_i, m_i = _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
                                       offs_n, offs_d, offs_dv, dmask, dvmask, vis_lo, vis_n, seqlen_k,
                                       qk_scale, sc_in, sc_out, 1, SOFTCAP, D_CHUNK)
    return acc, l_i, m_i


@triton.jit
def _program_tile(CU_SEQLENS_Q, CU_SEQLENS_K, seqlen_q, seqlen_k, heads_kv, group, late,
                  BLOCK_M: tl.constexpr, IS_MASKED: tl.constexpr, IS_VARLEN: tl.constexpr):
    """(split, batch, kv head, q_start, sq, k_start, sk, rows, first row) of this program.
    ``late`` is a run-time 0 (see the epilogue)."""
    pid_m = tl.program_id(0) + late
    pid_bh = tl.program_id(1) + late
    split = tl.program_id(2)
    off_b = pid_bh // heads_kv
    off_hk = pid_bh % heads_kv
    if IS_VARLEN:
        q_start = tl.load(CU_SEQLENS_Q + off_b)
        sq = tl.load(CU_SEQLENS_Q + off_b + 1) - q_start
        k_start = tl.load(CU_SEQLENS_K + off_b)
        sk = tl.load(CU_SEQLENS_K + off_b + 1) - k_start
    else:
        q_start = late
        k_start = late
        sq = seqlen_q + late
        sk = seqlen_k + late
    rows = sq * group
    if IS_MASKED:
        # causal tiles late in the sequence carry the most work: start them first
        pid_m = tl.num_programs(0) - 1 - pid_m
    return split, off_b, off_hk, q_start, sq, k_start, sk, rows, pid_m * BLOCK_M


@triton.jit
def attn_fwd(
    Q, K, V, OUT, LSE, CU_SEQLENS_Q, CU_SEQLENS_K, WORKSPACE,
    stride_qb, stride_kb, stride_vb, stride_ob,             # int64 (0 for varlen)
    stride_qs, stride_qh, stride_ks, stride_kh, stride_vs, stride_vh, stride_os, stride_oh,
    stride_lb, stride_lh,            # LSE / scratch rows: b*stride_lb + h*stride_lh + token
    ws_split_rows,                   # rows of one split in the scratch (Hq * (B*Sq | total_q))
    seqlen_q, seqlen_k,              # max lengths for varlen
    heads_kv, group,                 # group = hq // hk
    head_dim, head_dim_v,
    window_left, window_right,
    store_lse, num_splits,
    softmax_scale, softcap,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr,
    IS_MASKED: tl.constexpr, IS_VARLEN: tl.constexpr, HAS_SOFTCAP: tl.constexpr,
    D_CHUNK: tl.constexpr = 0,       # > 0: q . k^T by head-dim chunks (see _scores_by_chunks)
    LATE_ROWS: tl.constexpr = False,  # plain variant too: store rows recomputed after the loops
    FOLD_COUNTERS: tl.constexpr = 0,  # > 0, num_splits > 1: the last split combines (_combine_if_last)
    FMA_SCALE: tl.constexpr = False,  # unmasked blocks: scale folded into the exponent (see _attn_step)
):
    split, off_b, off_hk, q_start, sq, k_start, sk, rows, start_m = _program_tile(
        CU_SEQLENS_Q, CU_SEQLENS_K, seqlen_q, seqlen_k, heads_kv, group, 0, BLOCK_M, IS_MASKED, IS_VARLEN)
    if start_m >= rows:
        return

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    dmask = offs_d < head_dim
    dvmask = offs_dv < head_dim_v
    row_ok = offs_m < rows
    qi = offs_m // group                  # query position in the sequence
    gi = offs_m % group                   # head within the kv head's group
    head = off_hk * group + gi

    q_base = Q + tl.cast(off_b, tl.int64) * stride_qb + tl.cast(q_start, tl.int64) * stride_qs \
        + tl.cast(off_hk * group, tl.int64) * stride_qh
    k_base = K + tl.cast(off_b, tl.int64) * stride_kb + tl.cast(k_start, tl.int64) * stride_ks + tl.cast(off_hk, tl.int64) * stride_kh
    v_base = V + tl.cast(off_b, tl.int64) * stride_vb + tl.cast(k_start, tl.int64) * stride_vs + tl.cast(off_hk, tl.int64) * stride_vh
    q_rows = tl.cast(qi, tl.int64) * stride_qs + tl.cast(gi, tl.int64) * stride_qh
    if D_CHUNK > 0:
        q = (q_base + q_rows, row_ok, head_dim)
    else:
        q = tl.load(q_base + q_rows[:, None] + offs_d[None, :], mask=row_ok[:, None] & dmask[None, :], other=0.0)

    # Key range this row tile can see, then this split's share of its blocks.
    off_diag = sk - sq
    q_lo = start_m // group
    q_hi = tl.minimum((start_m + BLOCK_M - 1) // group, sq - 1)
    zero = sk * 0                       # run-time zero: these are reassigned under run-time ifs
    kv_lo = zero
    kv_hi = sk
    mid_lo = zero
    mid_hi = (sk // BLOCK_N) * BLOCK_N
    wl_eff = zero + FAR
    wr_eff = zero + FAR
    if IS_MASKED:
        if window_left >= 0:
            wl_eff = window_left
            kv_lo = tl.maximum(q_lo + off_diag - window_left, 0)
            mid_lo = tl.cdiv(tl.maximum(q_hi + off_diag - window_left, 0), BLOCK_N) * BLOCK_N
        if window_right >= 0:
            wr_eff = window_right
            kv_hi = tl.minimum(tl.maximum(q_hi + off_diag + window_right + 1, 0), sk)
            mid_hi = tl.minimum(mid_hi, (tl.maximum(q_lo + off_diag + window_right + 1, 0) // BLOCK_N) * BLOCK_N)
    blk_lo = (kv_lo // BLOCK_N) * BLOCK_N
    n_blk = tl.maximum(tl.cdiv(kv_hi - blk_lo, BLOCK_N), 0)
    per_split = tl.cdiv(n_blk, num_splits)
    s_lo = blk_lo + split * per_split * BLOCK_N
    s_hi = tl.minimum(kv_hi, s_lo + per_split * BLOCK_N)
    s_hi_blk = s_lo + tl.maximum(tl.cdiv(s_hi - s_lo, BLOCK_N), 0) * BLOCK_N
    mid_lo = tl.minimum(tl.maximum(mid_lo, s_lo), s_hi_blk)
    mid_hi = tl.maximum(tl.minimum(mid_hi, s_hi_blk), mid_lo)

    # per row: the first visible key and how many (window and seqlen_k folded in)
    q_diag = qi + off_diag
    vis_lo = tl.maximum(q_diag - wl_eff, 0)
    vis_n = tl.maximum(tl.minimum(q_diag + wr_eff + 1, sk) - vis_lo, 0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)
    qk_scale = softmax_scale * LOG2E
    if HAS_SOFTCAP:
        if softcap > 0.0:
            sc_in = 2.0 * LOG2E * softmax_scale / softcap
            sc_out = softcap * LOG2E
            acc, l_i, m_i = _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs,
                                        s_lo, mid_lo, mid_hi, s_hi_blk, offs_n, offs_d, offs_dv, dmask, dvmask,
                                        vis_lo, vis_n, sk, qk_scale, sc_in, sc_out,
                                        BLOCK_N, IS_MASKED, True, D_CHUNK, FMA_SCALE)
        else:
            acc, l_i, m_i = _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs,
                                        s_lo, mid_lo, mid_hi, s_hi_blk, offs_n, offs_d, offs_dv, dmask, dvmask,
                                        vis_lo, vis_n, sk, qk_scale, 0.0, 0.0,
                                        BLOCK_N, IS_MASKED, False, D_CHUNK, FMA_SCALE)
    else:
        acc, l_i, m_i = _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs,
                                    s_lo, mid_lo, mid_hi, s_hi_blk, offs_n, offs_d, offs_dv, dmask, dvmask,
                                    vis_lo, vis_n, sk, qk_scale, 0.0, 0.0,
                                    BLOCK_N, IS_MASKED, False, D_CHUNK, FMA_SCALE)

    if IS_MASKED or LATE_ROWS:
        # The stores' row indices and the program's coordinates, recomputed from a value the
        # loops produced (l_i >= 0, so ``late`` is 0): computed before the loops, the compiler
        # keeps them live through the loops (up to 16 rows x 3 registers per thread, plus the
        # scalars), which spilled in the masked variants (two loops, each twice: with and
        # without softcap) and in some plain ones.  The build sets LATE_ROWS per arch and head dim: on the H100,
        # recomputing cost the plain d64 / d128 variants 1.5-2.5%.
        late = tl.max(tl.where(l_i < 0.0, 1, 0), 0)
        _, off_b, off_hk, q_start, _, _, _, rows, start_m = _program_tile(
            CU_SEQLENS_Q, CU_SEQLENS_K, seqlen_q, seqlen_k, heads_kv, group, late, BLOCK_M, IS_MASKED, IS_VARLEN)
        offs_m = start_m + tl.arange(0, BLOCK_M)
        row_ok = offs_m < rows
        qi = offs_m // group
        head = off_hk * group + offs_m % group
    empty = l_i == 0.0
    out = acc / tl.where(empty, 1.0, l_i)[:, None]
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(tl.where(empty, 1.0, l_i))) * LN2)
    row_lse = tl.cast(off_b, tl.int64) * stride_lb + tl.cast(head, tl.int64) * stride_lh + tl.cast(q_start + qi, tl.int64)
    o_rows = tl.cast(off_b, tl.int64) * stride_ob + tl.cast(q_start + qi, tl.int64) * stride_os \
        + tl.cast(head, tl.int64) * stride_oh
    if num_splits > 1:
        ws_row = tl.cast(split, tl.int64) * ws_split_rows + row_lse
        tl.store(WORKSPACE + ws_row[:, None] * head_dim_v + offs_dv[None, :], out,
                 mask=row_ok[:, None] & dvmask[None, :])
        ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
        tl.store(ws_lse + ws_row, lse, mask=row_ok)
        if FOLD_COUNTERS > 0:
            _combine_if_last(WORKSPACE, OUT, LSE, row_lse, o_rows, row_ok, offs_dv, dvmask,
                             ws_split_rows, head_dim_v, num_splits, store_lse, FOLD_COUNTERS)
    else:
        tl.store(OUT + o_rows[:, None] + offs_dv[None, :], out.to(OUT.dtype.element_ty),
                 mask=row_ok[:, None] & dvmask[None, :])
        if store_lse != 0:
            tl.store(LSE + row_lse, lse, mask=row_ok)


@triton.jit
def _combine_if_last(WORKSPACE, OUT, LSE, row_lse, o_rows, row_ok, offs_dv, dvmask,
                     ws_split_rows, head_dim_v, num_splits, store_lse, COUNTERS: tl.constexpr):
    """Split-K without a second launch: the last split of a row tile to finish folds every
    split's partials for its rows, as attn_combine does for all rows.

    Each row tile (program_id 0, 1) owns an int32 arrival counter ([grid 1][grid 0]) in the
    COUNTERS int32 words right before WORKSPACE: the runtime reserves them in front of every
    workspace, zero-filled, and nothing but this code writes there (partials of any problem
    start at WORKSPACE).  The last arriver puts its counter back to 0, so the next launch on
    the same workspace (or a graph replay) finds every counter at 0 again.  The planner splits
    only problems with at most COUNTERS row tiles this way.  Ordering: the barrier puts every
    thread's partial stores before the acq_rel atomic (release: they are visible to the whole
    GPU before the count moves; acquire: the last arriver sees every other split's stores);
    the partials are then read with .cg (L2, not this SM's possibly stale L1)."""
    ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
    counter = WORKSPACE.to(tl.pointer_type(tl.int32), bitcast=True) - COUNTERS \
        + (tl.program_id(1) * tl.num_programs(0) + tl.program_id(0))
    tl.debug_barrier()
    arrived = tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu")
    if arrived == num_splits - 1:
        tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")
        m = tl.full(row_lse.shape, float("-inf"), dtype=tl.float32)
        for s in range(0, num_splits):
            m = tl.maximum(m, tl.load(ws_lse + tl.cast(s, tl.int64) * ws_split_rows + row_lse, mask=row_ok,
                                      other=float("-inf"), cache_modifier=".cg"))
        m_s = tl.where(m == float("-inf"), 0.0, m)
        l = tl.zeros(row_lse.shape, dtype=tl.float32)
        acc = tl.zeros([row_lse.shape[0], offs_dv.shape[0]], dtype=tl.float32)
        for s in range(0, num_splits):
            row = tl.cast(s, tl.int64) * ws_split_rows + row_lse
            w = tl.math.exp2((tl.load(ws_lse + row, mask=row_ok, other=float("-inf"), cache_modifier=".cg") - m_s)
                             * LOG2E)
            o = tl.load(WORKSPACE + row[:, None] * head_dim_v + offs_dv[None, :],
                        mask=row_ok[:, None] & dvmask[None, :], other=0.0, cache_modifier=".cg")
            l += w
            acc += w[:, None] * o
        empty = l == 0.0
        tl.store(OUT + o_rows[:, None] + offs_dv[None, :], (acc / tl.where(empty, 1.0, l)[:, None]).to(OUT.dtype.element_ty),
                 mask=row_ok[:, None] & dvmask[None, :])
        if store_lse != 0:
            tl.store(LSE + row_lse, tl.where(empty, float("-inf"), m_s + tl.log(tl.where(empty, 1.0, l))), mask=row_ok)


@triton.jit
def attn_combine(
    WORKSPACE, OUT, LSE,
    stride_ob,                       # int64 (any value for varlen: there b is always 0)
    stride_os, stride_oh,
    seqlen_q, heads_q,               # Sq (total_q for varlen), Hq
    ws_split_rows,                   # B * Hq * Sq  (Hq * total_q for varlen)
    head_dim_v, num_splits, store_lse,
    BLOCK_R: tl.constexpr, BLOCK_DV: tl.constexpr,
):
    """out[r] = sum_s exp(lse_s[r] - lse[r]) * O_s[r]; r runs over the scratch rows
    ((b * Hq + h) * Sq + i); grid (cdiv(rows, BLOCK_R), cdiv(dv, BLOCK_DV))."""
    pid_r = tl.program_id(0)
    pid_d = tl.program_id(1)
    r = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_d = pid_d * BLOCK_DV + tl.arange(0, BLOCK_DV)
    r_ok = r < ws_split_rows
    d_ok = offs_d < head_dim_v
    r64 = tl.cast(r, tl.int64)
    ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
    m = tl.full([BLOCK_R], float("-inf"), dtype=tl.float32)
    for s in range(0, num_splits):
        m = tl.maximum(m, tl.load(ws_lse + tl.cast(s, tl.int64) * ws_split_rows + r64, mask=r_ok, other=float("-inf")))
    m_s = tl.where(m == float("-inf"), 0.0, m)
    l = tl.zeros([BLOCK_R], dtype=tl.float32)
    acc = tl.zeros([BLOCK_R, BLOCK_DV], dtype=tl.float32)
    for s in range(0, num_splits):
        row = tl.cast(s, tl.int64) * ws_split_rows + r64
        w = tl.math.exp2((tl.load(ws_lse + row, mask=r_ok, other=float("-inf")) - m_s) * LOG2E)
        o = tl.load(WORKSPACE + row[:, None] * head_dim_v + offs_d[None, :], mask=r_ok[:, None] & d_ok[None, :], other=0.0)
        l += w
        acc += w[:, None] * o
    empty = l == 0.0
    out = acc / tl.where(empty, 1.0, l)[:, None]
    b = r // (heads_q * seqlen_q)
    h = (r // seqlen_q) % heads_q
    i = r % seqlen_q
    o_rows = tl.cast(b, tl.int64) * stride_ob + tl.cast(i, tl.int64) * stride_os + tl.cast(h, tl.int64) * stride_oh
    tl.store(OUT + o_rows[:, None] + offs_d[None, :], out.to(OUT.dtype.element_ty), mask=r_ok[:, None] & d_ok[None, :])
    if store_lse != 0:
        if pid_d == 0:
            lse = tl.where(empty, float("-inf"), m_s + tl.log(tl.where(empty, 1.0, l)))
            tl.store(LSE + r64, lse, mask=r_ok)
