// mma_wmma.h: RDNA3 (gfx11) / RDNA4 (gfx12) fragment backend, wave32, 16x16x16 tiles.
// Contract: see mma_mfma.h.
//
// gfx11 v_wmma_f32_16x16x16_{f16,bf16} (w32): lane l holds A row l%16 and B column l%16,
//   all 16 K values (lanes 16-31 repeat lanes 0-15); accumulator e of lane l is
//   row 2*e + l/16, column l%16 (rows interleaved between the lane halves).
// gfx12 ..._gfx12: lane l holds A row l%16 / B column l%16, 8 K values, the lane half l/16
//   selecting the K half; accumulator e of lane l is row 8*(l/16) + e, column l%16.
// As for MFMA, the K slot assignment only has to agree between A and B.
// NOT verified on hardware (no RDNA GPU available): see notes/native.md.
#pragma once

#include "compat.h"

struct MmaWmma {
    static constexpr int WAVE = 32;
    static constexpr int TM = 16;
    static constexpr int TN = 16;
    static constexpr int TK = 16;
    static constexpr int NACC = 8;
    struct Acc { float v[NACC]; };

    typedef float f32x8 __attribute__((ext_vector_type(8)));
#if defined(__GFX12__)
    static constexpr int KPL = 8;
    typedef short frag_t __attribute__((ext_vector_type(8)));
    typedef _Float16 f16frag_t __attribute__((ext_vector_type(8)));
    NDEV static int row(int lane, int e) { return 8 * (lane >> 4) + e; }
    NDEV static int kbase(int lane) { return 8 * (lane >> 4); }
#else
    static constexpr int KPL = 16;
    typedef short frag_t __attribute__((ext_vector_type(16)));
    typedef _Float16 f16frag_t __attribute__((ext_vector_type(16)));
    NDEV static int row(int lane, int e) { return 2 * e + (lane >> 4); }
    NDEV static int kbase(int) { return 0; }
#endif
    NDEV static int col(int lane, int) { return lane & 15; }

    template <int DT>
    NDEV static void mma(Acc& c, const uint16_t* a, int a_sm, int a_sk, const uint16_t* b, int b_sk, int b_sn,
                         int k0, int lane) {
        const int mn = lane & 15;
        const int kb = k0 + kbase(lane);
        frag_t av, bv;
#pragma unroll
        for (int j = 0; j < KPL; ++j) {
            av[j] = (short)a[mn * a_sm + (kb + j) * a_sk];
            bv[j] = (short)b[(kb + j) * b_sk + mn * b_sn];
        }
        f32x8 acc;
#pragma unroll
        for (int e = 0; e < NACC; ++e) acc[e] = c.v[e];
#if defined(__GFX12__)
        if constexpr (DT == nat::FP16)
            acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(__builtin_bit_cast(f16frag_t, av),
                                                                   __builtin_bit_cast(f16frag_t, bv), acc);
        else
            acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(av, bv, acc);
#else
        if constexpr (DT == nat::FP16)
            acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(f16frag_t, av),
                                                             __builtin_bit_cast(f16frag_t, bv), acc);
        else
            acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(av, bv, acc);
#endif
#pragma unroll
        for (int e = 0; e < NACC; ++e) c.v[e] = acc[e];
    }
};
