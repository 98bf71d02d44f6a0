/* Kernel arguments of the portable family (kernels/src/portable/attn_fwd.py), declared once.
 *
 * The Python side (pyhipattn/families/portable.py) packs these structs; the build
 * (scripts/build/portable.py) fails unless each struct matches, field for field, the order
 * and types of the Triton kernel's parameters (constexprs dropped, Triton's two trailing
 * scratch pointers appended) under C natural alignment, which is the driver's kernarg layout
 * for Triton kernels on CUDA and HIP alike.
 *
 * Strides are in elements.  Pointers are device addresses (uint64_t); cu_seqlens_* are null
 * unless the kernel is a varlen variant, workspace unless num_splits > 1, lse unless
 * store_lse; global_scratch and profile_scratch are always null (the build checks that
 * Triton asked for no scratch).
 */
#pragma once
#include <stdint.h>

// pyhipattn:begin
struct portable_fwd_args {
    uint64_t q;               /* (b, sq, hq, d) or varlen (total_q, hq, d), bf16/fp16 */
    uint64_t k;               /* (b, sk, hk, d) */
    uint64_t v;               /* (b, sk, hk, dv) */
    uint64_t out;             /* (b, sq, hq, dv) */
    uint64_t lse;             /* fp32 (b, hq, sq) or varlen (hq, total_q) */
    uint64_t cu_seqlens_q;    /* int32 (b + 1), varlen only */
    uint64_t cu_seqlens_k;    /* int32 (b + 1), varlen only */
    uint64_t workspace;       /* fp32 split scratch: O [G][rows][dv] then LSE [G][rows] */
    int64_t stride_qb;        /* batch strides: 0 for varlen */
    int64_t stride_kb;
    int64_t stride_vb;
    int64_t stride_ob;
    int32_t stride_qs;        /* sequence and head strides */
    int32_t stride_qh;
    int32_t stride_ks;
    int32_t stride_kh;
    int32_t stride_vs;
    int32_t stride_vh;
    int32_t stride_os;
    int32_t stride_oh;
    int32_t stride_lb;        /* LSE and scratch rows: b * stride_lb + h * stride_lh + token */
    int32_t stride_lh;
    int32_t ws_split_rows;    /* rows of one split: hq * (b * sq), or hq * total_q for varlen */
    int32_t seqlen_q;         /* max lengths for varlen */
    int32_t seqlen_k;
    int32_t heads_kv;
    int32_t group;            /* hq / hk */
    int32_t head_dim;
    int32_t head_dim_v;
    int32_t window_left;      /* -1 = unbounded; causal = (-1, 0), bottom-right aligned */
    int32_t window_right;
    int32_t store_lse;        /* 0 / 1 */
    int32_t num_splits;       /* 1 = write out directly; > 1 = write the workspace */
    float softmax_scale;
    float softcap;            /* 0 = off */
    uint64_t global_scratch;  /* Triton's trailing parameters: null */
    uint64_t profile_scratch;
};

struct portable_combine_args {
    uint64_t workspace;       /* as written by the forward kernel with num_splits > 1 */
    uint64_t out;
    uint64_t lse;
    int64_t stride_ob;        /* 0 for varlen */
    int32_t stride_os;
    int32_t stride_oh;
    int32_t seqlen_q;         /* sq, or total_q for varlen */
    int32_t heads_q;
    int32_t ws_split_rows;
    int32_t head_dim_v;
    int32_t num_splits;
    int32_t store_lse;
    uint64_t global_scratch;
    uint64_t profile_scratch;
};
// pyhipattn:end
