// mma_cuda.h: NVIDIA (sm_80, sm_90a) fragment backend: mma.sync.m16n8k16 twice per 16x16x16
// tile.  Contract: see mma_mfma.h.  This backend exists so that everything above the
// fragment level (attn_common.h) runs, and is tested, on an NVIDIA GPU.
//
// PTX fragment layouts (group g = lane/4, thread-in-group t = lane%4):
//   A 16x16 row-major, 4 regs of 2 halves: reg i holds row g + 8*(i%2), cols 2t + 8*(i/2) + {0,1};
//   B 16x8 per n-half, 2 regs: reg i holds rows (K) 2t + 8*i + {0,1}, column g;
//   C 16x8 per n-half, 4 floats: c_i is row g + 8*(i/2), column 2t + i%2.
#pragma once

#include "compat.h"

struct MmaCuda {
    static constexpr int WAVE = 32;
    static constexpr int TM = 16;
    static constexpr int TN = 16;
    static constexpr int TK = 16;
    static constexpr int NACC = 8;   // two n-halves of 4
    struct Acc { float v[NACC]; };

    NDEV static int row(int lane, int e) { return (lane >> 2) + 8 * ((e & 3) >> 1); }
    NDEV static int col(int lane, int e) { return 8 * (e >> 2) + 2 * (lane & 3) + (e & 1); }

    template <int DT>
    NDEV static void mma(Acc& c, const uint16_t* a, int a_sm, int a_sk, const uint16_t* b, int b_sk, int b_sn,
                         int k0, int lane) {
        const int g = lane >> 2, t = lane & 3;
        uint32_t ar[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int r = g + 8 * (i & 1), k = k0 + 2 * t + 8 * (i >> 1);
            ar[i] = (uint32_t)a[r * a_sm + k * a_sk] | ((uint32_t)a[r * a_sm + (k + 1) * a_sk] << 16);
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int n = 8 * h + g;
            uint32_t br[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int k = k0 + 2 * t + 8 * i;
                br[i] = (uint32_t)b[k * b_sk + n * b_sn] | ((uint32_t)b[(k + 1) * b_sk + n * b_sn] << 16);
            }
            float* d = c.v + 4 * h;
            if constexpr (DT == nat::FP16)
                asm volatile(
                    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                    "{%0,%1,%2,%3};\n"
                    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                    : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
            else
                asm volatile(
                    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                    "{%0,%1,%2,%3};\n"
                    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                    : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
        }
    }
};
