/* Kernel arguments of the serving kernels (kernels/src/portable/attn_serve.py), declared once.
 *
 * The Python side (pyhipattn/families/serve.py) packs these structs; the build
 * (scripts/build/serve.py) fails unless each struct matches, field for field, the order and
 * types of the Triton kernel's parameters (constexprs dropped, Triton's two trailing scratch
 * pointers appended) under C natural alignment.  Strides are in elements; pointers are device
 * addresses (null where a feature is off).
 */
#pragma once
#include <stdint.h>

// pyhipattn:begin
struct serve_fwd_args {
    uint64_t q;               /* (b, sq, hq, d) or varlen (total_q, hq, d), bf16/fp16 */
    uint64_t k;               /* dense (b, sk, hk, d), cache (b, seqlen_cache, hk, d), paged (pages, page_size, hk, d), varlen (total_k, hk, d) */
    uint64_t v;               /* like k, last dim dv */
    uint64_t out;             /* (b, sq, hq, dv) or (total_q, hq, dv) */
    uint64_t lse;             /* fp32 (b, hq, sq) or (hq, total_q) */
    uint64_t cache_seqlens;   /* int32 (b,): cached tokens per sequence (before this call's append) */
    uint64_t block_table;     /* int32 (b, max_pages): paged caches */
    uint64_t cu_seqlens_q;    /* int32 (b + 1): varlen */
    uint64_t cu_seqlens_k;
    uint64_t sinks;           /* fp32 (hq,): one sink logit per query head */
    uint64_t alibi;           /* fp32 (hq,) or (b, hq): ALiBi slopes */
    uint64_t workspace;       /* fp32 split scratch: O [G][rows][dv] then LSE [G][rows] */
    int64_t stride_qb;        /* batch strides (paged k / v: the page stride; varlen: 0) */
    int64_t stride_kb;
    int64_t stride_vb;
    int64_t stride_ob;
    int32_t stride_qs;
    int32_t stride_qh;
    int32_t stride_ks;
    int32_t stride_kh;
    int32_t stride_vs;
    int32_t stride_vh;
    int32_t stride_os;
    int32_t stride_oh;
    int32_t stride_lb;        /* LSE and scratch rows: b * stride_lb + h * stride_lh + token */
    int32_t stride_lh;
    int32_t stride_bt;        /* block table row stride */
    int32_t stride_ab;        /* ALiBi batch stride: 0 for (hq,) slopes */
    int32_t ws_split_rows;
    int32_t seqlen_q;
    int32_t seqlen_k;         /* dense: sk; caches: capacity; varlen: max */
    int32_t seqlen_k_add;     /* tokens appended this call */
    int32_t use_seqlens;      /* 1: sk = cache_seqlens[b] + seqlen_k_add */
    int32_t heads_kv;
    int32_t group;
    int32_t head_dim;
    int32_t head_dim_v;
    int32_t window_left;      /* -1 = unbounded; causal = (-1, 0), bottom-right aligned */
    int32_t window_right;
    int32_t page_size;
    int32_t store_lse;
    int32_t num_splits;
    int32_t has_sinks;
    int32_t has_alibi;
    float softmax_scale;
    float softcap;            /* 0 = off */
    uint64_t global_scratch;  /* Triton's trailing parameters: null */
    uint64_t profile_scratch;
};

struct serve_append_args {
    uint64_t k_new;           /* (b, n_new, hk, d), bf16/fp16 (copied as 16-bit words) */
    uint64_t v_new;           /* (b, n_new, hk, dv) */
    uint64_t k_cache;         /* the caches as in serve_fwd_args */
    uint64_t v_cache;
    uint64_t cache_seqlens;   /* int32 (b,): the new tokens go at cache_seqlens[b] .. + n_new */
    uint64_t block_table;     /* int32 (b, max_pages), paged caches */
    int32_t stride_nb;
    int32_t stride_ns;
    int32_t stride_nh;
    int32_t stride_wb;
    int32_t stride_ws;
    int32_t stride_wh;
    int64_t stride_kb;
    int32_t stride_ks;
    int32_t stride_kh;
    int64_t stride_vb;
    int32_t stride_vs;
    int32_t stride_vh;
    int32_t stride_bt;
    int32_t n_new;
    int32_t heads_kv;
    int32_t head_dim;
    int32_t head_dim_v;
    int32_t page_size;
    uint64_t global_scratch;
    uint64_t profile_scratch;
};
// pyhipattn:end
