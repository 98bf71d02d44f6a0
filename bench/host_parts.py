"""Where the host time of a cached mha_fwd call goes (one decode shape), each part timed alone.

    python3 bench/host_parts.py
"""

from __future__ import annotations

import statistics
import time

import torch

import pyhipattn
from pyhipattn import api


def p50(fn, sync: bool, calls: int = 2000) -> float:
    ts = []
    for _ in range(calls):
        if sync:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def raw_launch(kern, ln, stream, buf):
    import ctypes

    from cuda.bindings import driver

    cbuf = (ctypes.c_char * len(buf)).from_buffer_copy(bytes(buf))
    size = ctypes.c_size_t(len(buf))
    extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(cbuf), 2, ctypes.addressof(size), 0)
    f, s, addr = driver.CUfunction(kern.function), driver.CUstream(stream), ctypes.addressof(extra)
    g, bl = ln.grid, ln.block
    return lambda: driver.cuLaunchKernel(f, g[0], g[1], g[2], bl[0], bl[1], bl[2], ln.shared_mem, s, None, addr)


def main() -> None:
    b, hq, hk, sq, sk, d = 16, 32, 8, 1, 32768, 128
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    pyhipattn.mha_fwd(q, k, v)
    key = api._torch_key(q, k, v, None, False, (-1, -1), 0.0, False, 0)
    prep = api._TORCH_FAST[key][0]
    ln = prep.launches[0]
    kern = ln.kernel
    backend = kern.backend
    stream = torch._C._cuda_getCurrentRawStream(0)
    o = torch.empty((b, sq, hq, d), dtype=torch.bfloat16, device=q.device)
    ptrs = {"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": o.data_ptr(), "lse": 0}
    buf = bytearray(ln.template)
    import struct
    for name, off in ln.slots:
        struct.pack_into("<Q", buf, off, ptrs[name])
    parts = {
        "whole mha_fwd (cached)": lambda: pyhipattn.mha_fwd(q, k, v),
        "key build + lookup": lambda: api._TORCH_FAST.get(api._torch_key(q, k, v, None, False, (-1, -1), 0.0, False, 0)),
        "torch.empty out": lambda: torch.empty((b, sq, hq, d), dtype=torch.bfloat16, device=q.device),
        "current raw stream": lambda: torch._C._cuda_getCurrentRawStream(0),
        "3x data_ptr": lambda: (q.data_ptr(), k.data_ptr(), v.data_ptr()),
        "prep.launch": lambda: prep.launch(dict(ptrs), stream),
        "Kernel.launch": lambda: kern.launch(ln.grid, ln.block, ln.shared_mem, stream, buf),
        "make_current": lambda: backend.make_current(0),
        "backend.launch (launcher)": lambda: backend.launch(kern.function, ln.grid, ln.block, ln.shared_mem, stream, buf),
        "raw cuLaunchKernel": raw_launch(kern, ln, stream, buf),
        "torch SDPA": lambda: torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), enable_gqa=True),
    }
    q2 = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k2 = torch.randn(1, 4096, 8, 128, device="cuda", dtype=torch.bfloat16)
    v2 = torch.randn(1, 4096, 8, 128, device="cuda", dtype=torch.bfloat16)
    pyhipattn.mha_fwd(q2, k2, v2)
    parts["whole mha_fwd, split-K decode (2 launches)"] = lambda: pyhipattn.mha_fwd(q2, k2, v2)
    parts["torch SDPA, same shape"] = lambda: torch.nn.functional.scaled_dot_product_attention(
        q2.transpose(1, 2), k2.transpose(1, 2), v2.transpose(1, 2), enable_gqa=True)
    parts["capture query (torch)"] = lambda: torch._C._cuda_isCurrentStreamCapturing()
    print(f"{'part':42s} {'idle GPU':>9s} {'no sync':>9s}  (p50 us, 2000 calls)")
    for name, fn in parts.items():
        fn()
        print(f"{name:42s} {p50(fn, True):9.2f} {p50(fn, False, 300):9.2f}", flush=True)
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
