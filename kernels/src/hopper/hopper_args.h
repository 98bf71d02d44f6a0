// hopper_args.h: the kernarg struct of the hopper attention kernels (sm_90a, wgmma).
//
// Declared once, here, for the kernels (hopper_fwd.cu takes it by value as a
// __grid_constant__ parameter) and for Python (pyhipattn.kernargs.layout_from_header reads
// the region between the markers).  Convention: kernels/src/common/pyhipattn_kernargs.h --
// fixed-width fields, natural alignment, device addresses as uint64_t, strides in elements.
#pragma once

#include <stdint.h>

// pyhipattn:begin

// Forward, one launch per call: grid (G, 1, 1), CTA i runs tiles i, i + G, ... of tiles =
// m_blocks * heads_q * batch (G = min(tiles, SMs): persistent, or G = tiles); causal: a snake,
// tile r * G + i in even rounds r and r * G + G - 1 - i in odd ones.  A tile is
// (batch b, q head h, block_m query rows m_block); block_m (64 per consumer warpgroup) and the
// threads per CTA ((consumer warpgroups + 1) * 128) are each kernel's, in the manifest.
//   causal == 0: m_block fastest, then h, then b
//   causal == 1: the row blocks that see the most keys first (m_block = m_blocks - 1 - t /
//                (heads_q * batch)), then h, then b; kernels built with L2 sections (manifest
//                l2_section_kb) do this within sections of (h, b) pairs whose K + V fit that many KiB
//                when their tiles are dealt dynamically (manifest dynamic_causal: CTA i takes tile i, then
//                gridDim.x + atomicAdd on the int32 at tmaps - 4, the int32 at tmaps - 8 counting CTAs that
//                are done; the last one resets both to 0) or one CTA per tile
// Causal masks are bottom-right aligned (FlashAttention >= 2.1): query i sees keys
// j <= i + seqlen_k - seqlen_q (so are sliding windows, below).  Rows that see no key get out 0 and lse -inf.
struct hopper_fwd_args {
    uint64_t q;             // bf16/fp16 (B, Sq, Hq, D), strides below; 16-byte aligned
    uint64_t k;             // (B, Sk, Hk, D)
    uint64_t v;             // (B, Sk, Hk, D)
    uint64_t out;           // (B, Sq, Hq, D)
    uint64_t lse;           // fp32 (B, Hq, Sq) contiguous, natural log; 0 = not wanted
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
    int32_t seqlen_q;
    int32_t seqlen_k;
    int32_t heads_q;
    int32_t group;          // heads_q / heads_k (GQA / MQA)
    int32_t m_blocks;       // ceil(seqlen_q / block_m)
    int32_t causal;         // 0 / 1
    float scale_log2;       // softmax_scale * log2(e)
    int32_t batch;
    uint64_t tmaps;         // kernels with TMA (manifest "tma"): scratch of 128 + 384 * gridDim.x bytes, where
                            // each CTA writes its Q / K / V tensor maps; 0 for the others.  dynamic_causal
                            // kernels also count in the two int32 below it (zero on entry, left zero)
    // sliding window (kernels built with HOPPER_WINDOW, manifest "window"): query i sees keys j with
    // i + seqlen_k - seqlen_q - window_left <= j <= i + seqlen_k - seqlen_q + window_right; -1 = that side
    // unbounded.  causal == 1 needs window_right == 0 (causal then sets the tile order only)
    int32_t window_left;
    int32_t window_right;
    float softcap_log2;     // the _softcap kernels: 2 * log2(e) * softmax_scale / softcap (scores become
                            // tanh(softmax_scale * s / softcap), scale_log2 is then softcap * log2(e)); else 0
    // varlen (the _varlen kernels, manifest "varlen"; 0 for the others): int32 (batch + 1) prefix sums on the device.
    // Sequence b is rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] of the packed q / out (total_q, Hq, D) and rows
    // cu_seqlens_k[b] .. of k / v (total_k, Hk, D) (batch strides 0); seqlen_q / seqlen_k / m_blocks are then the
    // longest sequence's (tiles past a sequence's end are skipped), masks use each sequence's own lengths, and
    // lse is fp32 (Hq, total_q)
    int32_t total_q;
    int32_t total_k;
    uint64_t cu_seqlens_q;
    uint64_t cu_seqlens_k;
};

// Host-made tensor maps (kernels built with HOPPER_PARAM_MAPS_C2 / HOPPER_PARAM_MAPS_ALL, manifest "param_maps": the d64
// _c2 kernels; with _ALL the other non-varlen TMA kernels of the head dims its bits name): a second
// __grid_constant__ kernel parameter after hopper_fwd_args, at its end rounded up to HOPPER_FWD_MAPS_ALIGN (the parameter
// type below, hopper_fwd_maps_param, is this struct aligned so: a CUtensorMap must be 64-byte aligned).  Four 128-byte
// CUtensorMaps, each as 16 little-endian words (word 0 the tensor's address): Q (boxes of block_m rows), K and V (block_n
// rows), O (16 rows, the d64 epilogue's per-warp TMA stores; 64 rows, the d128 one's; zeros, unused, in kernels that
// store O otherwise); dims innermost first (D, seq, heads, batch), byte strides of
// dims 1-3 (16 for a dimension of size 1), 16-bit elements (u16), 128-byte swizzle, zero fill -- the maps the other TMA
// kernels make in their tmaps slots (hopper_fwd.cu's tmap_make), here made by the host (pyhipattn.kernargs.encode_tile_map).
// Such kernels write no maps to tmaps; the tile counters below it stay.
#define HOPPER_FWD_MAPS_ALIGN 64
struct hopper_fwd_maps {
    uint64_t q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15;
    uint64_t k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15;
    uint64_t v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15;
    uint64_t o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15;
};

// pyhipattn:end

#ifdef __cplusplus
// the kernel parameter of hopper_fwd_maps (see above)
struct alignas(HOPPER_FWD_MAPS_ALIGN) hopper_fwd_maps_param {
    hopper_fwd_maps m;
};
static_assert(sizeof(hopper_fwd_maps_param) == 512 && alignof(hopper_fwd_maps_param) == 64, "four 128-byte maps");
#endif
