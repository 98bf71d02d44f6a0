"""Where the host time of a cached mha_fwd call goes (decode shapes), each part timed alone.

    python3 bench/host_parts.py

Every part runs 2,000 times with the GPU idle (a synchronize before each call, outside the
clock) and 300 times back to back; the table gives the p50 of each, in microseconds.
"""

from __future__ import annotations

import statistics
import time

import torch

import pyhipattn
from pyhipattn import fastpath
from pyhipattn.tools.bench import host_time
from pyhipattn.runtime.memory import workspace

#: the options of mha_fwd(q, k, v) with defaults, as the fast path keys them
OPTIONS = (None, False, (-1, -1), 0.0, False, 0)


def inputs(b: int, hq: int, hk: int, sq: int, sk: int, d: int) -> tuple:
    """Fresh bf16 (q, k, v), BSHD."""
    return tuple(torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for s, h in ((sq, hq), (sk, hk), (sk, hk)))


def raw_launch(ln, stream, values):
    """cuLaunchKernel through cuda-bindings with a ready extra array: the floor under our layers."""
    import ctypes

    from cuda.bindings import driver

    buf = bytearray(ln.template)
    for off, i in ln.packed:
        buf[off:off + 8] = values[i].to_bytes(8, "little")
    cbuf = (ctypes.c_char * len(buf)).from_buffer_copy(bytes(buf))
    size = ctypes.c_size_t(len(buf))
    extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(cbuf), 2, ctypes.addressof(size), 0)
    f, s, addr = driver.CUfunction(ln.kernel.function), driver.CUstream(stream), ctypes.addressof(extra)
    g, bl = ln.grid, ln.block
    keep = (cbuf, size, extra)
    return lambda: (keep, driver.cuLaunchKernel(f, g[0], g[1], g[2], bl[0], bl[1], bl[2], ln.shared_mem, s, None, addr))


def sdpa(q, k, v):
    return lambda: torch.nn.functional.scaled_dot_product_attention(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), enable_gqa=True)


def timeline(q, k, v, calls: int = 2000) -> None:
    """The torch fast path of mha_fwd step by step inside one call (GPU idle before each): the
    p50 time from the call's start to the end of each step."""
    clock = time.perf_counter_ns
    steps: dict[str, list[int]] = {}
    torch_c = torch._C
    for _ in range(calls):
        torch.cuda.synchronize()
        t0 = clock()
        key = fastpath.torch_key(q, k, v, OPTIONS)
        hit = fastpath.CACHE.get(key)
        t1 = clock()
        qp, kp, vp = q.data_ptr(), k.data_ptr(), v.data_ptr()
        prep, out_shape = hit[0], hit[1]
        t2 = clock()
        out = torch.empty_like(q) if hit[3] else q.new_empty(out_shape)
        t3 = clock()
        stream = torch_c._cuda_getCurrentRawStream(key[3])
        capturing = prep.workspace_bytes and torch_c._cuda_isCurrentStreamCapturing()
        t4 = clock()
        values = (qp, kp, vp, out.data_ptr(), 0, 0, 0)
        ws = workspace(prep.device, stream, prep.backend)
        with ws.lock:
            w = ws.ensure(prep.workspace_bytes)
            t5 = clock()
            prep.backend.make_current(prep.device)
            t6 = clock()
            for ln in prep.launches:
                ln.go(stream, values + (w,))
            t7 = clock()
        assert not capturing
        for name, t in (("key + lookup", t1), ("data_ptr x3", t2), ("output tensor", t3), ("stream + capture query", t4),
                        ("workspace lock + ensure", t5), ("make_current", t6), ("bound launch", t7)):
            steps.setdefault(name, []).append(t - t0)
    print("torch fast path, one call, GPU idle before it: p50 time from the start to the end of each step (us)")
    prev = 0.0
    for name, ts in steps.items():
        at = statistics.median(ts) / 1e3
        print(f"  {name:28s} at {at:6.2f}  (+{at - prev:5.2f})")
        prev = at


