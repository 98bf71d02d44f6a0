// add.cu: the runtime's smoke-test kernels, one source for NVIDIA (nvcc) and AMD (clang-22).
//
//   add_kernel:         out[i] = x[i] + alpha * y[i] for i < n (float32)
//   add_shared_kernel:  the same, after filling and reading back `stage_words` floats of
//                       dynamic shared memory, so a launch asking for more than 48 KiB checks
//                       the opt-in (cuFuncSetAttribute) and that the whole region is usable.
//
// The parameters are separate (not one struct) so that the generic door can pack them
// positionally from any metadata, cubins included; their layout is exactly `struct add_args`
// of pyhipattn_kernargs.h (x @0, y @8, out @16, n @24, alpha @28; 32 bytes), which
// tests/gpu/test_runtime_gpu.py checks with kernargs.check_layout.  Built by
// scripts/build/common.sh.
#include "gpu_compat.h"

extern "C" __global__ void add_kernel(const float* x, const float* y, float* out, uint32_t n, float alpha) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + alpha * y[i];
}

extern "C" __global__ void add_shared_kernel(const float* x, const float* y, float* out, uint32_t n, float alpha,
                                             uint32_t stage_words) {
    extern __shared__ float stage[];
    uint32_t t = threadIdx.x;
    for (uint32_t j = t; j < stage_words; j += blockDim.x) stage[j] = (float)j;
    __syncthreads();
    // Read a word another thread wrote, from the far end of the region: contributes exactly 0.
    float zero = 0.0f;
    if (t < stage_words) {
        uint32_t k = stage_words - 1 - t;
        zero = stage[k] - (float)k;
    }
    uint32_t i = blockIdx.x * blockDim.x + t;
    if (i < n) out[i] = x[i] + alpha * y[i] + zero;
}
