"""Serving attention (Triton): KV caches (contiguous or paged), per-sequence cache lengths read
on the GPU, attention sinks and ALiBi.  One source, AOT-compiled for sm_90a, sm_80, gfx942,
gfx950 and gfx1100 by scripts/build/serve.py; the argument order is declared once, for the
Python side, in serve_args.h.

attn_serve: grid (cdiv(sq * group, BLOCK_M), batch * heads_kv, num_splits), one program per
row tile of one kv head of one sequence (packed GQA: row = qpos * group + g, as attn_fwd).
Where the keys of sequence b live (KV_MODE):
  0  dense / contiguous cache: K + b * stride_kb + j * stride_ks; the sequence length is
     seqlen_k, or cache_seqlens[b] + seqlen_k_add when use_seqlens (a KV cache whose lengths
     stay on the GPU; seqlen_k_add = tokens appended in the same call);
  1  paged: key j of sequence b is row j % page_size of page block_table[b, j // page_size]:
     K + page * stride_kb + (j % page_size) * stride_ks; lengths as in mode 0;
  2  varlen: keys cu_seqlens_k[b] .. cu_seqlens_k[b + 1], queries cu_seqlens_q likewise.
Queries are the last sq positions of their sequence (bottom-right aligned masks, as attn_fwd):
query i sees key j iff i + sk - sq - window_left <= j <= i + sk - sq + window_right.
Scores: scale * q.k, then softcap * tanh(. / softcap) when softcap > 0, then the ALiBi bias
-slope[b, h] * |i + sk - sq - j| when has_alibi (FlashAttention's order and semantics).
Sinks (has_sinks): one logit per query head (natural-log units, like the scores) that joins
every row's softmax denominator and carries no value (gpt-oss): with a sink s,
out = sum_j exp(x_j - m) v_j / (sum_j exp(x_j - m) + exp(s - m)), lse = log(sum exp(x_j) + exp(s)).
A row that sees no key gives out 0 and lse = s (-inf without a sink).
Split-K (num_splits > 1): as attn_fwd, split g takes a contiguous share of the key blocks its
row tile sees (computed from the sequence's own length), writes fp32 partials to WORKSPACE, and
the last split of the row tile to arrive folds them, adding the sink once (_fold_splits; the
decode objects that set FOLD_CHUNK fold in one online pass, _fold_chunked).

kv_append: copies k_new / v_new (b, n_new, hk, d) into the caches at positions
cache_seqlens[b] .. + n_new (paged through the block table), before attn_serve reads them; the
elements are moved as 16-bit integers, so one object serves bf16 and fp16.
"""

import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
LN2 = tl.constexpr(0.6931471805599453)
FAR = tl.constexpr(1 << 30)


