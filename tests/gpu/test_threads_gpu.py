"""32 threads across every GPU of the machine calling mha_fwd / mha_varlen_fwd at once.

Thread i works on GPU ``i % torch.cuda.device_count()``; even threads queue on the device's
default stream (so they share its workspace), odd threads on a stream of their own.  For
``PYHIPATTN_STRESS_SECONDS`` (default 10) each thread cycles through assorted shapes (GQA,
causal, windows, decode with split-K, varlen) and compares every result with a serial run of
the same inputs on the same GPU, **bitwise**: the same inputs give the same plan (the split
count is a pure function of the problem and the device's SM count), the same kernels and the
same grid, and no kernel uses atomics, so any difference is a race.  Afterwards every code
object the shapes use was loaded exactly once per device.  Runs on one GPU and on several.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)

import pyhipattn  # noqa: E402
from pyhipattn.runtime import get_backend, modules  # noqa: E402

pytestmark = pytest.mark.gpu
THREADS = 32
SECONDS = float(os.environ.get("PYHIPATTN_STRESS_SECONDS", "10"))

# (b, sq, sk, hq, hk, d, dtype, kwargs)
CASES = [
    (2, 128, 128, 8, 8, 64, torch.bfloat16, dict()),
    (1, 1, 4097, 16, 2, 128, torch.bfloat16, dict()),                       # decode, heuristic splits
    (1, 1, 2000, 8, 1, 128, torch.float16, dict(num_splits=4)),             # forced split-K + combine
    (2, 77, 300, 8, 2, 128, torch.float16, dict(causal=True, return_lse=True)),
    (1, 200, 200, 4, 4, 256, torch.bfloat16, dict(window_size=(32, 8), softcap=20.0)),
    (3, 5, 1000, 8, 8, 64, torch.bfloat16, dict(causal=True, num_splits=3)),
]
VARLEN = ([5, 0, 129, 1, 60], [7, 3, 300, 1, 60], 8, 2, 64)


def _inputs(case, device):
    b, sq, sk, hq, hk, d, dt, _ = case
    g = torch.Generator(device="cpu").manual_seed(hash((b, sq, sk, hq, d)) % 2**31)
    mk = lambda *s: torch.randn(*s, generator=g, dtype=torch.float32).to(dt).to(device)  # noqa: E731
    return mk(b, sq, hq, d), mk(b, sk, hk, d), mk(b, sk, hk, d)


def _varlen_inputs(device):
    lq, lk, hq, hk, d = VARLEN
    g = torch.Generator(device="cpu").manual_seed(99)
    mk = lambda *s: torch.randn(*s, generator=g, dtype=torch.float32).to(torch.bfloat16).to(device)  # noqa: E731
    cq = torch.tensor([0] + torch.tensor(lq).cumsum(0).tolist(), dtype=torch.int32, device=device)
    ck = torch.tensor([0] + torch.tensor(lk).cumsum(0).tolist(), dtype=torch.int32, device=device)
    return mk(sum(lq), hq, d), mk(sum(lk), hk, d), mk(sum(lk), hk, d), cq, ck


def _run(i, inputs):
    """Call number ``i`` of the work list (CASES then the varlen case) on prepared inputs."""
    if i < len(CASES):
        res = pyhipattn.mha_fwd(*inputs, **CASES[i][7])
    else:
        lq, lk = VARLEN[0], VARLEN[1]
        res = pyhipattn.mha_varlen_fwd(*inputs, max(lq), max(lk), causal=True, return_lse=True)
    return res if isinstance(res, tuple) else (res,)


def _code_objects(device) -> set[str]:
    info = get_backend().device_info(device)
    paths = set()
    for b, sq, sk, hq, hk, d, dt, kw in CASES:
        dtype = "bf16" if dt == torch.bfloat16 else "fp16"
        for p in pyhipattn.plan_mha_fwd((b, sq, hq, d), (b, sk, hk, d), (b, sk, hk, d), dtype=dtype,
                                        arch=info.arch, compute_units=info.compute_units, **kw):
            paths.add(p.code_object)
    lq, lk, hq, hk, d = VARLEN
    for p in pyhipattn.plan_mha_fwd((sum(lq), hq, d), (sum(lk), hk, d), (sum(lk), hk, d), arch=info.arch,
                                    compute_units=info.compute_units, cu_seqlens_len=len(lq) + 1,
                                    max_seqlen_q=max(lq), max_seqlen_k=max(lk), causal=True, return_lse=True):
        paths.add(p.code_object)
    return paths


def test_32_threads_on_every_gpu_equal_a_serial_run_and_load_each_object_once():
    ndev = torch.cuda.device_count()
    work = len(CASES) + 1
    inputs, expected = {}, {}
    for dev in range(ndev):                      # the serial run, per device
        with torch.cuda.device(dev):
            for i in range(work):
                x = _inputs(CASES[i], f"cuda:{dev}") if i < len(CASES) else _varlen_inputs(f"cuda:{dev}")
                inputs[dev, i] = x
                expected[dev, i] = tuple(t.clone() for t in _run(i, x))
            torch.cuda.synchronize(dev)

    errors: list[str] = []
    counts = [0] * THREADS
    deadline = [0.0]
    start = threading.Barrier(THREADS, action=lambda: deadline.__setitem__(0, time.monotonic() + SECONDS))

    def worker(t: int) -> None:
        dev = t % ndev
        try:
            with torch.cuda.device(dev):
                stream = torch.cuda.Stream(dev) if t % 2 else torch.cuda.default_stream(dev)
                start.wait()
                n = 0
                with torch.cuda.stream(stream):
                    while time.monotonic() < deadline[0]:
                        i = (t + n) % work
                        got = _run(i, inputs[dev, i])
                        stream.synchronize()
                        for g, e in zip(got, expected[dev, i]):
                            if not torch.equal(g, e):
                                errors.append(f"thread {t} GPU {dev} case {i} call {n}: differs from the serial run")
                                return
                        n += 1
                counts[t] = n
        except Exception as e:  # report, don't hang the barrier
            errors.append(f"thread {t} GPU {dev}: {type(e).__name__}: {e}")
            start.abort()

    threads = [threading.Thread(target=worker, args=(t,), name=f"mha-{t}") for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, "\n".join(errors[:20])
    assert all(c > 0 for c in counts), counts
    for dev in range(ndev):
        for path in _code_objects(dev):
            assert modules.load_count(dev, path) == 1, f"{path} loaded {modules.load_count(dev, path)} times on GPU {dev}"
    print(f"{ndev} GPU(s), {THREADS} threads, {SECONDS:.0f} s: {sum(counts)} calls, per thread {min(counts)}..{max(counts)}")
