// backend.h: picks the fragment backend for the target being compiled, and the tile
// shapes built for it (the names of the kernels carry them; pyhipattn/families/
// native_splitk.py plans with the same numbers and tests/test_native_static.py checks
// that they agree with the built objects' manifests).
#pragma once

#include "compat.h"

#if defined(NATIVE_CUDA)
#include "mma_cuda.h"
typedef MmaCuda Mma;
#define NATIVE_BM_DECODE 16
#elif defined(__gfx942__) || defined(__gfx950__)
#include "mma_mfma.h"
typedef MmaMfma Mma;
#define NATIVE_BM_DECODE 32
#elif defined(__GFX11__) || defined(__GFX12__)
#include "mma_wmma.h"
typedef MmaWmma Mma;
#define NATIVE_BM_DECODE 16
#else
#error "no fragment backend for this target (gfx942, gfx950, gfx11*, gfx12*, sm_80+)"
#endif

#define NATIVE_NWARP 4          // waves per workgroup
#define NATIVE_BM_PREFILL 64    // rows per workgroup, prefill tiles
#define NATIVE_BN_PREFILL 32    // keys per tile, prefill tiles
#define NATIVE_BN_DECODE 64     // keys per tile, decode tiles (BM = one fragment of rows)
