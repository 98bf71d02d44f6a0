// combine.cu: folds the G fp32 partials of the split-K producers into out (bf16/fp16) and
// LSE (fp32).  One thread per output element; grid ceil(B*Hq*Sq*Dv / 256).
#include "attn_common.h"

#define NATIVE_COMBINE(dtname, DT)                                                                   \
    NATIVE_KERNEL(NATIVE_COMBINE_THREADS) native_combine_##dtname(const native_combine_args a) {     \
        nat::combine_element<DT>(a, (int64_t)nat::bid_x() * NATIVE_COMBINE_THREADS + nat::tid());    \
    }

NATIVE_COMBINE(fp16, nat::FP16)
NATIVE_COMBINE(bf16, nat::BF16)
