// attn_common.h: the platform-neutral attention logic of the native kernels.
//
// Indexing (BSHD strides, packed GQA rows), masking (bottom-right causal / sliding window,
// ragged tails), online softmax, split-K bounds, the split-major scratch layout and the
// combine are written here once, against a fragment backend `M` (mma_mfma.h on gfx942 /
// gfx950, mma_wmma.h on gfx11 / gfx12, mma_cuda.h on sm_80 / sm_90a).  The CUDA build of this
// file is what runs on NVIDIA hardware in tests/gpu/test_native_shared_logic.py; only the
// backend below the contract in mma_mfma.h differs on AMD.
//
// One workgroup computes BM rows of one (batch, kv head) for one KV split.  A row is a
// (query position, q head of the kv head's group) pair: row r -> query r / group, head
// kv_head * group + r % group, so a decode step of a GQA model fills the tile with the
// group's heads.  Per KV tile of BN keys:
//   S = Q K^T           (warps own S tiles, results stored to LDS in fp32)
//   softmax rows        (TPR = threads / BM consecutive lanes per row, xor-shuffle reductions;
//                        running max m (log2 units) and sum l per row in LDS)
//   O = O * alpha + P V (warps own O tiles; accumulators stay in registers)
// Key ranges: split g of G covers KV blocks [g*per, (g+1)*per), per = ceil(nblk / G); in
// the masked variant each row further sees keys [i + sk - sq - left, i + sk - sq + right].
#pragma once

#include "compat.h"
#include "native_args.h"

namespace nat {

template <class M, int DT, int D, int BM, int BN, int NWARP, bool MASKED>
struct FwdTile {
    static constexpr int W = M::WAVE;
    static constexpr int NT = NWARP * W;          // threads per workgroup
    static constexpr int DV = D;
    static constexpr int TPR = NT / BM;           // threads per softmax row
    static constexpr int QS = D + 8;              // LDS row strides (16-bit elements); +8 keeps
    static constexpr int KS = D + 8;              // rows 16-byte aligned
    static constexpr int VS = DV + 8;
    static constexpr int PS = BN + 8;
    static constexpr int SS = BN;                 // fp32 scores
    static constexpr int ST_N = BN / M::TN;       // S tiles per tile row
    static constexpr int ST = (BM / M::TM) * ST_N;
    static constexpr int OT_N = DV / M::TN;
    static constexpr int OT = (BM / M::TM) * OT_N;
    static constexpr int OPW = (OT + NWARP - 1) / NWARP;   // O tiles per warp
    static constexpr int LDS_BYTES = 2 * (BM * QS + BN * KS + BN * VS + BM * PS) + 4 * (BM * SS + 3 * BM);

