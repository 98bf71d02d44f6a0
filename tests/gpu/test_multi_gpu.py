"""Two GPUs: every entry point computes on the GPU its inputs live on.

Skipped (with the reason) on a machine with fewer than two GPUs.  On two, the second GPU runs
torch, CuPy, JAX (jit, where the XLA handler asks XLA for the device ordinal) and the kvcache
call, each giving the bits the same call gives on the first GPU (same kernels, same data), and
two threads driving one GPU each agree with the serial results.
"""

from __future__ import annotations

import os
import threading

import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import pyhipattn  # noqa: E402

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                                reason="needs 2 GPUs visible to torch")

# b, s, hq, hk, d: GQA, long enough for the split-K path at seqlen_q 1
PREFILL = (2, 384, 8, 2, 128)
DECODE = (2, 1, 4096, 16, 4, 128)


def _prefill(dev: int, seed: int = 0):
    b, s, hq, hk, d = PREFILL
    g = torch.Generator(device=f"cuda:{dev}").manual_seed(seed)
    mk = lambda *shape: torch.randn(*shape, device=f"cuda:{dev}", dtype=torch.bfloat16, generator=g)  # noqa: E731
    return mk(b, s, hq, d), mk(b, s, hk, d), mk(b, s, hk, d)


def _decode(dev: int, seed: int = 1):
    b, sq, sk, hq, hk, d = DECODE
    g = torch.Generator(device=f"cuda:{dev}").manual_seed(seed)
    mk = lambda *shape: torch.randn(*shape, device=f"cuda:{dev}", dtype=torch.bfloat16, generator=g)  # noqa: E731
    return mk(b, sq, hq, d), mk(b, sk, hk, d), mk(b, sk, hk, d)


def _sdpa(q, k, v, causal: bool):
    o = torch.nn.functional.scaled_dot_product_attention(
        *(t.transpose(1, 2).float() for t in (q, k, v)), is_causal=causal, enable_gqa=True)
    return o.transpose(1, 2)


@pytest.mark.parametrize("make,causal", [(_prefill, True), (_decode, False)], ids=["prefill", "decode"])
def test_torch_runs_on_the_gpu_of_its_inputs(make, causal):
    """... and leaves the caller's current device as it was (torch's follows the thread's context)."""
    torch.cuda.set_device(0)
    outs = []
    for dev in (0, 1):
        q, k, v = make(dev)
        out = pyhipattn.mha_fwd(q, k, v, causal=causal)   # GPU 0 current, inputs on GPU `dev`
        assert out.device == q.device
        torch.cuda.synchronize(dev)
        err = (out.float() - _sdpa(q, k, v, causal)).abs().max().item()
        assert err < 3e-2, f"GPU {dev}: max abs error {err}"
        outs.append(out)
        assert torch.cuda.current_device() == 0, f"GPU {dev}'s call left GPU {torch.cuda.current_device()} current"
    assert torch.equal(outs[0].cpu(), outs[1].cpu())       # same kernels, same data: same bits


def test_two_threads_one_gpu_each_agree_with_the_serial_results():
    inputs = {dev: _decode(dev) for dev in (0, 1)}
    serial = {dev: pyhipattn.mha_fwd(*inputs[dev]) for dev in (0, 1)}
    for dev in (0, 1):
        torch.cuda.synchronize(dev)
    got: dict[int, list] = {0: [], 1: []}
    errors: list[BaseException] = []

    def work(dev: int) -> None:
        try:
            torch.cuda.set_device(dev)
            s = torch.cuda.Stream(device=dev)
            with torch.cuda.stream(s):
                for _ in range(30):
                    got[dev].append(pyhipattn.mha_fwd(*inputs[dev]))
            s.synchronize()
        except BaseException as e:   # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(dev,)) for dev in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for dev in (0, 1):
        assert len(got[dev]) == 30
        assert all(torch.equal(o, serial[dev]) for o in got[dev])


def test_cupy_on_the_second_gpu_gives_the_torch_bits():
    cupy = pytest.importorskip("cupy")
    q, k, v = _decode(1)
    want = pyhipattn.mha_fwd(q, k, v)
    torch.cuda.synchronize(1)
    with cupy.cuda.Device(1):
        cq, ck, cv = (cupy.from_dlpack(t) for t in (q, k, v))
        got = pyhipattn.mha_fwd(cq, ck, cv)
        got = pyhipattn.mha_fwd(cq, ck, cv)       # the second call takes the fast path
        assert got.device.id == 1
        cupy.cuda.Device(1).synchronize()
    assert torch.equal(torch.from_dlpack(got), want)


def test_jax_jit_on_the_second_gpu_gives_the_torch_bits():
    jax = pytest.importorskip("jax")
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if len(gpus) < 2:
        pytest.skip(f"JAX sees fewer than 2 GPUs ({jax.devices()})")
    import pyhipattn.jax as pjax

    outs = []
    for dev in (0, 1):
        q, k, v = _decode(dev)
        want = pyhipattn.mha_fwd(q, k, v)
        torch.cuda.synchronize(dev)
        # torch exports / imports over DLPack only with the tensor's GPU current; JAX's own
        # initialisation may leave another GPU's context current on this thread
        with torch.cuda.device(dev):
            jq, jk, jv = (jax.device_put(jax.dlpack.from_dlpack(t), gpus[dev]) for t in (q, k, v))
        got = jax.jit(lambda q, k, v: pjax.mha_fwd(q, k, v))(jq, jk, jv)
        jax.block_until_ready(got)
        assert got.devices() == {gpus[dev]}
        with torch.cuda.device(dev):
            assert torch.equal(torch.from_dlpack(got), want)
        outs.append(want)
    assert torch.equal(outs[0].cpu(), outs[1].cpu())


def test_kvcache_on_the_second_gpu():
    b, _, sk, hq, hk, d = DECODE
    q, kc, vc = _decode(1)
    lens = torch.tensor([sk, sk // 3], dtype=torch.int32, device="cuda:1")
    torch.cuda.set_device(0)
    out = pyhipattn.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens)
    assert out.device == q.device
    assert torch.cuda.current_device() == 0, "mha_fwd_kvcache on GPU 1's arrays left GPU 1 current"
    torch.cuda.synchronize(1)
    for i, n in enumerate(lens.tolist()):
        want = _sdpa(q[i:i + 1], kc[i:i + 1, :n], vc[i:i + 1, :n], False)
        err = (out[i:i + 1].float() - want).abs().max().item()
        assert err < 3e-2, f"sequence {i} (length {n}): max abs error {err}"