def main() -> None:
    shapes = {"decode (1,32,8,1,4096,128)": (1, 32, 8, 1, 4096, 128),
              "decode (1,32,8,1,131072,128)": (1, 32, 8, 1, 131072, 128),
              "decode (16,32,8,1,32768,128)": (16, 32, 8, 1, 32768, 128)}
    parts = {}
    for label, dims in shapes.items():
        q, k, v = inputs(*dims)
        pyhipattn.mha_fwd(q, k, v)
        prep = fastpath.CACHE[fastpath.torch_key(q, k, v, OPTIONS)][0]
        parts[f"mha_fwd {label}: {len(prep.launches)} launch(es), split {prep.launches[0].grid[2]}"] = \
            lambda q=q, k=k, v=v: pyhipattn.mha_fwd(q, k, v)
        parts[f"torch SDPA {label}"] = sdpa(q, k, v)
    q, k, v = inputs(*shapes["decode (1,32,8,1,4096,128)"])
    pyhipattn.mha_fwd(q, k, v)
    pyhipattn.mha_fwd(q, k, v, num_splits=1)
    pyhipattn.mha_fwd(q, k, v, return_lse=True)
    key = fastpath.torch_key(q, k, v, OPTIONS)
    prep, out_shape = fastpath.CACHE[key][:2]
    ln = prep.launches[0]
    backend = prep.backend
    stream = torch._C._cuda_getCurrentRawStream(0)
    o = torch.empty(out_shape, dtype=torch.bfloat16, device=q.device)
    values = (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), 0, 0, 0)
    values8 = values + (workspace(prep.device, stream, backend).ensure(prep.workspace_bytes),)
    parts.update({
        "mha_fwd 4096, num_splits=1 (1 launch, no workspace)": lambda: pyhipattn.mha_fwd(q, k, v, num_splits=1),
        "mha_fwd 4096, return_lse=True": lambda: pyhipattn.mha_fwd(q, k, v, return_lse=True),
        "  key build + lookup": lambda: fastpath.CACHE.get(fastpath.torch_key(q, k, v, OPTIONS)),
        "  q.new_empty(out shape)": lambda: q.new_empty(out_shape),
        "  torch.empty_like(q)": lambda: torch.empty_like(q),
        "  torch.empty(out shape, dtype, device)": lambda: torch.empty(out_shape, dtype=torch.bfloat16, device=q.device),
        "  current raw stream": lambda: torch._C._cuda_getCurrentRawStream(0),
        "  capture query (torch)": lambda: torch._C._cuda_isCurrentStreamCapturing(),
        "  3x data_ptr": lambda: (q.data_ptr(), k.data_ptr(), v.data_ptr()),
        "  prep.run (workspace lock, make_current, launch)": lambda: prep.run(values, stream),
        "  make_current": lambda: backend.make_current(0),
        "  bound launch (ln.go)": lambda: ln.go(stream, values8),
        "  raw cuLaunchKernel (cuda-bindings)": raw_launch(ln, stream, values8),
    })
    for name, launcher in backend.launchers.items():
        go = launcher.bind(ln.kernel.function, ln.grid, ln.block, ln.shared_mem, ln.template, ln.packed)
        parts[f"  bound launch through {name}"] = lambda go=go: go(stream, values8)
    timeline(q, k, v)
    print(f"{'part':62s} {'idle GPU':>9s} {'no sync':>9s}  (p50 us)")
    for name, fn in parts.items():
        idle = host_time(fn, torch.cuda.synchronize, rounds=1, calls=2000)["p50_us"]
        busy = host_time(fn, torch.cuda.synchronize, rounds=1, calls=300, sync_each=False)["p50_us"]
        print(f"{name:62s} {idle:9.2f} {busy:9.2f}", flush=True)


if __name__ == "__main__":
    main()
