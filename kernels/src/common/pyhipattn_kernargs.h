// pyhipattn_kernargs.h: how a kernarg struct is declared once for both the kernel and Python.
//
// A kernel family declares its kernarg struct in kernels/src/<family>/<family>_args.h.  The
// kernel source (HIP C++ or CUDA C++) includes that header and takes the struct by value:
//
//     #include "portable_args.h"
//     extern "C" __global__ void portable_fwd(portable_fwd_args a) { ... }
//
// and pyhipattn.kernargs reads the same text with cffi (ABI mode, no compiler needed):
//
//     layout = layout_from_header("kernels/src/common/pyhipattn_kernargs.h", "add_args")
//     check_layout(layout, code_object["add_kernel"])  # offsets and sizes vs the metadata
//     kernargs = layout.packer().pack(x=..., y=..., out=..., n=4096, alpha=2.0)
//
// Convention (cffi's cdef parses the marked text, so it must be plain C declarations):
//   * Python reads only the lines between a line `// pyhipattn:begin` and a line
//     `// pyhipattn:end`; a header may have several such regions.  Keep includes, guards,
//     templates, attributes and static_asserts outside them.
//   * Inside: `struct NAME { ... };` (or `typedef struct { ... } NAME;`) declarations, and
//     integer constants written `#define NAME <integer literal>`.  Comments are fine.
//   * Fields: fixed-width scalars only -- int8_t .. uint64_t, int, unsigned int, float,
//     double -- and pointers written `const void*` / `void*` (a `uint64_t` holding a device
//     address works too).  No arrays, bit-fields, nested structs, `long`, `size_t` or
//     `bool`: their layout is not the same on every host and device compiler.
//   * Fields use C natural alignment (what both clang for amdgcn and nvcc do); never add
//     packed/aligned attributes, put explicit padding fields in instead if you need a gap.

#pragma once

#include <stdint.h>

// pyhipattn:begin

// Threads per block for the smoke-test kernels (Python: read_header(path).constants["ADD_BLOCK"]).
#define ADD_BLOCK 256

// out[i] = x[i] + alpha * y[i] for i < n (float32): the parameters of the runtime's smoke-test
// kernels in add.cu (taken there as separate params, which have exactly this layout).
struct add_args {
    const void* x;
    const void* y;
    void* out;
    uint32_t n;
    float alpha;
};

// pyhipattn:end
