// mma_mfma.h: CDNA3/CDNA4 (gfx942, gfx950) fragment backend, wave64, 32x32 tiles.
//
// Backend contract (same in mma_wmma.h and mma_cuda.h; attn_common.h uses nothing else):
//   WAVE, TM x TN output tile, TK reduction step, NACC accumulators per lane;
//   mma<DT>(c, a, a_sm, a_sk, b, b_sk, b_sn, k0, lane):
//       c += A[0:TM, k0:k0+TK] * B[k0:k0+TK, 0:TN], A(m,k) = a[m*a_sm + k*a_sk],
//       B(k,n) = b[k*b_sk + n*b_sn] (16-bit elements in LDS);
//   row(lane, e), col(lane, e): where accumulator e of `lane` sits in the TM x TN tile.
//
// v_mfma_f32_32x32x8{f16,bf16_1k} (gfx942) / 32x32x16 (gfx950): lane l holds A row l%32 and
// B column l%32, with the lane half l/32 selecting a K sub-block.  Which K a (lane half,
// item) slot means only has to agree between A and B (it is summed over), so only the row /
// column assignment and the accumulator layout below are load-bearing:
//   D element e of lane l: row 8*(e/4) + 4*(l/32) + e%4, column l%32.
// NOT verified on hardware (no CDNA GPU available): see notes/native.md.
#pragma once

#include "compat.h"

struct MmaMfma {
    static constexpr int WAVE = 64;
    static constexpr int TM = 32;
    static constexpr int TN = 32;
#if defined(__gfx950__)
    static constexpr int TK = 16;
#else
    static constexpr int TK = 8;
#endif
    static constexpr int NACC = 16;
    struct Acc { float v[NACC]; };

    NDEV static int row(int lane, int e) { return 8 * (e >> 2) + 4 * (lane >> 5) + (e & 3); }
    NDEV static int col(int lane, int e) { return lane & 31; }

    typedef float f32x16 __attribute__((ext_vector_type(16)));
    typedef short s16x4 __attribute__((ext_vector_type(4)));
    typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
    typedef short s16x8 __attribute__((ext_vector_type(8)));
    typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
    typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
    static constexpr int KPL = TK / 2;  // K values per lane
#if defined(__gfx950__)
    typedef s16x8 frag_t;
#else
    typedef s16x4 frag_t;
#endif

    template <int DT>
    NDEV static void mma(Acc& c, const uint16_t* a, int a_sm, int a_sk, const uint16_t* b, int b_sk, int b_sn,
                         int k0, int lane) {
        const int mn = lane & 31;
        const int kb = k0 + KPL * (lane >> 5);
        frag_t av, bv;
#pragma unroll
        for (int j = 0; j < KPL; ++j) {
            av[j] = (short)a[mn * a_sm + (kb + j) * a_sk];
            bv[j] = (short)b[(kb + j) * b_sk + mn * b_sn];
        }
        f32x16 acc;
#pragma unroll
        for (int e = 0; e < NACC; ++e) acc[e] = c.v[e];
#if defined(__gfx950__)
        if constexpr (DT == nat::FP16)
            acc = __builtin_amdgcn_mfma_f32_32x32x16_f16(__builtin_bit_cast(f16x8, av), __builtin_bit_cast(f16x8, bv),
                                                         acc, 0, 0, 0);
        else
            acc = __builtin_amdgcn_mfma_f32_32x32x16_bf16(__builtin_bit_cast(bf16x8, av),
                                                          __builtin_bit_cast(bf16x8, bv), acc, 0, 0, 0);
#else
        if constexpr (DT == nat::FP16)
            acc = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(f16x4, av), __builtin_bit_cast(f16x4, bv),
                                                       acc, 0, 0, 0);
        else
            acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(av, bv, acc, 0, 0, 0);
#endif
#pragma unroll
        for (int e = 0; e < NACC; ++e) c.v[e] = acc[e];
    }
};
