/* hopper_sanitize.c: the hopper kernels on small problems, checked against a float64 CPU
 * reference, with no framework in the process -- so compute-sanitizer starts in seconds.
 *
 *   gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
 *   /tmp/hopper_sanitize kernels/co/sm_90a/hopper_fwd.cubin <shared d64> <shared d128> [<block_m d64> <threads d64> [<shared d128_bn176>]]
 *   /tmp/hopper_sanitize kernels/co/sm_90a/hopper_fwd.cubin KERNEL:SHARED:BLOCK_M:THREADS:D[:MAPS_OFFSET[:BLOCK_N:O_ROWS]] ...
 *   compute-sanitizer --tool memcheck|racecheck|synccheck /tmp/hopper_sanitize ...
 *   /tmp/hopper_sanitize --convert < float32s   (the bf16 / fp16 conversions alone, for the CPU test)
 *
 * The shared-memory sizes are the manifest's ("shared" of fwd_bf16_d64 / fwd_bf16_d128), and so are
 * the d64 kernel's block_m / threads (default 128 / 384; the d128 kernel's are 128 / 384), and, when the
 * cubin has them, the 176-key d128 kernel's shared memory (its cases run when it is given).  Cases
 * (bf16 or fp16, below): causal and not, GQA / MQA, ragged tails, sq > sk causal (rows with no key), a small
 * persistent grid (3 CTAs for many tiles).  The second form names each kernel with its manifest's shared
 * memory, block_m, threads and head dim (any kernel, e.g. hopper_fwd_bf16_d96 / _d256; a kernel whose name has _fp16_
 * gets fp16 inputs, out and reference, every other one bf16).
 * Sliding windows (issue11g): every kernel also runs three window cases (causal with a left edge on a persistent
 * grid, (left, right) with sq < sk, (0, 0) with sq > sk: rows and tiles that see no key); a kernel whose name ends
 * in _softcap runs every case with softcap 5 (its args' softcap_log2, the reference's softcap * tanh(s / softcap)).
 * Varlen (issue11h): a kernel whose name ends in _varlen (_softcap_varlen: with softcap 5) runs run_case_varlen's packed
 * cases instead (ragged sequences, 0 query / 0 key tokens, causal, windows, a small persistent grid), its out checked
 * also for writes outside the packed rows (guard rows either side).  MAPS_OFFSET (issue11z, a kernel of a PARAM_MAPS_C2=1
 * build, manifest param_maps' offset): the kernel takes hopper_fwd_maps as a second parameter at that kernarg offset;
 * the harness makes its Q / K / V / O maps with the driver's cuTensorMapEncodeTiled (u16, 128-byte swizzle, boxes of
 * block_m / 128 / 128 / 16 rows: the _c2 kernels'; BLOCK_N and O_ROWS, issue11aa's PARAM_MAPS_ALL kernels: K / V boxes of
 * BLOCK_N rows, O boxes of O_ROWS rows, 0: no O map, zeros) and launches with one kernarg buffer.  Exit 0 when every case is within 1e-2 relative
 * Frobenius error and every LSE within 2e-3.  The driver is opened with dlopen (no CUDA
 * toolkit needed to build).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopper_args.h"

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef unsigned long long CUdeviceptr;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(CUdevice*, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoad)(CUmodule*, const char*);
static CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
static CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
static CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
static CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  void*, void**, void**);
static CUresult (*cuCtxSynchronize)(void);
static CUresult (*cuTensorMapEncodeTiled)(void*, int, unsigned, void*, const unsigned long long*, const unsigned long long*,
                                          const unsigned*, const unsigned*, int, int, int, int);

#define CK(x)                                                                     \
    do {                                                                          \
        CUresult r_ = (x);                                                        \
        if (r_) { fprintf(stderr, "%s failed: %d (line %d)\n", #x, r_, __LINE__); exit(2); } \
    } while (0)

static void* sym(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    if (!p) { fprintf(stderr, "libcuda has no %s\n", name); exit(2); }
    return p;
}

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
static float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* IEEE binary16, round to nearest even (the harness's inputs are finite and far from the subnormal range) */
static uint16_t to_fp16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                  /* rounds past 65504: inf */
    if (mag < 0x38800000u) {                                                    /* below 2^-14: subnormal or 0 */
        float a = fabsf(f) * 16777216.0f;                                       /* units of 2^-24 */
        return (uint16_t)(sign | (uint32_t)nearbyintf(a));
    }
    uint32_t h = ((mag >> 13) - (112u << 10));                                  /* rebias 127 -> 15 */
    const uint32_t rest = mag & 0x1fffu;
    h += rest > 0x1000u || (rest == 0x1000u && (h & 1));
    return (uint16_t)(sign | h);
}
static float from_fp16(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
    if (e == 0) { float f = ldexpf((float)m, -24); return sign ? -f : f; }
    uint32_t u = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static int g_fp16;   /* 1: the kernel's inputs and out are fp16 (its name has _fp16_), else bf16 */
static uint16_t to_elem(float f) { return g_fp16 ? to_fp16(f) : to_bf16(f); }
static float from_elem(uint16_t h) { return g_fp16 ? from_fp16(h) : from_bf16(h); }
static float randn(uint64_t* s) {
    double u1, u2;
    *s = *s * 6364136223846793005ull + 1442695040888963407ull; u1 = ((*s >> 11) + 1.0) / 9007199254740994.0;
    *s = *s * 6364136223846793005ull + 1442695040888963407ull; u2 = ((*s >> 11) + 0.5) / 9007199254740992.0;
    return (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
}

#define MAX_KERNELS 32
static int g_bm[MAX_KERNELS] = {128, 128, 128}, g_threads[MAX_KERNELS] = {384, 384, 384};

static int g_kind;   /* 0: d64, 1: d128, 2: d128_bn176, or the i-th KERNEL:... argument (block_m / threads of that kernel) */
static int g_maps_off[MAX_KERNELS];   /* > 0: the kernel takes hopper_fwd_maps at this kernarg offset (PARAM_MAPS_C2) */
static int g_maps_bn[MAX_KERNELS], g_maps_orows[MAX_KERNELS];   /* its K / V and O box rows (O 0: no O map) */
static int g_head_dim;                /* the current kernel's head dim (its maps' dim 0) */

/* the driver's map of a (batch, seq, heads, d) tensor as hopper_fwd.cu's tmap_make makes it (strides in elements) */
static void encode_map(unsigned char* dst, uint64_t addr, int d, int seq, int heads, int batch, int64_t seq_stride,
                       int64_t head_stride, int64_t batch_stride, int rows) {
    _Alignas(64) unsigned char m[128];
    const unsigned long long dims[4] = {(unsigned long long)d, (unsigned long long)seq, (unsigned long long)heads,
                                        (unsigned long long)batch};
    const unsigned long long strides[3] = {seq > 1 ? 2ull * (unsigned long long)seq_stride : 16,
                                           heads > 1 ? 2ull * (unsigned long long)head_stride : 16,
                                           batch > 1 ? 2ull * (unsigned long long)batch_stride : 16};
    const unsigned box[4] = {64, (unsigned)rows, 1, 1}, estr[4] = {1, 1, 1, 1};
    /* CU_TENSOR_MAP_DATA_TYPE_UINT16, INTERLEAVE_NONE, SWIZZLE_128B, L2_PROMOTION_NONE, FLOAT_OOB_FILL_NONE */
    CK(cuTensorMapEncodeTiled(m, 1, 4, (void*)(uintptr_t)addr, dims, strides, box, estr, 0, 3, 0, 0));
    memcpy(dst, m, 128);
}

static double g_softcap;   /* > 0: the kernel is a _softcap one */

/* the scale fields of a (softmax scale 1 / sqrt(d); a _softcap kernel: tanh(scale * s / softcap), then softmax scaled
   by softcap); returns the softmax scale */
static double set_scales(struct hopper_fwd_args* a, int d) {
    const double scale = 1.0 / sqrt((double)d);
    a->scale_log2 = (float)(scale * 1.4426950408889634);
    if (g_softcap > 0) {
        a->scale_log2 = (float)(g_softcap * 1.4426950408889634);
        a->softcap_log2 = (float)(2 * 1.4426950408889634 * scale / g_softcap);
    }
    return scale;
}

/* HOPPER_KSPLIT (issue11aj, manifest "ksplit"): the partials' slots of the key-split last round after the tensor maps'
   scratch, per CTA (two pieces x two warpgroups x 68 x 128 fp32) */
#define KSPLIT_BYTES_PER_CTA 139264
/* launch fn over min(tiles, grid_cap) CTAs (into *grid) and wait.  Tensor-map scratch of TMA kernels: 128 + 512 bytes
   per CTA (384 used, 512 with the O map of HOPPER_EPI_TMA_D128; unused by the others), after 256 zeroed bytes as the
   runtime's workspace has (the dynamic causal schedule counts in the two int32 below tmaps and must leave them at 0).
   Returns 1 when those bytes are back at 0. */
static int launch(CUfunction fn, struct hopper_fwd_args* a, int tiles, int grid_cap, int threads, int shared,
                  unsigned* grid) {
    *grid = (unsigned)(tiles < grid_cap ? tiles : grid_cap);
    CUdeviceptr dt;
    int zeros[64] = {0}, after[64];
    CK(cuMemAlloc(&dt, 256 + 128 + (512 + KSPLIT_BYTES_PER_CTA) * (size_t)*grid));
    CK(cuMemcpyHtoD(dt, zeros, sizeof zeros));
    a->tmaps = dt + 256;
    if (g_maps_off[g_kind] > 0) {   /* hopper_fwd_args, zeros, then the four maps (hopper_fwd_maps), one buffer */
        _Alignas(64) unsigned char buf[1024];
        size_t off = (size_t)g_maps_off[g_kind], size = off + 512;
        if (off < sizeof *a || size > sizeof buf) { fprintf(stderr, "bad maps offset %zu\n", off); exit(2); }
        memset(buf, 0, size);
        memcpy(buf, a, sizeof *a);
        const int d = g_head_dim, hk = a->heads_q / a->group;
        encode_map(buf + off, a->q, d, a->seqlen_q, a->heads_q, a->batch, a->q_seq_stride, a->q_head_stride,
                   a->q_batch_stride, g_bm[g_kind]);
        encode_map(buf + off + 128, a->k, d, a->seqlen_k, hk, a->batch, a->k_seq_stride, a->k_head_stride,
                   a->k_batch_stride, g_maps_bn[g_kind]);
        encode_map(buf + off + 256, a->v, d, a->seqlen_k, hk, a->batch, a->v_seq_stride, a->v_head_stride,
                   a->v_batch_stride, g_maps_bn[g_kind]);
        if (g_maps_orows[g_kind] > 0)
            encode_map(buf + off + 384, a->out, d, a->seqlen_q, a->heads_q, a->batch, a->o_seq_stride, a->o_head_stride,
                       a->o_batch_stride, g_maps_orows[g_kind]);
        /* CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_END */
        void* extra[] = {(void*)1, buf, (void*)2, &size, (void*)0};
        CK(cuLaunchKernel(fn, *grid, 1, 1, threads, 1, 1, (unsigned)shared, 0, 0, extra));
    } else {
        void* params[] = {a};
        CK(cuLaunchKernel(fn, *grid, 1, 1, threads, 1, 1, (unsigned)shared, 0, params, 0));
    }
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(after, dt, sizeof after));
    CK(cuMemFree(dt));
    return !memcmp(after, zeros, sizeof zeros);
}

static int run_case_w(CUfunction fn, int shared, int b, int sq, int sk, int hq, int hk, int d, int causal, int grid_cap,
                      int wl, int wr);
static int run_case(CUfunction fn, int shared, int b, int sq, int sk, int hq, int hk, int d, int causal, int grid_cap) {
    return run_case_w(fn, shared, b, sq, sk, hq, hk, d, causal, grid_cap, -1, causal ? 0 : -1);
}

/* The float64 reference of one query row i (of sq, against sk keys) and its error against the kernel's: qi is the row's
   d elements, kj / vj(j) = kv + j * kv_stride the key / value rows of its KV head, o its d outputs, lse its LSE; p holds
   sk scores.  Adds the squared output error and the reference's square to *num / *den, and raises *lerr to the LSE
   error (INFINITY for a NaN output, a NaN LSE, or one infinite where the reference is not, or the other way round). */
static void ref_row(const uint16_t* qi, const uint16_t* k, const uint16_t* v, size_t kv_stride, int i, int sq, int sk,
                    int d, int causal, int wl, int wr, double scale, const uint16_t* o, float lse, double* p, double* num,
                    double* den, double* lerr) {
    double m = -INFINITY, l = 0;
    for (int j = 0; j < sk; ++j) {
        p[j] = -INFINITY;
        if (causal && j > i + sk - sq) continue;
        if (wr >= 0 && j > i + sk - sq + wr) continue;
        if (wl >= 0 && j < i + sk - sq - wl) continue;
        const uint16_t* kj = k + (size_t)j * kv_stride;
        double x = 0;
        for (int c = 0; c < d; ++c) x += (double)from_elem(qi[c]) * from_elem(kj[c]);
        p[j] = x * scale;
        if (g_softcap > 0) p[j] = g_softcap * tanh(p[j] / g_softcap);
        if (p[j] > m) m = p[j];
    }
    for (int j = 0; j < sk; ++j) l += p[j] == -INFINITY ? 0 : exp(p[j] - m);
    const double ref_lse = l > 0 ? m + log(l) : -INFINITY;
    const int inf_differs = isinf(ref_lse) != isinf((double)lse);
    if (inf_differs || isnan(lse)) *lerr = INFINITY;
    else if (!isinf(ref_lse) && fabs(lse - ref_lse) > *lerr) *lerr = fabs(lse - ref_lse);
    for (int c = 0; c < d; ++c) {
        double acc = 0;
        for (int j = 0; j < sk && l > 0; ++j)
            if (p[j] != -INFINITY) acc += exp(p[j] - m) / l * from_elem(v[(size_t)j * kv_stride + c]);
        const double got = from_elem(o[c]);
        *num += isnan(got) ? INFINITY : (got - acc) * (got - acc);
        *den += acc * acc;
    }
}

/* window (wl, wr), -1 = unbounded; causal needs wr == 0 */
static int run_case_w(CUfunction fn, int shared, int b, int sq, int sk, int hq, int hk, int d, int causal, int grid_cap,
                      int wl, int wr) {
    const int bm = g_bm[g_kind], threads = g_threads[g_kind];
    size_t nq = (size_t)b * sq * hq * d, nk = (size_t)b * sk * hk * d;
    uint16_t *q = malloc(nq * 2), *k = malloc(nk * 2), *v = malloc(nk * 2), *o = malloc(nq * 2);
    float* lse = malloc((size_t)b * hq * sq * 4);
    uint64_t seed = 1234 + sq * 7 + sk * 13 + d;
    for (size_t i = 0; i < nq; ++i) q[i] = to_elem(randn(&seed));
    for (size_t i = 0; i < nk; ++i) k[i] = to_elem(randn(&seed));
    for (size_t i = 0; i < nk; ++i) v[i] = to_elem(randn(&seed));
    CUdeviceptr dq, dk, dv, dout, dl;
    CK(cuMemAlloc(&dq, nq * 2)); CK(cuMemAlloc(&dk, nk * 2)); CK(cuMemAlloc(&dv, nk * 2));
    CK(cuMemAlloc(&dout, nq * 2)); CK(cuMemAlloc(&dl, (size_t)b * hq * sq * 4));
    CK(cuMemcpyHtoD(dq, q, nq * 2)); CK(cuMemcpyHtoD(dk, k, nk * 2)); CK(cuMemcpyHtoD(dv, v, nk * 2));
    struct hopper_fwd_args a;
    memset(&a, 0, sizeof a);
    a.q = dq; a.k = dk; a.v = dv; a.out = dout; a.lse = dl;
    a.q_batch_stride = (int64_t)sq * hq * d; a.q_seq_stride = hq * d; a.q_head_stride = d;
    a.k_batch_stride = (int64_t)sk * hk * d; a.k_seq_stride = hk * d; a.k_head_stride = d;
    a.v_batch_stride = a.k_batch_stride; a.v_seq_stride = a.k_seq_stride; a.v_head_stride = d;
    a.o_batch_stride = a.q_batch_stride; a.o_seq_stride = a.q_seq_stride; a.o_head_stride = d;
    a.seqlen_q = sq; a.seqlen_k = sk; a.heads_q = hq; a.group = hq / hk; a.batch = b;
    a.m_blocks = (sq + bm - 1) / bm; a.causal = causal;
    a.window_left = wl;
    a.window_right = wr;
    const double scale = set_scales(&a, d);
    unsigned grid;
    const int counters_ok = launch(fn, &a, a.m_blocks * hq * b, grid_cap, threads, shared, &grid);
    CK(cuMemcpyDtoH(o, dout, nq * 2));
    CK(cuMemcpyDtoH(lse, dl, (size_t)b * hq * sq * 4));
    double num = 0, den = 0, lerr = 0;
    double* p = malloc(sizeof(double) * sk);
    for (int bi = 0; bi < b; ++bi)
        for (int h = 0; h < hq; ++h) {
            const size_t kv0 = ((size_t)bi * sk * hk + h / (hq / hk)) * d;
            for (int i = 0; i < sq; ++i) {
                const size_t qo = (((size_t)bi * sq + i) * hq + h) * d;
                ref_row(q + qo, k + kv0, v + kv0, (size_t)hk * d, i, sq, sk, d, causal, wl, wr, scale, o + qo,
                        lse[((size_t)bi * hq + h) * sq + i], p, &num, &den, &lerr);
            }
        }
    double err = sqrt(num / (den > 0 ? den : 1));
    int ok = err <= 1e-2 && lerr <= 2e-3 && counters_ok;
    printf("%s %s b%d sq%d sk%d h%d/%d d%d bm%d causal=%d window=(%d,%d) softcap=%g grid=%u: rel err %.2e, lse err %.2e%s\n",
           ok ? "ok  " : "FAIL", g_fp16 ? "fp16" : "bf16", b, sq, sk, hq, hk, d, bm, causal, wl, wr, g_softcap, grid, err, lerr,
           counters_ok ? "" : ", counters below tmaps not reset to 0");
    CK(cuMemFree(dq)); CK(cuMemFree(dk)); CK(cuMemFree(dv)); CK(cuMemFree(dout)); CK(cuMemFree(dl));
    free(q); free(k); free(v); free(o); free(lse); free(p);
    return ok;
}

/* varlen (the _varlen kernels): n sequences of lens_q[i] queries / lens_k[i] keys packed into (total, heads, d) tensors;
   out sits between guard rows (set to 0x7fff, NaN in both types) that must stay untouched; lse is (hq, total_q) */
static int run_case_varlen(CUfunction fn, int shared, int n, const int* lens_q, const int* lens_k, int hq, int hk, int d,
                           int causal, int grid_cap, int wl, int wr) {
    const int bm = g_bm[g_kind], threads = g_threads[g_kind], G = 64;
    int cq[17], ck[17], mq = 0, mk = 0;
    cq[0] = ck[0] = 0;
    for (int i = 0; i < n; ++i) {
        cq[i + 1] = cq[i] + lens_q[i];
        ck[i + 1] = ck[i] + lens_k[i];
        if (lens_q[i] > mq) mq = lens_q[i];
        if (lens_k[i] > mk) mk = lens_k[i];
    }
    const int tq = cq[n], tk = ck[n];
    const size_t row = (size_t)hq * d, nq = (size_t)tq * row, nk = (size_t)tk * hk * d, no = nq + 2 * G * row;
    uint16_t *q = malloc(nq * 2 + 2), *k = malloc(nk * 2 + 2), *v = malloc(nk * 2 + 2), *o = malloc(no * 2);
    float* lse = malloc((size_t)hq * tq * 4 + 4);
    uint64_t seed = 4321 + tq * 7 + tk * 13 + d;
    for (size_t i = 0; i < nq; ++i) q[i] = to_elem(randn(&seed));
    for (size_t i = 0; i < nk; ++i) k[i] = to_elem(randn(&seed));
    for (size_t i = 0; i < nk; ++i) v[i] = to_elem(randn(&seed));
    for (size_t i = 0; i < no; ++i) o[i] = 0x7fff;
    CUdeviceptr dq, dk, dv, dout, dl, dcq, dck;
    CK(cuMemAlloc(&dq, nq * 2 + 2)); CK(cuMemAlloc(&dk, nk * 2 + 2)); CK(cuMemAlloc(&dv, nk * 2 + 2));
    CK(cuMemAlloc(&dout, no * 2)); CK(cuMemAlloc(&dl, (size_t)hq * tq * 4 + 4));
    CK(cuMemAlloc(&dcq, 4 * (n + 1))); CK(cuMemAlloc(&dck, 4 * (n + 1)));
    CK(cuMemcpyHtoD(dq, q, nq * 2 + 2)); CK(cuMemcpyHtoD(dk, k, nk * 2 + 2)); CK(cuMemcpyHtoD(dv, v, nk * 2 + 2));
    CK(cuMemcpyHtoD(dout, o, no * 2));
    CK(cuMemcpyHtoD(dcq, cq, 4 * (n + 1))); CK(cuMemcpyHtoD(dck, ck, 4 * (n + 1)));
    struct hopper_fwd_args a;
    memset(&a, 0, sizeof a);
    a.q = dq; a.k = dk; a.v = dv; a.out = dout + G * row * 2; a.lse = dl;
    a.q_seq_stride = hq * d; a.q_head_stride = d;
    a.k_seq_stride = hk * d; a.k_head_stride = d; a.v_seq_stride = hk * d; a.v_head_stride = d;
    a.o_seq_stride = hq * d; a.o_head_stride = d;
    a.seqlen_q = mq; a.seqlen_k = mk; a.heads_q = hq; a.group = hq / hk; a.batch = n;
    a.m_blocks = (mq + bm - 1) / bm; a.causal = causal;
    a.total_q = tq; a.total_k = tk; a.cu_seqlens_q = dcq; a.cu_seqlens_k = dck;
    a.window_left = wl;
    a.window_right = wr;
    const double scale = set_scales(&a, d);
    unsigned grid;
    const int counters_ok = launch(fn, &a, a.m_blocks * hq * n, grid_cap, threads, shared, &grid);
    int ok = counters_ok, guards = 1;
    CK(cuMemcpyDtoH(o, dout, no * 2));
    CK(cuMemcpyDtoH(lse, dl, (size_t)hq * tq * 4));
    for (size_t i = 0; i < G * row; ++i) guards &= o[i] == 0x7fff && o[no - 1 - i] == 0x7fff;
    const uint16_t* out = o + G * row;
    double num = 0, den = 0, lerr = 0;
    double* p = malloc(sizeof(double) * (mk + 1));
    for (int s = 0; s < n; ++s) {
        const int sq = lens_q[s], sk = lens_k[s];
        for (int h = 0; h < hq; ++h) {
            const size_t kv0 = ((size_t)ck[s] * hk + h / (hq / hk)) * d;
            for (int i = 0; i < sq; ++i) {
                const size_t qo = (size_t)(cq[s] + i) * row + (size_t)h * d;
                ref_row(q + qo, k + kv0, v + kv0, (size_t)hk * d, i, sq, sk, d, causal, wl, wr, scale, out + qo,
                        lse[(size_t)h * tq + cq[s] + i], p, &num, &den, &lerr);
            }
        }
    }
    const double err = sqrt(num / (den > 0 ? den : 1));
    ok = ok && guards && err <= 1e-2 && lerr <= 2e-3;
    printf("%s %s varlen n%d total %d x %d (max %d / %d) h%d/%d d%d bm%d causal=%d window=(%d,%d) softcap=%g grid=%u: rel err %.2e, "
           "lse err %.2e%s%s\n", ok ? "ok  " : "FAIL", g_fp16 ? "fp16" : "bf16", n, tq, tk, mq, mk, hq, hk, d, bm, causal, wl, wr,
           g_softcap, grid, err, lerr, guards ? "" : ", guard rows of out written", counters_ok ? "" : ", counters not reset");
    CK(cuMemFree(dq)); CK(cuMemFree(dk)); CK(cuMemFree(dv)); CK(cuMemFree(dout)); CK(cuMemFree(dl));
    CK(cuMemFree(dcq)); CK(cuMemFree(dck));
    free(q); free(k); free(v); free(o); free(lse); free(p);
    return ok;
}

static int run_varlen_cases(CUfunction fn, int shared, int d) {
    static const int q1[] = {200, 0, 129, 1, 333, 64}, k1[] = {300, 5, 0, 260, 333, 64};
    static const int q2[] = {500, 70, 0, 257}, k2[] = {150, 33, 9, 600};
    int bad = 0;
    bad += !run_case_varlen(fn, shared, 6, q1, k1, 4, 2, d, 1, 1 << 30, -1, 0);
    bad += !run_case_varlen(fn, shared, 6, q1, k1, 4, 1, d, 0, 3, -1, -1);
    bad += !run_case_varlen(fn, shared, 4, q2, k2, 4, 2, d, 1, 5, -1, 0);
    bad += !run_case_varlen(fn, shared, 4, q2, k2, 2, 2, d, 1, 5, 100, 0);
    bad += !run_case_varlen(fn, shared, 4, q2, k2, 2, 2, d, 0, 1 << 30, 64, 32);
    return bad;
}

int main(int argc, char** argv) {
    if (argc == 2 && !strcmp(argv[1], "--convert")) {   /* float32 in on stdin -> (bf16, fp16) bits out: tests/test_hopper_sanitize_harness.py */
        float f;
        while (fread(&f, 4, 1, stdin) == 1) {
            const uint16_t h[2] = {to_bf16(f), to_fp16(f)};
            const float back[2] = {from_bf16(h[0]), from_fp16(h[1])};
            if (fwrite(h, 2, 2, stdout) != 2 || fwrite(back, 4, 2, stdout) != 2) return 1;
        }
        return 0;
    }
    const int specs = argc >= 3 && strchr(argv[2], ':') != NULL;   /* KERNEL:SHARED:BLOCK_M:THREADS:D ... */
    if (!specs && argc != 4 && argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s hopper_fwd.cubin <shared d64> <shared d128> [<block_m d64> <threads d64> [<shared d128_bn176>]]\n", argv[0]);
        return 2;
    }
    if (specs && argc - 2 > MAX_KERNELS) { fprintf(stderr, "at most %d kernels\n", MAX_KERNELS); return 2; }
    if (!specs && argc >= 6) {
        g_bm[0] = atoi(argv[4]);
        g_threads[0] = atoi(argv[5]);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);   /* each case's line reaches a log even if a later case hangs */
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { fprintf(stderr, "no libcuda.so.1: %s\n", dlerror()); return 2; }
    *(void**)&cuInit = sym(lib, "cuInit");
    *(void**)&cuDeviceGet = sym(lib, "cuDeviceGet");
    *(void**)&cuDevicePrimaryCtxRetain = sym(lib, "cuDevicePrimaryCtxRetain");
    *(void**)&cuCtxSetCurrent = sym(lib, "cuCtxSetCurrent");
    *(void**)&cuModuleLoad = sym(lib, "cuModuleLoad");
    *(void**)&cuTensorMapEncodeTiled = sym(lib, "cuTensorMapEncodeTiled");
    *(void**)&cuModuleGetFunction = sym(lib, "cuModuleGetFunction");
    *(void**)&cuFuncSetAttribute = sym(lib, "cuFuncSetAttribute");
    *(void**)&cuMemAlloc = sym(lib, "cuMemAlloc_v2");
    *(void**)&cuMemFree = sym(lib, "cuMemFree_v2");
    *(void**)&cuMemcpyHtoD = sym(lib, "cuMemcpyHtoD_v2");
    *(void**)&cuMemcpyDtoH = sym(lib, "cuMemcpyDtoH_v2");
    *(void**)&cuLaunchKernel = sym(lib, "cuLaunchKernel");
    *(void**)&cuCtxSynchronize = sym(lib, "cuCtxSynchronize");
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoad(&mod, argv[1]));
    int shared[MAX_KERNELS] = {0}, dims[MAX_KERNELS] = {64, 128, 128};
    char names[MAX_KERNELS][128] = {"hopper_fwd_bf16_d64", "hopper_fwd_bf16_d128", "hopper_fwd_bf16_d128_bn176"};
    int nk = argc == 7 ? 3 : 2;
    if (specs) {
        nk = argc - 2;
        for (int i = 0; i < nk; ++i) {
            char* c = strchr(argv[2 + i], ':');
            g_maps_bn[i] = 128;   /* (the _c2 kernels' K / V and O boxes where the spec names none) */
            g_maps_orows[i] = 16;
            if (!c || c - argv[2 + i] >= 127 ||
                sscanf(c + 1, "%d:%d:%d:%d:%d:%d:%d", &shared[i], &g_bm[i], &g_threads[i], &dims[i], &g_maps_off[i],
                       &g_maps_bn[i], &g_maps_orows[i]) < 4) {
                fprintf(stderr, "bad kernel spec %s (KERNEL:SHARED:BLOCK_M:THREADS:D[:MAPS_OFFSET[:BLOCK_N:O_ROWS]])\n",
                        argv[2 + i]);
                return 2;
            }
            memcpy(names[i], argv[2 + i], (size_t)(c - argv[2 + i]));
            names[i][c - argv[2 + i]] = 0;
        }
    } else {
        shared[0] = atoi(argv[2]);
        shared[1] = atoi(argv[3]);
        shared[2] = argc == 7 ? atoi(argv[6]) : 0;
    }
    int bad = 0;
    for (int i = 0; i < nk; ++i) {
        g_kind = i;
        printf("%s:\n", names[i]);
        CUfunction fn;
        CK(cuModuleGetFunction(&fn, mod, names[i]));
        CK(cuFuncSetAttribute(fn, 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */, shared[i]));
        const int d = dims[i];
        g_head_dim = d;
        const size_t len = strlen(names[i]);
        g_fp16 = strstr(names[i], "_fp16_") != NULL;
        g_softcap = len > 8 && !strcmp(names[i] + len - 8, "_softcap") ? 5.0 : 0.0;
        if (len > 7 && !strcmp(names[i] + len - 7, "_varlen")) {   /* packed sequences: run_case_varlen's cases only */
            g_softcap = strstr(names[i], "_softcap_varlen") ? 5.0 : 0.0;
            bad += run_varlen_cases(fn, shared[i], d);
            continue;
        }
        bad += !run_case(fn, shared[i], 2, 200, 300, 4, 2, d, 1, 1 << 30);
        bad += !run_case(fn, shared[i], 1, 300, 130, 4, 1, d, 0, 3);
        bad += !run_case(fn, shared[i], 1, 70, 33, 2, 2, d, 1, 1 << 30);
        bad += !run_case(fn, shared[i], 1, 1, 129, 8, 8, d, 0, 2);
        bad += !run_case(fn, shared[i], 1, 260, 260, 2, 1, d, 0, 1);
        bad += !run_case(fn, shared[i], 1, 200, 530, 2, 2, d, 0, 2);   /* 530 keys: ragged 176-key tail */
        if (specs) bad += !run_case(fn, shared[i], 1, 333, 333, 2, 1, d, 1, 2);   /* causal, persistent, ragged */
        /* causal on small persistent grids (several tiles per CTA: the dynamic schedule, its counter reset),
           and sq > sk (tiles no row of which sees a key) */
        bad += !run_case(fn, shared[i], 2, 600, 600, 4, 2, d, 1, 5);
        bad += !run_case(fn, shared[i], 1, 500, 150, 4, 4, d, 1, 3);
        /* non-causal, 12 tiles of 192 rows on 11 CTAs: the d64 tail split (HOPPER_TAIL_SPLIT_D64), pieces past sq */
        bad += !run_case(fn, shared[i], 1, 1000, 300, 2, 1, d, 0, 11);
        /* non-causal, 10 tiles of 128 rows on 3 CTAs, 2000 keys (ragged), GQA: HOPPER_KSPLIT's key-split last round
           (the three CTAs share the last tile's 16 / 12 key blocks; the _fk / _bn176 kernels of a KSPLIT=1 build) */
        if (d == 128 && (strstr(names[i], "_fk") || strstr(names[i], "_bn176")) && !g_softcap)
            bad += !run_case(fn, shared[i], 1, 640, 2000, 2, 1, d, 0, 3);
        /* sliding windows: causal with a left edge (several tiles per CTA), (left, right) with sq < sk, and (0, 0)
           with sq > sk (rows and whole tiles that see no key) */
        bad += !run_case_w(fn, shared[i], 2, 600, 600, 4, 2, d, 1, 5, 100, 0);
        bad += !run_case_w(fn, shared[i], 1, 300, 500, 2, 2, d, 0, 3, 64, 32);
        bad += !run_case_w(fn, shared[i], 1, 500, 150, 4, 4, d, 0, 1 << 30, 0, 0);
    }
    printf("hopper sanitize cases: %d failure(s)\n", bad);
    return bad ? 1 : 0;
}
