// splitk_fwd.cu: the attention producers (native split-K on gfx942/gfx950, WMMA on gfx11/
// gfx12, the shared-logic test build on sm_80/sm_90a).  One source; backend.h picks the
// fragment backend.  Kernel name:
//   native_fwd_<dtype>_d<head dim>_<mask|nomask>_m<BM>_n<BN>
// mask: causal / window / keys not a multiple of BN; nomask: every key of every tile visible.
// Prefill tiles are m64_n32; decode tiles (GQA-packed rows, few of them) one fragment of
// rows (m32 on MFMA, m16 on WMMA / CUDA) by n64.
#include "attn_common.h"
#include "backend.h"

#define NATIVE_FWD(dtname, DT, D, mname, MASKED, BM, BN) NATIVE_FWD_(dtname, DT, D, mname, MASKED, BM, BN)
#define NATIVE_FWD_(dtname, DT, D, mname, MASKED, BM, BN)                                                  \
    NATIVE_KERNEL(NATIVE_NWARP * Mma::WAVE) native_fwd_##dtname##_d##D##_##mname##_m##BM##_n##BN(         \
        const native_fwd_args a) {                                                                        \
        typedef nat::FwdTile<Mma, DT, D, BM, BN, NATIVE_NWARP, MASKED> C;                                 \
        NSHARED __attribute__((aligned(16))) unsigned char smem[C::LDS_BYTES];                            \
        nat::fwd_tile<Mma, DT, D, BM, BN, NATIVE_NWARP, MASKED>(a, smem);                                 \
    }

#define NATIVE_FWD_TILES(dtname, DT, D, mname, MASKED)                                  \
    NATIVE_FWD(dtname, DT, D, mname, MASKED, NATIVE_BM_PREFILL, NATIVE_BN_PREFILL)     \
    NATIVE_FWD(dtname, DT, D, mname, MASKED, NATIVE_BM_DECODE, NATIVE_BN_DECODE)

#define NATIVE_FWD_MASKS(dtname, DT, D)                 \
    NATIVE_FWD_TILES(dtname, DT, D, mask, true)         \
    NATIVE_FWD_TILES(dtname, DT, D, nomask, false)

NATIVE_FWD_MASKS(fp16, nat::FP16, 64)
NATIVE_FWD_MASKS(fp16, nat::FP16, 128)
NATIVE_FWD_MASKS(bf16, nat::BF16, 64)
NATIVE_FWD_MASKS(bf16, nat::BF16, 128)