    static_assert(BM % M::TM == 0 && BN % M::TN == 0 && D % M::TN == 0, "tiles must divide the block");
    static_assert(D % M::TK == 0 && BN % M::TK == 0, "reduction steps must divide D and BN");
    static_assert(NT % BM == 0 && (TPR & (TPR - 1)) == 0 && TPR <= W, "softmax rows need a power-of-two lane group");
    static_assert(D % 8 == 0, "rows are moved in 16-byte pieces");
};

// Copy ROWS rows of COLS 16-bit elements to LDS (row stride `ld`), 16 bytes at a time;
// row_addr(r) gives row r's global address, or null for a row to zero-fill.
template <int NT, int ROWS, int COLS, class RowAddr>
NDEV void load_tile(uint16_t* dst, int ld, RowAddr row_addr, int tid) {
    constexpr int CHUNKS = COLS / 8;
    for (int i = tid; i < ROWS * CHUNKS; i += NT) {
        const int r = i / CHUNKS, c = (i % CHUNKS) * 8;
        const uint16_t* src = row_addr(r);
        u32x4 v = {0u, 0u, 0u, 0u};
        if (src) v = *reinterpret_cast<const u32x4*>(src + c);
        *reinterpret_cast<u32x4*>(dst + r * ld + c) = v;
    }
}

// Keys [lo, hi) that split `split` of `splits` covers, before any masking.
NDEV void split_bounds(int seqlen_k, int bn, int splits, int split, int& lo, int& hi) {
    const int nblk = (seqlen_k + bn - 1) / bn;
    const int per = (nblk + splits - 1) / splits;
    const int64_t a = (int64_t)split * per * bn, b = a + (int64_t)per * bn;
    lo = (int)(a < seqlen_k ? a : seqlen_k);
    hi = (int)(b < seqlen_k ? b : seqlen_k);
}

// Keys [lo, hi) that query `qi` may see (bottom-right aligned window), clipped to [lo, hi).
NDEV void visible_bounds(int qi, int seqlen_q, int seqlen_k, int left, int right, int& lo, int& hi) {
    const int diag = qi + seqlen_k - seqlen_q;
    if (left >= 0 && diag - left > lo) lo = diag - left;
    if (right >= 0 && diag + right + 1 < hi) hi = diag + right + 1;
}

template <class M, int DT, int D, int BM, int BN, int NWARP, bool MASKED>
NDEV void fwd_tile(const native_fwd_args& a, unsigned char* smem) {
    using C = FwdTile<M, DT, D, BM, BN, NWARP, MASKED>;
    constexpr int NT = C::NT, TPR = C::TPR, DV = C::DV;
    const int tid = nat::tid(), lane = tid % C::W, warp = tid / C::W;

    uint16_t* sQ = reinterpret_cast<uint16_t*>(smem);
    uint16_t* sK = sQ + BM * C::QS;
    uint16_t* sV = sK + BN * C::KS;
    uint16_t* sP = sV + BN * C::VS;
    float* sS = reinterpret_cast<float*>(sP + BM * C::PS);
    float* sM = sS + BM * C::SS;       // running max, log2 units
    float* sL = sM + BM;               // running sum
    float* sA = sL + BM;               // this tile's rescale factor

    const int group = a.heads_q / a.heads_k;
    const int b = bid_x() / a.heads_k, kvh = bid_x() % a.heads_k;
    const int row0 = bid_y() * BM;
    const int rows = a.seqlen_q * group;
    const int split = bid_z(), splits = a.num_splits;
    const int sq = a.seqlen_q, sk = a.seqlen_k;

    const uint16_t* q = reinterpret_cast<const uint16_t*>(a.q);
    const uint16_t* k = reinterpret_cast<const uint16_t*>(a.k) + b * a.k_batch_stride + kvh * a.k_head_stride;
    const uint16_t* v = reinterpret_cast<const uint16_t*>(a.v) + b * a.v_batch_stride + kvh * a.v_head_stride;

    // Keys this workgroup walks: the split's range, narrowed to what any of its rows sees.
    int split_lo, split_hi;
    split_bounds(sk, BN, splits, split, split_lo, split_hi);
    int lo = split_lo, hi = split_hi;
    if (MASKED) {
        const int last = (rows < row0 + BM ? rows : row0 + BM) - 1;
        int lo_first = split_lo, hi_first = split_hi, lo_last = split_lo, hi_last = split_hi;
        visible_bounds(row0 / group, sq, sk, a.window_left, a.window_right, lo_first, hi_first);
        visible_bounds(last / group, sq, sk, a.window_left, a.window_right, lo_last, hi_last);
        lo = lo_first;     // the window moves right with the query: first row has the lowest
        hi = hi_last;      // left edge, last row the highest right edge
    }

    load_tile<NT, BM, D>(sQ, C::QS, [&](int r) -> const uint16_t* {
        const int gr = row0 + r;
        if (gr >= rows) return nullptr;
        const int qi = gr / group, h = kvh * group + gr % group;
        return q + b * a.q_batch_stride + qi * a.q_seq_stride + h * a.q_head_stride;
    }, tid);
    for (int r = tid; r < BM; r += NT) {
        sM[r] = neg_inf();
        sL[r] = 0.f;
    }

    // This thread's softmax row and its visible keys.
    const int srow = tid / TPR, ssub = tid % TPR;
    int row_lo = split_lo, row_hi = split_hi;
    if (MASKED) visible_bounds((row0 + srow) / group, sq, sk, a.window_left, a.window_right, row_lo, row_hi);

    typename M::Acc acc[C::OPW];
#pragma unroll
    for (int i = 0; i < C::OPW; ++i)
#pragma unroll
        for (int e = 0; e < M::NACC; ++e) acc[i].v[e] = 0.f;
    sync();   // sM / sL initialised before anyone reads them (also when no key tile runs)

    for (int k0 = lo < hi ? (lo / BN) * BN : hi; k0 < hi; k0 += BN) {
        load_tile<NT, BN, D>(sK, C::KS, [&](int r) -> const uint16_t* {
            return k0 + r < sk ? k + (int64_t)(k0 + r) * a.k_seq_stride : nullptr;
        }, tid);
        load_tile<NT, BN, DV>(sV, C::VS, [&](int r) -> const uint16_t* {
            return k0 + r < sk ? v + (int64_t)(k0 + r) * a.v_seq_stride : nullptr;
        }, tid);
        sync();

        // S = Q K^T: B(k, n) = K[n][k].
        for (int t = warp; t < C::ST; t += NWARP) {
            const int tm = t / C::ST_N, tn = t % C::ST_N;
            typename M::Acc s;
#pragma unroll
            for (int e = 0; e < M::NACC; ++e) s.v[e] = 0.f;
#pragma unroll
            for (int kk = 0; kk < D; kk += M::TK)
                M::template mma<DT>(s, sQ + tm * M::TM * C::QS, C::QS, 1, sK + tn * M::TN * C::KS, 1, C::KS, kk, lane);
#pragma unroll
            for (int e = 0; e < M::NACC; ++e)
                sS[(tm * M::TM + M::row(lane, e)) * C::SS + tn * M::TN + M::col(lane, e)] = s.v[e];
        }
        sync();

        // Online softmax over this tile, TPR lanes per row.
        {
            float* srow_s = sS + srow * C::SS;
            float mx = neg_inf();
            for (int c = ssub; c < BN; c += TPR) {
                const int key = k0 + c;
                const bool vis = MASKED ? (key >= row_lo && key < row_hi) : true;
                const float s = vis ? srow_s[c] * a.scale_log2 : neg_inf();
                srow_s[c] = s;
                mx = fmax(mx, s);
            }
            mx = group_max<TPR>(mx, lane);
            const float m_old = sM[srow];
            const float m_new = fmax(m_old, mx);
            const bool none = m_new == neg_inf();      // nothing visible yet: keep l = 0, O = 0
            const float alpha = none ? 1.f : exp2(m_old - m_new);
            float sum = 0.f;
            for (int c = ssub; c < BN; c += TPR) {
                const float p = none ? 0.f : exp2(srow_s[c] - m_new);
                sP[srow * C::PS + c] = to_bits<DT>(p);
                sum += p;
            }
            sum = group_sum<TPR>(sum, lane);
            syncwarp();   // every lane of the row has read sM[srow] before lane 0 rewrites it (racecheck)
            if (ssub == 0) {
                sL[srow] = sL[srow] * alpha + sum;
                sM[srow] = m_new;
                sA[srow] = alpha;
            }
        }
        sync();

        // O = O * alpha + P V: B(k, n) = V[k][n].
#pragma unroll
        for (int i = 0; i < C::OPW; ++i) {
            const int t = warp + i * NWARP;
            if (C::OT % NWARP != 0 && t >= C::OT) break;
            const int tm = t / C::OT_N, tn = t % C::OT_N;
#pragma unroll
            for (int e = 0; e < M::NACC; ++e) acc[i].v[e] *= sA[tm * M::TM + M::row(lane, e)];
#pragma unroll
            for (int kk = 0; kk < BN; kk += M::TK)
                M::template mma<DT>(acc[i], sP + tm * M::TM * C::PS, C::PS, 1, sV + tn * M::TN, C::VS, 1, kk, lane);
        }
        sync();
    }

    // Epilogue: normalise; write out (one split) or the fp32 partials (several).
    const int64_t nrows = (int64_t)a.batch * a.heads_q * sq;   // rows of one split's partials
    float* ws_o = reinterpret_cast<float*>(a.workspace);
    float* ws_lse = ws_o + (int64_t)splits * nrows * DV;
#pragma unroll
    for (int i = 0; i < C::OPW; ++i) {
        const int t = warp + i * NWARP;
        if (C::OT % NWARP != 0 && t >= C::OT) break;
        const int tm = t / C::OT_N, tn = t % C::OT_N;
#pragma unroll
        for (int e = 0; e < M::NACC; ++e) {
            const int r = tm * M::TM + M::row(lane, e), c = tn * M::TN + M::col(lane, e);
            const int gr = row0 + r;
            if (gr >= rows) continue;
            const int qi = gr / group, h = kvh * group + gr % group;
            const float l = sL[r];
            const float o = l > 0.f ? acc[i].v[e] / l : 0.f;
            if (splits == 1) {
                uint16_t* out = reinterpret_cast<uint16_t*>(a.out);
                out[b * a.o_batch_stride + qi * a.o_seq_stride + h * a.o_head_stride + c] = to_bits<DT>(o);
            } else {
                const int64_t prow = ((int64_t)split * a.batch + b) * a.heads_q * sq + (int64_t)h * sq + qi;
                ws_o[prow * DV + c] = o;
            }
        }
    }
    for (int r = tid; r < BM; r += NT) {
        const int gr = row0 + r;
        if (gr >= rows) continue;
        const int qi = gr / group, h = kvh * group + gr % group;
        const float m = sM[r], l = sL[r];
        const float lse = (m == neg_inf() || !(l > 0.f)) ? neg_inf() : (m + log2(l)) * LN2;
        const int64_t row = ((int64_t)b * a.heads_q + h) * sq + qi;
        if (splits == 1) {
            if (a.lse) reinterpret_cast<float*>(a.lse)[row] = lse;
        } else {
            ws_lse[(int64_t)split * nrows + row] = lse;
        }
    }
}

// Fold the G partials of one output element: weights exp(lse_g - max), a row whose every
// partial is empty (LSE -inf) gives 0 and LSE -inf.
template <int DT>
NDEV void combine_element(const native_combine_args& a, int64_t idx) {
    const int DV = a.head_dim_v, G = a.num_splits;
    const int64_t nrows = (int64_t)a.batch * a.heads_q * a.seqlen_q;
    if (idx >= nrows * DV) return;
    const int c = (int)(idx % DV);
    const int64_t row = idx / DV;                      // (b, h, qi), as the partials
    const float* ws_o = reinterpret_cast<const float*>(a.workspace);
    const float* ws_lse = ws_o + (int64_t)G * nrows * DV;

    float m = neg_inf();
    for (int g = 0; g < G; ++g) m = fmax(m, ws_lse[g * nrows + row]);
    float o = 0.f, lse = neg_inf();
    if (m != neg_inf()) {
        float wsum = 0.f, osum = 0.f;
        for (int g = 0; g < G; ++g) {
            const float w = exp2((ws_lse[g * nrows + row] - m) * LOG2E);
            wsum += w;
            osum += w * ws_o[(g * nrows + row) * DV + c];
        }
        o = osum / wsum;
        lse = m + log2(wsum) * LN2;
    }
    const int qi = (int)(row % a.seqlen_q);
    const int64_t bh = row / a.seqlen_q;
    const int h = (int)(bh % a.heads_q), b = (int)(bh / a.heads_q);
    uint16_t* out = reinterpret_cast<uint16_t*>(a.out);
    out[b * a.o_batch_stride + qi * a.o_seq_stride + h * a.o_head_stride + c] = to_bits<DT>(o);
    if (c == 0 && a.lse) reinterpret_cast<float*>(a.lse)[row] = lse;
}

}  // namespace nat
