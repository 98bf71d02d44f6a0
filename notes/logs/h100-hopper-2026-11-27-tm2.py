"""A pure-Python CUtensorMap encoder for the hopper kernels' map shape (rank 4, 16-bit elements, box 64 x rows x 1 x 1,
128-byte swizzle, no L2 promotion, zero fill), from call tm's field dump, checked byte for byte against
cuTensorMapEncodeTiled over a random sweep; also times the Python encoder."""
import os, random, struct, sys, time
from cuda.bindings import driver as cu
cu.cuInit(0); _, dev = cu.cuDeviceGet(0); _, ctx = cu.cuDevicePrimaryCtxRetain(dev); cu.cuCtxSetCurrent(ctx)
T = cu.CUtensorMapDataType
CODES = {"bf16": (T.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 10), "fp16": (T.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 6),
         "u16": (T.CU_TENSOR_MAP_DATA_TYPE_UINT16, 1)}

def ours(addr, dt, dims, strides, rows):
    return struct.pack("<QI3I8x4I7xBB7xI4xI52x", addr, (3 << 4) | (CODES[dt][1] << 7) | (3 << 13),
                       *(s >> 4 for s in strides), *(x - 1 for x in dims), 63, rows - 1, 64 * rows * 2, 0x400)

def driver(addr, dt, dims, strides, rows):
    err, m = cu.cuTensorMapEncodeTiled(CODES[dt][0], 4, addr, [cu.cuuint64_t(x) for x in dims],
                                       [cu.cuuint64_t(x) for x in strides], [cu.cuuint32_t(x) for x in (64, rows, 1, 1)],
                                       [cu.cuuint32_t(1)] * 4, cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
                                       cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
                                       cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                       cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    return None if err != cu.CUresult.CUDA_SUCCESS else b"".join(int(w).to_bytes(8, "little") for w in m.opaque)

assert len(ours(0, "bf16", (64, 1, 1, 1), (16, 16, 16), 128)) == 128
rng = random.Random(11)
n = bad = refused = wide = 0
first = []
for i in range(3000):
    d = rng.choice((64, 96, 128, 256))
    seq, heads, batch = rng.choice((1, 7, 512, 4096, 40000, 131072, 1 << 20)), rng.randint(1, 128), rng.randint(1, 64)
    pack = rng.random() < 0.3   # packed qkv-like strides (heads stride bigger than d), else contiguous
    hs = d * (3 if pack else 1) * 2
    ss = hs * heads
    bs = ss * seq + (16 * rng.randint(0, 1000) if rng.random() < 0.2 else 0)
    strides = [max(16, ss), max(16, hs), max(16, bs)]
    strides = [s // 16 * 16 for s in strides]
    addr = rng.randrange(1 << 20, 1 << 47) // 16 * 16
    rows = rng.choice((64, 128, 176, 192))
    dt = rng.choice(tuple(CODES))
    if any(x >> 4 >= 1 << 32 for x in strides):   # (>= 64 GiB strides: beyond the 32-bit fields read so far)
        wide += 1
        continue
    want = driver(addr, dt, (d, seq, heads, batch), strides, rows)
    if want is None:
        refused += 1
        continue
    n += 1
    got = ours(addr, dt, (d, seq, heads, batch), strides, rows)
    if got != want:
        bad += 1
        if len(first) < 5:
            first.append((dt, d, seq, heads, batch, strides, rows, [i for i in range(128) if got[i] != want[i]], want.hex()))
t0 = time.perf_counter()
for i in range(20000):
    ours(0x7F0000000000 + 16 * i, "bf16", (64, 512, 16, 32), (2048, 128, 1 << 20), 128)
us = (time.perf_counter() - t0) / 20000 * 1e6
print(f"encoder vs cuTensorMapEncodeTiled: {n} maps compared, {bad} differ, {refused} refused by the driver, {wide} with a stride >= 64 GiB skipped; ours {us:.2f} us a map")
for f in first:
    print("DIFF", f)