@triton.jit
def _key_rows(start_n, kpos, kin, b, k_start, BLOCK_TABLE, stride_bt, page_size, KV_MODE: tl.constexpr,
              MASKED: tl.constexpr, BLOCK_ADDR: tl.constexpr):
    """Where keys ``kpos = start_n + offs_n`` of sequence ``b`` live, as (base, row): key kpos[i]
    is at element base[i] * stride_kb + row[i] * stride_ks of K (likewise V).  Paged: base is the
    page (one block-table read serving both caches), row the row in it.  Contiguous / varlen:
    base is b and row k_start + kpos, per key (int64) -- or with BLOCK_ADDR, base b and row
    k_start + start_n as scalars and offs_n for the rows (int32, loop invariant; the caller
    multiplies them by the strides apart): attn_fwd's address arithmetic."""
    if KV_MODE == 1 and BLOCK_ADDR:
        # unsigned division (keys and pages are never negative): no sign fix-ups per key
        slot = tl.cast(kpos, tl.uint32) // tl.cast(page_size, tl.uint32)
        in_page = kpos - tl.cast(slot, tl.int32) * page_size
        if MASKED:
            page = tl.load(BLOCK_TABLE + tl.cast(b, tl.int64) * stride_bt + tl.cast(slot, tl.int32), mask=kin, other=0)
        else:
            page = tl.load(BLOCK_TABLE + tl.cast(b, tl.int64) * stride_bt + tl.cast(slot, tl.int32))
        base = tl.cast(page, tl.int64)
        row = tl.cast(in_page, tl.int64)
    elif KV_MODE == 1:
        page = tl.load(BLOCK_TABLE + tl.cast(b, tl.int64) * stride_bt + kpos // page_size, mask=kin, other=0)
        base = tl.cast(page, tl.int64)
        row = tl.cast(kpos % page_size, tl.int64)
    elif BLOCK_ADDR:
        base = tl.cast(b, tl.int64)
        row = tl.cast(k_start + start_n, tl.int64)
    else:
        base = tl.cast(b, tl.int64)
        row = tl.cast(k_start + kpos, tl.int64)
    return base, row


@triton.jit
def attn_serve(
    Q, K, V, OUT, LSE, CACHE_SEQLENS, BLOCK_TABLE, CU_SEQLENS_Q, CU_SEQLENS_K, SINKS, ALIBI, WORKSPACE,
    stride_qb, stride_kb, stride_vb, stride_ob,     # int64; paged: kb / vb are page strides
    stride_qs, stride_qh, stride_ks, stride_kh, stride_vs, stride_vh, stride_os, stride_oh,
    stride_lb, stride_lh,            # LSE / scratch rows: b * stride_lb + h * stride_lh + token
    stride_bt,                       # block table row stride (paged)
    stride_ab,                       # ALiBi slopes batch stride (0: one slope per head)
    ws_split_rows,
    seqlen_q, seqlen_k,              # dense: the lengths; varlen: maxima; caches: sq and capacity
    seqlen_k_add,                    # tokens appended this call (added to cache_seqlens[b])
    use_seqlens,                     # 1: sequence lengths from CACHE_SEQLENS (+ seqlen_k_add)
    heads_kv, group, head_dim, head_dim_v,
    window_left, window_right, page_size,
    store_lse, num_splits, has_sinks, has_alibi,
    softmax_scale, softcap,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr,
    KV_MODE: tl.constexpr, FOLD_COUNTERS: tl.constexpr,
    FOLD_SPLITS: tl.constexpr = 1,   # splits' lse the fold loads at once (a power of two)
    FOLD_UNROLL: tl.constexpr = 1,   # the fold's loop over splits' partials unrolled this many times
    FOLD_CHUNK: tl.constexpr = 0,    # > 0: the online fold, FOLD_CHUNK splits per load (_fold_chunked)
    D_CHUNK: tl.constexpr = 0,       # > 0: q . k^T by head-dim chunks, Q re-read per chunk (RDNA3: see attn_fwd)
    DECODE_LOOP: tl.constexpr = False,  # the decode objects' loop: see the loop and _key_rows
    SCORE_MODS: tl.constexpr = True,    # False: softcap and ALiBi compiled out (the planner sends none)
):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    split = tl.program_id(2)
    b = pid_bh // heads_kv
    hk = pid_bh % heads_kv
    if KV_MODE == 2:
        q_start = tl.load(CU_SEQLENS_Q + b)
        sq = tl.load(CU_SEQLENS_Q + b + 1) - q_start
        k_start = tl.load(CU_SEQLENS_K + b)
        sk = tl.load(CU_SEQLENS_K + b + 1) - k_start
    else:
        q_start = 0
        k_start = 0
        sq = seqlen_q
        sk = seqlen_k
        if use_seqlens != 0:
            sk = tl.load(CACHE_SEQLENS + b) + seqlen_k_add
    rows = sq * group
    start_m = pid_m * BLOCK_M
    if start_m >= rows:
        return

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    dmask = offs_d < head_dim
    dvmask = offs_dv < head_dim_v
    row_ok = offs_m < rows
    qi = offs_m // group
    head = hk * group + offs_m % group
    q_rows = Q + tl.cast(b, tl.int64) * stride_qb + tl.cast(q_start + qi, tl.int64) * stride_qs \
        + tl.cast(head, tl.int64) * stride_qh
    q = 0
    if D_CHUNK == 0:
        q = tl.load(q_rows[:, None] + offs_d[None, :], mask=row_ok[:, None] & dmask[None, :], other=0.0)
    k_head = K + tl.cast(hk, tl.int64) * stride_kh
    v_head = V + tl.cast(hk, tl.int64) * stride_vh

    # keys this row tile sees (window and causal folded into window_*), this split's share
    off_diag = sk - sq
    q_lo = start_m // group
    q_hi = tl.minimum((start_m + BLOCK_M - 1) // group, sq - 1)
    wl = tl.where(window_left >= 0, window_left, FAR)
    wr = tl.where(window_right >= 0, window_right, FAR)
    kv_lo = tl.maximum(q_lo + off_diag - wl, 0)
    kv_hi = tl.minimum(tl.maximum(q_hi + off_diag + wr + 1, 0), sk)
    blk_lo = (kv_lo // BLOCK_N) * BLOCK_N
    n_blk = tl.maximum(tl.cdiv(kv_hi - blk_lo, BLOCK_N), 0)
    per_split = tl.cdiv(n_blk, num_splits)
    s_lo = blk_lo + split * per_split * BLOCK_N
    s_hi = tl.minimum(kv_hi, s_lo + per_split * BLOCK_N)

    q_diag = qi + off_diag
    vis_lo = tl.maximum(q_diag - wl, 0)
    vis_n = tl.maximum(tl.minimum(q_diag + wr + 1, sk) - vis_lo, 0)
    qk_scale = softmax_scale * LOG2E
    slope = tl.zeros([BLOCK_M], dtype=tl.float32)
    if SCORE_MODS and has_alibi != 0:
        slope = tl.load(ALIBI + tl.cast(b, tl.int64) * stride_ab + head, mask=row_ok, other=0.0) * LOG2E
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    if has_sinks != 0:
        if num_splits == 1:             # with splits the fold adds the sink, once
            m_i = tl.load(SINKS + head, mask=row_ok, other=0.0) * LOG2E
            l_i = tl.full([BLOCK_M], 1.0, dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)
    if DECODE_LOOP:
        # the key blocks every row of the tile sees in full, inside this split's range, run
        # first without masks (pipelined); the edges [s_lo, mid_lo) and [mid_hi, s_hi) after
        # them, masked, in one loop of one stage (attn_fwd's _attn_range).  With the key
        # addressing of _key_rows (BLOCK_ADDR) the middle loop is attn_fwd's decode loop
        # (notes/serving.md, 2026-11-26, branch issue13d).
        s_hi_blk = s_lo + tl.maximum(tl.cdiv(s_hi - s_lo, BLOCK_N), 0) * BLOCK_N
        mid_lo = tl.minimum(tl.maximum(tl.cdiv(tl.maximum(q_hi + off_diag - wl, 0), BLOCK_N) * BLOCK_N, s_lo),
                            s_hi_blk)
        mid_hi = tl.minimum(tl.maximum(tl.minimum(q_lo + off_diag + wr + 1, sk), 0) // BLOCK_N,
                            tl.maximum(s_hi, 0) // BLOCK_N) * BLOCK_N
        mid_hi = tl.maximum(mid_hi, mid_lo)
        for start_n in range(mid_lo, mid_hi, BLOCK_N):
            acc, l_i, m_i = _serve_step(acc, l_i, m_i, q, q_rows, row_ok, k_head, v_head, start_n, offs_n, offs_d,
                                        offs_dv, dmask, dvmask, s_hi, b, k_start, BLOCK_TABLE, stride_bt, page_size,
                                        stride_kb, stride_ks, stride_vb, stride_vs, head_dim, vis_lo, vis_n, q_diag,
                                        slope, qk_scale, softmax_scale, softcap, has_alibi, KV_MODE, D_CHUNK, False, True,
                                        SCORE_MODS)
        gap = mid_hi - mid_lo
        for j in tl.range(s_lo, s_hi_blk - gap, BLOCK_N, num_stages=1):
            start_n = tl.where(j < mid_lo, j, j + gap)
            acc, l_i, m_i = _serve_step(acc, l_i, m_i, q, q_rows, row_ok, k_head, v_head, start_n, offs_n, offs_d,
                                        offs_dv, dmask, dvmask, s_hi, b, k_start, BLOCK_TABLE, stride_bt, page_size,
                                        stride_kb, stride_ks, stride_vb, stride_vs, head_dim, vis_lo, vis_n, q_diag,
                                        slope, qk_scale, softmax_scale, softcap, has_alibi, KV_MODE, D_CHUNK, True, True,
                                        SCORE_MODS)
    else:
        for start_n in range(s_lo, s_hi, BLOCK_N):
            acc, l_i, m_i = _serve_step(acc, l_i, m_i, q, q_rows, row_ok, k_head, v_head, start_n, offs_n, offs_d,
                                        offs_dv, dmask, dvmask, s_hi, b, k_start, BLOCK_TABLE, stride_bt, page_size,
                                        stride_kb, stride_ks, stride_vb, stride_vs, head_dim, vis_lo, vis_n, q_diag,
                                        slope, qk_scale, softmax_scale, softcap, has_alibi, KV_MODE, D_CHUNK, True, False,
                                        SCORE_MODS)

    empty = l_i == 0.0
    out = acc / tl.where(empty, 1.0, l_i)[:, None]
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(tl.where(empty, 1.0, l_i))) * LN2)
    row_lse = tl.cast(b, tl.int64) * stride_lb + tl.cast(head, tl.int64) * stride_lh + tl.cast(q_start + qi, tl.int64)
    o_rows = tl.cast(b, tl.int64) * stride_ob + tl.cast(q_start + qi, tl.int64) * stride_os \
        + tl.cast(head, tl.int64) * stride_oh
    if num_splits > 1:
        ws_row = tl.cast(split, tl.int64) * ws_split_rows + row_lse
        tl.store(WORKSPACE + ws_row[:, None] * head_dim_v + offs_dv[None, :], out, mask=row_ok[:, None] & dvmask[None, :])
        ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
        tl.store(ws_lse + ws_row, lse, mask=row_ok)
        _fold_splits(WORKSPACE, OUT, LSE, SINKS, head, row_lse, o_rows, row_ok, offs_dv, dvmask, ws_split_rows,
                     head_dim_v, num_splits, store_lse, has_sinks, FOLD_COUNTERS, FOLD_SPLITS, FOLD_UNROLL, FOLD_CHUNK)
    else:
        tl.store(OUT + o_rows[:, None] + offs_dv[None, :], out.to(OUT.dtype.element_ty),
                 mask=row_ok[:, None] & dvmask[None, :])
        if store_lse != 0:
            tl.store(LSE + row_lse, lse, mask=row_ok)


@triton.jit
def _serve_step(acc, l_i, m_i, q, q_rows, row_ok, k_head, v_head, start_n, offs_n, offs_d, offs_dv, dmask, dvmask,
                s_hi, b, k_start, BLOCK_TABLE, stride_bt, page_size, stride_kb, stride_ks, stride_vb, stride_vs,
                head_dim, vis_lo, vis_n, q_diag, slope, qk_scale, softmax_scale, softcap, has_alibi,
                KV_MODE: tl.constexpr, D_CHUNK: tl.constexpr, MASKED: tl.constexpr, BLOCK_ADDR: tl.constexpr,
                SCORE_MODS: tl.constexpr):
    """One key block [start_n, start_n + BLOCK_N) of the online softmax (scores in the log2
    domain).  MASKED: keys at or past s_hi and keys outside a row's [vis_lo, vis_lo + vis_n) are
    dropped; not MASKED: a block every row sees in full (attn_serve's DECODE_LOOP), no mask
    arithmetic.  Softcap and ALiBi apply in both, where SCORE_MODS compiles them in (their
    run-time branches stay out of the plain decode objects' loop)."""
    kpos = start_n + offs_n
    if MASKED:
        kin = kpos < s_hi
    else:
        kin = offs_n >= 0
    kv_base, kv_row = _key_rows(start_n, kpos, kin, b, k_start, BLOCK_TABLE, stride_bt, page_size, KV_MODE, MASKED,
                                BLOCK_ADDR)
    blk_addr: tl.constexpr = BLOCK_ADDR and KV_MODE != 1
    if blk_addr:
        # one scalar offset for the block, the rows' offsets loop invariant (attn_fwd's form)
        k_blk = k_head + (kv_base * stride_kb + kv_row * stride_ks)
        krow = offs_n * stride_ks
    else:
        krow = kv_base * stride_kb + kv_row * stride_ks
    if D_CHUNK > 0:
        qk = tl.zeros([row_ok.shape[0], offs_n.shape[0]], dtype=tl.float32)
        offs_c = tl.arange(0, D_CHUNK)
        for c in range(0, head_dim, D_CHUNK):
            cm = (c + offs_c) < head_dim
            q_c = tl.load(q_rows[:, None] + (c + offs_c)[None, :], mask=row_ok[:, None] & cm[None, :], other=0.0)
            if blk_addr:
                k_c = tl.load(k_blk + (krow[:, None] + (c + offs_c)[None, :]), mask=kin[:, None] & cm[None, :],
                              other=0.0)
            else:
                k_c = tl.load(k_head + krow[:, None] + (c + offs_c)[None, :], mask=kin[:, None] & cm[None, :],
                              other=0.0)
            qk = tl.dot(q_c, tl.trans(k_c), qk)
    else:
        if blk_addr:
            k_ptrs = k_blk + (krow[:, None] + offs_d[None, :])
        else:
            k_ptrs = k_head + krow[:, None] + offs_d[None, :]
        if MASKED:
            k = tl.load(k_ptrs, mask=kin[:, None] & dmask[None, :], other=0.0)
        else:
            k = tl.load(k_ptrs, mask=dmask[None, :], other=0.0)
        qk = tl.dot(q, tl.trans(k))
    if SCORE_MODS:
        if softcap > 0.0:
            qk = softcap * LOG2E * (1.0 - 2.0 / (1.0 + tl.math.exp2(qk * (2.0 * LOG2E * softmax_scale / softcap))))
        else:
            qk = qk * qk_scale
        if has_alibi != 0:
            dist = tl.abs(q_diag[:, None] - kpos[None, :]).to(tl.float32)
            qk = qk - slope[:, None] * dist
    else:
        qk = qk * qk_scale
    if MASKED:
        vis = (kpos[None, :] - vis_lo[:, None]).to(tl.uint32, bitcast=True) < vis_n[:, None].to(tl.uint32, bitcast=True)
        qk = tl.where(vis, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        m_s = tl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        m_s = m_new
    p = tl.math.exp2(qk - m_s[:, None])
    alpha = tl.math.exp2(m_i - m_s)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    if blk_addr:
        v_ptrs = v_head + (kv_base * stride_vb + kv_row * stride_vs) + (offs_n[:, None] * stride_vs + offs_dv[None, :])
    else:
        vrow = kv_base * stride_vb + kv_row * stride_vs
        v_ptrs = v_head + vrow[:, None] + offs_dv[None, :]
    if MASKED:
        v = tl.load(v_ptrs, mask=kin[:, None] & dvmask[None, :], other=0.0)
    else:
        v = tl.load(v_ptrs, mask=dvmask[None, :], other=0.0)
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, l_i, m_new


@triton.jit
def _fold_splits(WORKSPACE, OUT, LSE, SINKS, head, row_lse, o_rows, row_ok, offs_dv, dvmask, ws_split_rows,
                 head_dim_v, num_splits, store_lse, has_sinks, COUNTERS: tl.constexpr, FOLD_SPLITS: tl.constexpr,
                 FOLD_UNROLL: tl.constexpr, FOLD_CHUNK: tl.constexpr = 0):
    """The last split of a row tile to finish folds every split's partials (and the sink) for
    its rows: arrival counters and ordering as attn_fwd's _combine_if_last (an int32 counter per
    row tile in the COUNTERS words before WORKSPACE, acq_rel, reset to 0 by the last arriver).
    The fold is the launch's serial tail, so its loads go out together where registers allow:
    the splits' lse FOLD_SPLITS at a time (one load each), then the partials' loop unrolled
    FOLD_UNROLL times (the unrolled loads are independent; only the sums wait on them).  With
    FOLD_CHUNK > 0 the fold is _fold_chunked's one pass instead (FOLD_SPLITS / FOLD_UNROLL unused)."""
    ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
    counter = WORKSPACE.to(tl.pointer_type(tl.int32), bitcast=True) - COUNTERS \
        + (tl.program_id(1) * tl.num_programs(0) + tl.program_id(0))
    tl.debug_barrier()
    arrived = tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu")
    if FOLD_CHUNK > 0:
        if arrived == num_splits - 1:
            tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")
            if FOLD_CHUNK > 2 and num_splits <= 2:
                # two splits (batch 8 decode): a chunk of two, no masked-off loads or sums
                _fold_chunked(WORKSPACE, ws_lse, OUT, LSE, SINKS, head, row_lse, o_rows, row_ok, offs_dv, dvmask,
                              ws_split_rows, head_dim_v, num_splits, store_lse, has_sinks, 2)
            else:
                _fold_chunked(WORKSPACE, ws_lse, OUT, LSE, SINKS, head, row_lse, o_rows, row_ok, offs_dv, dvmask,
                              ws_split_rows, head_dim_v, num_splits, store_lse, has_sinks, FOLD_CHUNK)
    elif arrived == num_splits - 1:
        tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")
        sink = tl.full(row_lse.shape, float("-inf"), dtype=tl.float32)
        if has_sinks != 0:
            sink = tl.load(SINKS + head, mask=row_ok, other=float("-inf"))
        m = sink
        offs_s = tl.arange(0, FOLD_SPLITS)
        for s0 in range(0, num_splits, FOLD_SPLITS):     # every split's lse, FOLD_SPLITS per load
            ok = ((s0 + offs_s) < num_splits)[:, None] & row_ok[None, :]
            rows = tl.cast(s0 + offs_s, tl.int64)[:, None] * ws_split_rows + row_lse[None, :]
            lse = tl.load(ws_lse + rows, mask=ok, other=float("-inf"), cache_modifier=".cg")
            m = tl.maximum(m, tl.max(lse, 0))
        m_s = tl.where(m == float("-inf"), 0.0, m)
        l = tl.math.exp2((sink - m_s) * LOG2E)
        acc = tl.zeros([row_lse.shape[0], offs_dv.shape[0]], dtype=tl.float32)
        for s in tl.range(0, num_splits, loop_unroll_factor=FOLD_UNROLL):
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
def _fold_chunked(WORKSPACE, ws_lse, OUT, LSE, SINKS, head, row_lse, o_rows, row_ok, offs_dv, dvmask, ws_split_rows,
                  head_dim_v, num_splits, store_lse, has_sinks, CHUNK: tl.constexpr):
    """_fold_splits' fold as an online softmax over the splits, CHUNK splits per step, the step
    unrolled: the CHUNK splits' lse and partial loads depend on nothing in the step, so they go
    out together (one round trip to L2 per step) and only the running max / sum wait on them.
    The fold then costs cdiv(num_splits, CHUNK) dependent loads where the two-pass fold (the max
    of every lse first, then the partials) costs at least two.  The sink starts the running max
    and sum; every split's data stays in its own rows (no cross-thread reduction)."""
    m = tl.full(row_lse.shape, float("-inf"), dtype=tl.float32)
    l = tl.zeros(row_lse.shape, dtype=tl.float32)
    if has_sinks != 0:
        m = tl.load(SINKS + head, mask=row_ok, other=float("-inf"))
        l = tl.where(m == float("-inf"), 0.0, 1.0)
    acc = tl.zeros([row_lse.shape[0], offs_dv.shape[0]], dtype=tl.float32)
    for s0 in range(0, num_splits, CHUNK):
        for i in tl.static_range(CHUNK):
            ok = row_ok & (s0 + i < num_splits)
            row = tl.cast(s0 + i, tl.int64) * ws_split_rows + row_lse
            lse = tl.load(ws_lse + row, mask=ok, other=float("-inf"), cache_modifier=".cg")
            o = tl.load(WORKSPACE + row[:, None] * head_dim_v + offs_dv[None, :], mask=ok[:, None] & dvmask[None, :],
                        other=0.0, cache_modifier=".cg")
            m_new = tl.maximum(m, lse)
            m_s = tl.where(m_new == float("-inf"), 0.0, m_new)
            alpha = tl.math.exp2((m - m_s) * LOG2E)
            w = tl.math.exp2((lse - m_s) * LOG2E)
            l = l * alpha + w
            acc = acc * alpha[:, None] + w[:, None] * o
            m = m_new
    empty = l == 0.0
    m_s = tl.where(m == float("-inf"), 0.0, m)
    out = acc / tl.where(empty, 1.0, l)[:, None]
    tl.store(OUT + o_rows[:, None] + offs_dv[None, :], out.to(OUT.dtype.element_ty), mask=row_ok[:, None] & dvmask[None, :])
    if store_lse != 0:
        tl.store(LSE + row_lse, tl.where(empty, float("-inf"), m_s + tl.log(tl.where(empty, 1.0, l))), mask=row_ok)


@triton.jit
def kv_append(
    K_NEW, V_NEW, K_CACHE, V_CACHE, CACHE_SEQLENS, BLOCK_TABLE,
    stride_nb, stride_ns, stride_nh, stride_wb, stride_ws, stride_wh,     # k_new, v_new (elements)
    stride_kb, stride_ks, stride_kh, stride_vb, stride_vs, stride_vh,     # caches (paged: kb / vb per page)
    stride_bt, n_new, heads_kv, head_dim, head_dim_v, page_size,
    BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr, PAGED: tl.constexpr,
):
    """Cache rows cache_seqlens[b] + t (t < n_new) of kv head hk = the new tokens t; grid
    (cdiv(n_new, BLOCK_T), batch * heads_kv)."""
    pid_t = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // heads_kv
    hk = pid_bh % heads_kv
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    t_ok = t < n_new
    pos = tl.load(CACHE_SEQLENS + b) + t
    if PAGED:
        page = tl.load(BLOCK_TABLE + tl.cast(b, tl.int64) * stride_bt + pos // page_size, mask=t_ok, other=0)
        krow = tl.cast(page, tl.int64) * stride_kb + tl.cast(pos % page_size, tl.int64) * stride_ks
        vrow = tl.cast(page, tl.int64) * stride_vb + tl.cast(pos % page_size, tl.int64) * stride_vs
    else:
        krow = tl.cast(b, tl.int64) * stride_kb + tl.cast(pos, tl.int64) * stride_ks
        vrow = tl.cast(b, tl.int64) * stride_vb + tl.cast(pos, tl.int64) * stride_vs
    offs_d = tl.arange(0, BLOCK_D)
    src_k = K_NEW + tl.cast(b, tl.int64) * stride_nb + tl.cast(t, tl.int64)[:, None] * stride_ns \
        + tl.cast(hk, tl.int64) * stride_nh + offs_d[None, :]
    src_v = V_NEW + tl.cast(b, tl.int64) * stride_wb + tl.cast(t, tl.int64)[:, None] * stride_ws \
        + tl.cast(hk, tl.int64) * stride_wh + offs_d[None, :]
    mk = t_ok[:, None] & (offs_d < head_dim)[None, :]
    mv = t_ok[:, None] & (offs_d < head_dim_v)[None, :]
    tl.store(K_CACHE + krow[:, None] + tl.cast(hk, tl.int64) * stride_kh + offs_d[None, :], tl.load(src_k, mask=mk), mask=mk)
    tl.store(V_CACHE + vrow[:, None] + tl.cast(hk, tl.int64) * stride_vh + offs_d[None, :], tl.load(src_v, mask=mv), mask=mv)
