// issue11o: nvcc 13.0.88 drops the first __shfl_xor_sync after `if constexpr (C) pm(b0, b1); else for (...) {...}` for C = true
// (nvcc -ptx -O3 -std=c++17 -arch=sm_90: k1 has 3 shfl.sync.bfly, k0 4; `if (C)` or a braced else: 4 each)
template <bool C>
__device__ void body(const float* g, float* out) {
    float s[64];
    for (int i = 0; i < 64; ++i) s[i] = g[i * 32 + threadIdx.x];
    float mx0 = -__builtin_huge_valf(), mx1 = mx0;
    auto pm = [&](float& b0, float& b1) {
        float p0[4], p1[4];

        for (int j = 0; j < 4; ++j) { p0[j] = fmaxf(s[4 * j], s[4 * j + 1]); p1[j] = fmaxf(s[4 * j + 2], s[4 * j + 3]); }

        for (int i = 4; i < 16; ++i) {
            p0[i % 4] = fmaxf(p0[i % 4], fmaxf(s[4 * i], s[4 * i + 1]));
            p1[i % 4] = fmaxf(p1[i % 4], fmaxf(s[4 * i + 2], s[4 * i + 3]));
        }
        b0 = fmaxf(fmaxf(b0, fmaxf(p0[0], p0[1])), fmaxf(p0[2], p0[3]));
        b1 = fmaxf(fmaxf(b1, fmaxf(p1[0], p1[1])), fmaxf(p1[2], p1[3]));
    };
    auto sm = [&]() {
        float b0 = mx0, b1 = mx1;
        if constexpr (C) pm(b0, b1);
        else

        for (int i = 0; i < 16; ++i) {
            b0 = fmaxf(b0, fmaxf(s[4 * i], s[4 * i + 1]));
            b1 = fmaxf(b1, fmaxf(s[4 * i + 2], s[4 * i + 3]));
        }
        b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 1));
        b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 2));
        b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 1));
        b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 2));
        out[threadIdx.x] = b0; out[threadIdx.x + 32] = b1;
    };
    sm();
}
__global__ void k1(const float* s, float* o) { body<true>(s, o); }
__global__ void k0(const float* s, float* o) { body<false>(s, o); }
