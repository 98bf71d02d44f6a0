// native_args.h: the kernarg structs of the native split-K / WMMA attention kernels.
//
// Declared once, here, for the kernels (splitk_fwd.cu, combine.cu: taken by value) and for
// Python (pyhipattn.kernargs.layout_from_header reads the region between the markers).
// Convention: kernels/src/common/pyhipattn_kernargs.h -- fixed-width fields, natural
// alignment, device addresses as uint64_t, strides in elements.
#pragma once

#include <stdint.h>

// pyhipattn:begin

// Producer (one launch per call): grid (batch * heads_k, ceil(seqlen_q * group / BM),
// num_splits).  Rows of a tile are (query position, q head of the kv head's group) pairs,
// so decode with GQA fills a tile.  num_splits == 1 writes out / lse directly; > 1 writes
// fp32 partials to workspace: O [G][B][Hq][Sq][Dv] followed by LSE [G][B][Hq][Sq].
struct native_fwd_args {
    uint64_t q;             // bf16/fp16 (B, Sq, Hq, D), strides below
    uint64_t k;             // (B, Sk, Hk, D)
    uint64_t v;             // (B, Sk, Hk, Dv)
    uint64_t out;           // (B, Sq, Hq, Dv); written when num_splits == 1
    uint64_t lse;           // fp32 (B, Hq, Sq) contiguous, natural log; 0 = not wanted
    uint64_t workspace;     // fp32 partials when num_splits > 1 (see above)
    int64_t q_batch_stride;
    int64_t q_seq_stride;
    int64_t q_head_stride;
    int64_t k_batch_stride;
    int64_t k_seq_stride;
    int64_t k_head_stride;
    int64_t v_batch_stride;
    int64_t v_seq_stride;
    int64_t v_head_stride;
    int64_t o_batch_stride;
    int64_t o_seq_stride;
    int64_t o_head_stride;
    int32_t batch;
    int32_t seqlen_q;
    int32_t seqlen_k;
    int32_t heads_q;
    int32_t heads_k;
    int32_t num_splits;     // G >= 1
    int32_t window_left;    // -1 = unbounded; causal = right 0 (bottom-right aligned)
    int32_t window_right;
    float scale_log2;       // softmax_scale * log2(e)
    int32_t reserved;       // explicit tail padding (keeps the size a multiple of 8)
};

// Combine: grid (ceil(batch * heads_q * seqlen_q * head_dim_v / 256)), 256 threads; one
// thread per output element folds the G partials of its row.
struct native_combine_args {
    uint64_t workspace;     // as written by the producer with the same G, B, Hq, Sq, Dv
    uint64_t out;
    uint64_t lse;           // 0 = not wanted
    int64_t o_batch_stride;
    int64_t o_seq_stride;
    int64_t o_head_stride;
    int32_t batch;
    int32_t seqlen_q;
    int32_t heads_q;
    int32_t head_dim_v;
    int32_t num_splits;
    int32_t reserved;
};

#define NATIVE_COMBINE_THREADS 256

// pyhipattn:end
