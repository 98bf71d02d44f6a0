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
attn_combine folds them.  The argument order here is declared once, for the Python side, in
portable_args.h; the build checks they agree.
"""

import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
LN2 = tl.constexpr(0.6931471805599453)
FAR = tl.constexpr(1 << 30)   # "unbounded" window side: no key index comes near it


@triton.jit
def _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
               offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
               qk_scale, sc_in, sc_out, MASK: tl.constexpr, SOFTCAP: tl.constexpr):
    """One key block of the online softmax.

    MASK 0: a block wholly inside every row's window and inside seqlen_k (no mask arithmetic);
    1: bound the keys by seqlen_k only; 2: bound + window.  Scores are kept in the log2
    domain (qk_scale and sc_out carry log2(e)).
    """
    kpos = start_n + offs_n
    k_ptrs = k_base + tl.cast(start_n, tl.int64) * stride_ks + (offs_n[:, None] * stride_ks + offs_d[None, :])
    v_ptrs = v_base + tl.cast(start_n, tl.int64) * stride_vs + (offs_n[:, None] * stride_vs + offs_dv[None, :])
    if MASK > 0:
        kin = kpos < seqlen_k
        k = tl.load(k_ptrs, mask=kin[:, None] & dmask[None, :], other=0.0)
    else:
        k = tl.load(k_ptrs, mask=dmask[None, :], other=0.0)
    qk = tl.dot(q, tl.trans(k))
    if SOFTCAP:
        # tanh(y) = 1 - 2 / (1 + e^(2y)); sc_in = 2 * log2(e) * scale / softcap
        qk = sc_out * (1.0 - 2.0 / (1.0 + tl.math.exp2(qk * sc_in)))
    else:
        qk = qk * qk_scale
    if MASK == 1:
        qk = tl.where(kin[None, :], qk, float("-inf"))
    if MASK == 2:
        vis = kin[None, :] & (kpos[None, :] <= q_diag[:, None] + wr_eff) & (kpos[None, :] >= q_diag[:, None] - wl_eff)
        qk = tl.where(vis, qk, float("-inf"))
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
def _attn_blocks(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, lo, hi,
                 offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                 qk_scale, sc_in, sc_out,
                 BLOCK_N: tl.constexpr, MASK: tl.constexpr, SOFTCAP: tl.constexpr):
    """Key blocks [lo, hi) (multiples of BLOCK_N).  Only the unmasked middle is software-
    pipelined (the kernel's num_stages): edge runs are a block or two, and pipelining them too
    would multiply the shared memory."""
    if MASK > 0:
        for start_n in tl.range(lo, hi, BLOCK_N, num_stages=1):
            acc, l_i, m_i = _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
                                       offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                                       qk_scale, sc_in, sc_out, MASK, SOFTCAP)
    else:
        for start_n in range(lo, hi, BLOCK_N):
            acc, l_i, m_i = _attn_step(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, start_n,
                                       offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                                       qk_scale, sc_in, sc_out, MASK, SOFTCAP)
    return acc, l_i, m_i


@triton.jit
def _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, s_lo, mid_lo, mid_hi, s_hi_blk,
                offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                qk_scale, sc_in, sc_out,
                BLOCK_N: tl.constexpr, IS_MASKED: tl.constexpr, SOFTCAP: tl.constexpr):
    """Masked edge blocks [s_lo, mid_lo) and [mid_hi, s_hi_blk), unmasked middle [mid_lo, mid_hi)."""
    EDGE: tl.constexpr = 2 if IS_MASKED else 1
    if IS_MASKED:
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, s_lo, mid_lo,
                                     offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                                     qk_scale, sc_in, sc_out, BLOCK_N, EDGE, SOFTCAP)
    acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, mid_lo, mid_hi,
                                 offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                                 qk_scale, sc_in, sc_out, BLOCK_N, 0, SOFTCAP)
    acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs, mid_hi, s_hi_blk,
                                 offs_n, offs_d, offs_dv, dmask, dvmask, q_diag, seqlen_k, wl_eff, wr_eff,
                                 qk_scale, sc_in, sc_out, BLOCK_N, EDGE, SOFTCAP)
    return acc, l_i, m_i


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
):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    split = tl.program_id(2)
    off_b = pid_bh // heads_kv
    off_hk = pid_bh % heads_kv
    if IS_VARLEN:
        q_start = tl.load(CU_SEQLENS_Q + off_b)
        sq = tl.load(CU_SEQLENS_Q + off_b + 1) - q_start
        k_start = tl.load(CU_SEQLENS_K + off_b)
        sk = tl.load(CU_SEQLENS_K + off_b + 1) - k_start
    else:
        q_start = 0
        k_start = 0
        sq = seqlen_q
        sk = seqlen_k
    rows = sq * group
    if IS_MASKED:
        # causal tiles late in the sequence carry the most work: start them first
        pid_m = tl.num_programs(0) - 1 - pid_m
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
    qi = offs_m // group                  # query position in the sequence
    gi = offs_m % group                   # head within the kv head's group
    head = off_hk * group + gi

    q_base = Q + tl.cast(off_b, tl.int64) * stride_qb + tl.cast(q_start, tl.int64) * stride_qs \
        + tl.cast(off_hk * group, tl.int64) * stride_qh
    k_base = K + tl.cast(off_b, tl.int64) * stride_kb + tl.cast(k_start, tl.int64) * stride_ks + tl.cast(off_hk, tl.int64) * stride_kh
    v_base = V + tl.cast(off_b, tl.int64) * stride_vb + tl.cast(k_start, tl.int64) * stride_vs + tl.cast(off_hk, tl.int64) * stride_vh
    q_rows = tl.cast(qi, tl.int64) * stride_qs + tl.cast(gi, tl.int64) * stride_qh
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

    q_diag = qi + off_diag
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
                                        q_diag, sk, wl_eff, wr_eff, qk_scale, sc_in, sc_out,
                                        BLOCK_N, IS_MASKED, True)
        else:
            acc, l_i, m_i = _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs,
                                        s_lo, mid_lo, mid_hi, s_hi_blk, offs_n, offs_d, offs_dv, dmask, dvmask,
                                        q_diag, sk, wl_eff, wr_eff, qk_scale, 0.0, 0.0,
                                        BLOCK_N, IS_MASKED, False)
    else:
        acc, l_i, m_i = _attn_range(acc, l_i, m_i, q, k_base, v_base, stride_ks, stride_vs,
                                    s_lo, mid_lo, mid_hi, s_hi_blk, offs_n, offs_d, offs_dv, dmask, dvmask,
                                    q_diag, sk, wl_eff, wr_eff, qk_scale, 0.0, 0.0,
                                    BLOCK_N, IS_MASKED, False)

    empty = l_i == 0.0
    out = acc / tl.where(empty, 1.0, l_i)[:, None]
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(tl.where(empty, 1.0, l_i))) * LN2)
    row_lse = tl.cast(off_b, tl.int64) * stride_lb + tl.cast(head, tl.int64) * stride_lh + tl.cast(q_start + qi, tl.int64)
    if num_splits > 1:
        ws_row = tl.cast(split, tl.int64) * ws_split_rows + row_lse
        tl.store(WORKSPACE + ws_row[:, None] * head_dim_v + offs_dv[None, :], out,
                 mask=row_ok[:, None] & dvmask[None, :])
        ws_lse = WORKSPACE + tl.cast(num_splits, tl.int64) * ws_split_rows * head_dim_v
        tl.store(ws_lse + ws_row, lse, mask=row_ok)
    else:
        o_rows = tl.cast(off_b, tl.int64) * stride_ob + tl.cast(q_start + qi, tl.int64) * stride_os \
            + tl.cast(head, tl.int64) * stride_oh
        tl.store(OUT + o_rows[:, None] + offs_dv[None, :], out.to(OUT.dtype.element_ty),
                 mask=row_ok[:, None] & dvmask[None, :])
        if store_lse != 0:
            tl.store(LSE + row_lse, lse, mask=row_ok)


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
