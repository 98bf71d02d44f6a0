// compat.h: the few device primitives the native kernels need, for two compilers.
//
//   clang-22 -x hip -nogpuinc -nogpulib (AMD): no HIP headers, so attributes and intrinsics
//       are spelled with clang builtins here;
//   nvcc (NVIDIA, the shared-logic test vehicle): CUDA's own spellings.
// Everything above this header (attn_common.h) is written once against these names.
#pragma once

#include <stdint.h>

#if defined(__HIP__)
#define NATIVE_AMD 1
#elif defined(__CUDACC__)
#define NATIVE_CUDA 1
#else
#error "compile with clang -x hip (AMD) or nvcc (NVIDIA)"
#endif

#if defined(NATIVE_AMD)

#define NDEV __attribute__((device)) inline __attribute__((always_inline))
#define NKERNEL(threads) extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(threads, threads)))
#define NSHARED __attribute__((shared))

namespace nat {
NDEV int tid() { return (int)__builtin_amdgcn_workitem_id_x(); }
NDEV int bid_x() { return (int)__builtin_amdgcn_workgroup_id_x(); }
NDEV int bid_y() { return (int)__builtin_amdgcn_workgroup_id_y(); }
NDEV int bid_z() { return (int)__builtin_amdgcn_workgroup_id_z(); }
// __syncthreads: make LDS writes visible to the workgroup, then wait for every wave.
NDEV void sync() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
// A wave's lanes run in lockstep and its LDS accesses complete in order: nothing to do.
NDEV void syncwarp() {}
NDEV float exp2(float x) { return __builtin_amdgcn_exp2f(x); }   // exp2(-inf) == 0
NDEV float log2(float x) { return __builtin_amdgcn_logf(x); }    // v_log_f32 is log2
NDEV float neg_inf() { return -__builtin_inff(); }
NDEV float fmax(float a, float b) { return __builtin_fmaxf(a, b); }
NDEV float as_float(uint32_t u) { return __builtin_bit_cast(float, u); }
NDEV uint32_t as_uint(float f) { return __builtin_bit_cast(uint32_t, f); }
// Value of `v` in lane (lane ^ mask) of the same wave (ds_bpermute addresses bytes).
NDEV float shfl_xor(float v, int mask, int lane) {
    return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute((lane ^ mask) << 2, __builtin_bit_cast(int, v)));
}
NDEV uint16_t f32_to_f16_bits(float x) { return __builtin_bit_cast(uint16_t, (_Float16)x); }
NDEV float f16_bits_to_f32(uint16_t b) { return (float)__builtin_bit_cast(_Float16, b); }
typedef uint32_t u32x4 __attribute__((ext_vector_type(4)));
}  // namespace nat

#else  // NATIVE_CUDA

#include <cuda_fp16.h>

#define NDEV __device__ __forceinline__
#define NKERNEL(threads) extern "C" __global__ void __launch_bounds__(threads)
#define NSHARED __shared__

namespace nat {
NDEV int tid() { return (int)threadIdx.x; }
NDEV int bid_x() { return (int)blockIdx.x; }
NDEV int bid_y() { return (int)blockIdx.y; }
NDEV int bid_z() { return (int)blockIdx.z; }
NDEV void sync() { __syncthreads(); }
// Lanes of a warp may run apart (independent thread scheduling): order their shared accesses.
NDEV void syncwarp() { __syncwarp(); }
NDEV float exp2(float x) { return exp2f(x); }
NDEV float log2(float x) { return log2f(x); }
NDEV float neg_inf() { return __int_as_float(0xff800000); }
NDEV float fmax(float a, float b) { return fmaxf(a, b); }
NDEV float as_float(uint32_t u) { return __uint_as_float(u); }
NDEV uint32_t as_uint(float f) { return __float_as_uint(f); }
NDEV float shfl_xor(float v, int mask, int /*lane*/) { return __shfl_xor_sync(0xffffffffu, v, mask); }
NDEV uint16_t f32_to_f16_bits(float x) { return __half_as_ushort(__float2half_rn(x)); }
NDEV float f16_bits_to_f32(uint16_t b) { return __half2float(__ushort_as_half(b)); }
typedef uint4 u32x4;
}  // namespace nat

#endif

// NKERNEL(threads) already carries `void` on CUDA; on AMD the kernel spells it.  Use
// NATIVE_KERNEL(threads) name(args) to get one spelling for both.
#if defined(NATIVE_AMD)
#define NATIVE_KERNEL(threads) NKERNEL(threads) void
#else
#define NATIVE_KERNEL(threads) NKERNEL(threads)
#endif

namespace nat {
constexpr float LOG2E = 1.4426950408889634f;
constexpr float LN2 = 0.6931471805599453f;

// dtype tags: the 16-bit storage formats of q, k, v and out.
constexpr int FP16 = 0;
constexpr int BF16 = 1;

// fp32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
NDEV uint16_t f32_to_bf16_bits(float x) {
    uint32_t u = as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
NDEV float bf16_bits_to_f32(uint16_t b) { return as_float((uint32_t)b << 16); }

template <int DT> NDEV uint16_t to_bits(float x) { return DT == BF16 ? f32_to_bf16_bits(x) : f32_to_f16_bits(x); }
template <int DT> NDEV float from_bits(uint16_t b) { return DT == BF16 ? bf16_bits_to_f32(b) : f16_bits_to_f32(b); }

// Max / sum over the N consecutive lanes of a group (N a power of two, N <= wave size);
// every lane gets the result.  All lanes of the wave must call it together.
template <int N> NDEV float group_max(float v, int lane) {
#pragma unroll
    for (int m = N / 2; m > 0; m /= 2) v = fmax(v, shfl_xor(v, m, lane));
    return v;
}
template <int N> NDEV float group_sum(float v, int lane) {
#pragma unroll
    for (int m = N / 2; m > 0; m /= 2) v += shfl_xor(v, m, lane);
    return v;
}
}  // namespace nat
