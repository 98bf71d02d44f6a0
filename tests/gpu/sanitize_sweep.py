"""A small sweep over every NVIDIA kernel pyhipattn ships, for compute-sanitizer.

    scripts/sanitize.sh                        # memcheck, racecheck, initcheck over this script
    python3 tests/gpu/sanitize_sweep.py        # the same calls without a sanitizer

Covers, for bf16 and fp16: the portable forward kernels (plain, masked, decode; head-dim
classes 64 / 128 / 256; varlen plain and masked with ragged and empty sequences), split-K
folded by the last split (atomic arrival counters) and by the separate combine kernel; the native shared-logic cubins (producer with and without masks,
decode and prefill tiles, split-K producer + combine; planned with ``native_splitk.plan`` as
tests/gpu/test_native_shared_logic.py does, since dispatch never picks them on NVIDIA); the
hopper kernels on sm_90a (forced with ``hopper.plan``, a 4-CTA persistent grid); and the common
add kernel.  Shapes are small (odd lengths, sq > sk and sq < sk) so the sanitizers
finish in minutes.  Every result is checked against the float64 reference, so a sweep that
computes garbage fails even where the sanitizer sees nothing.  Exits 1 on any mismatch.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

import torch  # noqa: E402

import pyhipattn  # noqa: E402
from pyhipattn.families import hopper, native_splitk  # noqa: E402
from pyhipattn.families.base import Problem  # noqa: E402
from pyhipattn.kernels_dir import kernels_dir  # noqa: E402
from pyhipattn.reference import attention_ref, attention_varlen_ref, rel_error  # noqa: E402
from pyhipattn.runtime import get_backend, launch  # noqa: E402

TOL = {torch.bfloat16: 1e-2, torch.float16: 2e-3}
FAILURES: list[str] = []


def rand(*shape, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, generator=g, device="cuda", dtype=dtype)


def check(name: str, got, ref, dtype) -> None:
    err = rel_error(got, ref)
    status = "ok" if err <= TOL[dtype] and not torch.isnan(got).any() else "FAIL"
    print(f"{status:4} {name}: rel err {err:.2e}", flush=True)
    if status != "ok":
        FAILURES.append(name)


def portable(dtype) -> None:
    dn = str(dtype).split(".")[-1]
    for d in (64, 128, 256):
        for name, (b, sq, sk, hq, hk), kw in (
                ("plain", (2, 65, 130, 4, 2), dict()),
                ("masked causal sq>sk", (1, 70, 33, 4, 1), dict(causal=True)),
                ("masked window+softcap", (1, 40, 97, 2, 2), dict(window_size=(9, 3), softcap=10.0)),
                ("decode", (2, 1, 300, 8, 2), dict()),
                ("split-K decode tile", (1, 3, 700, 4, 4), dict(causal=True, num_splits=3)),
                # the plain tile split: folded by its last split, or at d256 on sm_90a by the combine kernel
                ("split-K plain tile", (1, 40, 700, 2, 2), dict(num_splits=3))):
            q, k, v = (rand(b, s, h, d, dtype=dtype, seed=i) for i, (s, h) in enumerate(((sq, hq), (sk, hk), (sk, hk))))
            out, lse = pyhipattn.mha_fwd(q, k, v, return_lse=True, **kw)
            torch.cuda.synchronize()
            ref, _ = attention_ref(q, k, v, causal=kw.get("causal", False), window=kw.get("window_size", (-1, -1)),
                                   softcap=kw.get("softcap", 0.0))
            check(f"portable {dn} d{d} {name}", out, ref, dtype)
        lens_q, lens_k = [5, 0, 33, 1, 17], [7, 3, 90, 1, 0]
        cq = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), dtype=torch.int32, device="cuda")
        ck = torch.tensor([0] + list(torch.tensor(lens_k).cumsum(0)), dtype=torch.int32, device="cuda")
        q = rand(sum(lens_q), 4, d, dtype=dtype, seed=7)
        k, v = rand(sum(lens_k), 2, d, dtype=dtype, seed=8), rand(sum(lens_k), 2, d, dtype=dtype, seed=9)
        for causal in (False, True):
            out = pyhipattn.mha_varlen_fwd(q, k, v, cq, ck, max(lens_q), max(lens_k), causal=causal)
            torch.cuda.synchronize()
            ref, _ = attention_varlen_ref(q, k, v, cq.tolist(), ck.tolist(), causal=causal)
            check(f"portable {dn} d{d} varlen {'masked' if causal else 'plain'}", out, ref, dtype)


def native(dtype) -> None:
    dn = "bf16" if dtype == torch.bfloat16 else "fp16"
    info = get_backend().device_info(torch.cuda.current_device())
    root = kernels_dir()
    for d in (64, 128):
        for b, sq, sk, hq, hk, causal, splits in ((2, 70, 130, 8, 2, True, 1), (1, 64, 128, 4, 4, False, 1),
                                                  (2, 1, 300, 8, 1, False, 3), (1, 33, 257, 4, 2, True, 2)):
            q, k, v = rand(b, sq, hq, d, dtype=dtype, seed=1), rand(b, sk, hk, d, dtype=dtype, seed=2), \
                rand(b, sk, hk, d, dtype=dtype, seed=3)
            out = torch.empty(b, sq, hq, d, device="cuda", dtype=dtype)
            lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32)
            st = lambda t: tuple(t.stride()[:3])  # noqa: E731
            p = Problem(b, sq, sk, hq, hk, d, d, dn, 1 / math.sqrt(d), causal=causal, window=(-1, -1),
                        return_lse=True, num_splits=splits, q_strides=st(q), k_strides=st(k), v_strides=st(v),
                        o_strides=st(out))
            plans = native_splitk.plan(p, info.arch, info.compute_units, splits)
            ws_bytes = max(pl.workspace_bytes for pl in plans)
            ws = torch.empty(max(ws_bytes, 4), dtype=torch.uint8, device="cuda")
            ptrs = dict(q=q.data_ptr(), k=k.data_ptr(), v=v.data_ptr(), out=out.data_ptr(), lse=lse.data_ptr(),
                        workspace=ws.data_ptr())
            stream = torch.cuda.current_stream().cuda_stream
            for pl in plans:
                pl = dataclasses.replace(pl, code_object=str(root / pl.code_object))
                launch(pl.bind(ptrs), stream, torch.cuda.current_device())
            torch.cuda.synchronize()
            ref, _ = attention_ref(q, k, v, causal=causal)
            check(f"native {dn} d{d} b{b} sq{sq} sk{sk} h{hq}/{hk} causal={causal} splits={splits}", out, ref, dtype)


def hopper_family(dtype) -> None:
    """The hopper kernels (sm_90a only), forced: causal / not, GQA, ragged tails, sq > sk
    (rows with no key), several tiles per CTA (a grid of 4 CTAs), LSE."""
    info = get_backend().device_info(torch.cuda.current_device())
    if info.arch != "sm_90a":
        print(f"skip hopper: {info.arch} is not sm_90a")
        return
    dn = "bf16" if dtype == torch.bfloat16 else "fp16"
    for d in hopper.HEAD_DIMS:
        for b, sq, sk, hq, hk, causal in ((2, 200, 300, 4, 2, True), (1, 300, 130, 4, 1, False),
                                          (1, 70, 33, 2, 2, True), (1, 1, 129, 8, 8, False)):
            q, k, v = rand(b, sq, hq, d, dtype=dtype, seed=1), rand(b, sk, hk, d, dtype=dtype, seed=2), \
                rand(b, sk, hk, d, dtype=dtype, seed=3)
            out = torch.empty(b, sq, hq, d, device="cuda", dtype=dtype)
            lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32)
            st = lambda t: tuple(t.stride()[:3])  # noqa: E731
            p = Problem(b, sq, sk, hq, hk, d, d, dn, 1 / math.sqrt(d), causal=causal,
                        window=(-1, 0) if causal else (-1, -1), return_lse=True, num_splits=1, q_strides=st(q),
                        k_strides=st(k), v_strides=st(v), o_strides=st(out))
            ptrs = dict(q=q.data_ptr(), k=k.data_ptr(), v=v.data_ptr(), out=out.data_ptr(), lse=lse.data_ptr())
            for pl in hopper.plan(p, info.arch, 4, 1):
                launch(pl.bind(ptrs), torch.cuda.current_stream().cuda_stream, torch.cuda.current_device())
            torch.cuda.synchronize()
            ref, _ = attention_ref(q, k, v, causal=causal)
            check(f"hopper {dn} d{d} b{b} sq{sq} sk{sk} h{hq}/{hk} causal={causal}", out, ref, dtype)


def common_add() -> None:
    info = get_backend().device_info(torch.cuda.current_device())
    path = kernels_dir() / info.arch / "common_add.cubin"
    if not path.exists():
        print(f"skip common_add: {path} not built")
        return
    n = 1000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    pyhipattn.load(path)["add_kernel"].launch((-(-n // 256), 1, 1), (256, 1, 1), x, y, out, n, 2.0)
    torch.cuda.synchronize()
    ok = torch.allclose(out, x + 2.0 * y, rtol=1e-6, atol=1e-6)
    print(f"{'ok' if ok else 'FAIL':4} common add_kernel", flush=True)
    if not ok:
        FAILURES.append("common add_kernel")


def main() -> int:
    torch.cuda.init()
    for dtype in (torch.bfloat16, torch.float16):
        portable(dtype)
        native(dtype)
        hopper_family(dtype)
    common_add()
    print(f"sanitize sweep: {len(FAILURES)} failure(s)" + (f": {FAILURES}" if FAILURES else ""))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
