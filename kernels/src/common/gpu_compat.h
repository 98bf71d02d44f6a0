// gpu_compat.h: lets one CUDA-style kernel source compile for AMD with clang-22 in HIP mode
// *without* any HIP headers (-nogpuinc -nogpulib), and changes nothing under nvcc.
//
// Under nvcc (__CUDACC__) this header only includes <stdint.h>.  Under clang -x hip it
// spells the CUDA-isms with clang builtins:
//   __global__ __device__ __host__ __shared__ __forceinline__   attributes
//   threadIdx blockIdx blockDim gridDim                         .x .y .z as unsigned int
//   __syncthreads()                                             LDS release fence, s_barrier, acquire fence
// threadIdx and friends are macros that build a small {x, y, z} value; the compiler keeps
// only the component used.  blockDim and gridDim read the dispatch packet (workgroup and grid
// sizes), so they hold for any launch, not only the block size the kernel was written for.
#pragma once

#include <stdint.h>

#if defined(__HIP__) && !defined(__CUDACC__)

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))

struct pyhipattn_dim3 {
    unsigned int x, y, z;
};

static __device__ __forceinline__ pyhipattn_dim3 pyhipattn_thread_idx() {
    return {__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z()};
}
static __device__ __forceinline__ pyhipattn_dim3 pyhipattn_block_idx() {
    return {__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z()};
}
static __device__ __forceinline__ pyhipattn_dim3 pyhipattn_block_dim() {
    return {__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z()};
}
static __device__ __forceinline__ pyhipattn_dim3 pyhipattn_grid_dim() {
    return {__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(),
            __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(),
            __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z()};
}

#define threadIdx (pyhipattn_thread_idx())
#define blockIdx (pyhipattn_block_idx())
#define blockDim (pyhipattn_block_dim())
#define gridDim (pyhipattn_grid_dim())

// Make this workgroup's LDS writes visible, wait for every wave, then see the others' writes.
static __device__ __forceinline__ void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#endif
