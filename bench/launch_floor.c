/* The CUDA driver's own cost per cuLaunchKernel on this machine, from C: the floor under any
 * Python binding.  Loads a cubin, launches one of its kernels with a kernarg buffer through
 * `extra` (as pyhipattn does), and prints the p50 host time per call with the GPU idle (a
 * context synchronize before each call, outside the clock) and back to back.
 *
 *   nvcc -O2 -o /tmp/launch_floor bench/launch_floor.c -lcuda
 *   /tmp/launch_floor kernels/co/sm_90a/common_add.cubin add_kernel 64
 *
 * The kernarg bytes are all zero (for common_add's add_kernel: n = 0, so it returns at once).
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorName(r_, &s_); \
    fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s CUBIN KERNEL KERNARG_BYTES\n", argv[0]); return 2; }
    enum { N = 2000 };
    static double t[N];
    char args[4096] = {0};
    size_t size = (size_t)atoi(argv[3]);
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction f;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoad(&mod, argv[1]));
    CHECK(cuModuleGetFunction(&f, mod, argv[2]));
    for (int mode = 0; mode < 2; mode++) {
        for (int i = 0; i < N; i++) {
            if (mode == 0) CHECK(cuCtxSynchronize());
            double t0 = now_us();
            CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, NULL, extra));
            t[i] = now_us() - t0;
        }
        CHECK(cuCtxSynchronize());
        qsort(t, N, sizeof t[0], cmp);
        printf("C cuLaunchKernel (%s): p50 %.2f us, p10 %.2f us\n", mode == 0 ? "GPU idle" : "back to back", t[N / 2], t[N / 10]);
    }
    return 0;
}
