"""pyhipattn.kernargs.tensormap: the CPU-made CUtensorMap of the hopper kernels' map shape.

The expected bytes are cuTensorMapEncodeTiled's own output (driver 13000, H100, 2026-11-27, call tm:
notes/logs/h100-hopper-2026-11-27-tm.py), one parameter moved at a time from a base map (d 64, seq 512, 16 heads,
batch 32, contiguous (B, S, H, D) bf16, box 64 x 128); tests/gpu/test_tensormap_gpu.py compares against the driver
itself over a random sweep where a GPU is present."""

from __future__ import annotations

import pytest

from pyhipattn.kernargs.tensormap import TENSOR_MAP_BYTES, encode_tile_map

DRIVER = {   # name -> (the encoder's arguments, the driver's 128 bytes as hex)
    "base": (dict(d=64, seq=512, heads=16, batch=32),
        "00005634127f0000306500008000000008000000000001000000000000000000"
        "3f000000ff0100000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "rows 176": (dict(d=64, seq=512, heads=16, batch=32, rows=176),
        "00005634127f0000306500008000000008000000000001000000000000000000"
        "3f000000ff0100000f0000001f000000000000000000003faf00000000000000"
        "0058000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "seq 40000": (dict(d=64, seq=40000, heads=16, batch=32),
        "00005634127f000030650000800000000800000000204e000000000000000000"
        "3f0000003f9c00000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "one head": (dict(d=64, seq=512, heads=1, batch=32),
        "00005634127f0000306500000800000008000000001000000000000000000000"
        "3f000000ff010000000000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "fp16": (dict(d=64, seq=512, heads=16, batch=32, dtype="fp16"),
        "00005634127f0000306300008000000008000000000001000000000000000000"
        "3f000000ff0100000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "high address": (dict(d=64, seq=512, heads=16, batch=32, address=0x7FFFFFFFFFF0),
        "f0ffffffff7f0000306500008000000008000000000001000000000000000000"
        "3f000000ff0100000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "seq stride 65536": (dict(d=64, seq=512, heads=16, batch=32, strides=(2 * 65536, 128, 2 * 512 * 16 * 64)),
        "00005634127f0000306500000020000008000000000001000000000000000000"
        "3f000000ff0100000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
    "d 256": (dict(d=256, seq=512, heads=16, batch=32),
        "00005634127f0000306500000002000020000000000004000000000000000000"
        "ff000000ff0100000f0000001f000000000000000000003f7f00000000000000"
        "0040000000000000000400000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000000"),
}


def _encode(d, seq, heads, batch, rows=128, dtype="bf16", address=0x7F1234560000, strides=None):
    if strides is None:   # contiguous (B, S, H, D), 2-byte elements
        strides = (2 * heads * d, 2 * d, 2 * seq * heads * d)
    return encode_tile_map(address, dtype, (d, seq, heads, batch), strides, rows)


@pytest.mark.parametrize("name", list(DRIVER))
def test_the_driver_s_bytes(name):
    kw, want = DRIVER[name]
    assert len(want) == 2 * TENSOR_MAP_BYTES, name
    got = _encode(**kw)
    assert len(got) == TENSOR_MAP_BYTES
    assert got.hex() == want


def test_the_address_is_bytes_0_to_7_raw():
    """A plan binds the address per call like any 8-byte pointer slot: the other 120 bytes do not depend on it."""
    a, b = _encode(64, 512, 16, 32, address=0), _encode(64, 512, 16, 32, address=0x7F0000001230)
    assert a[8:] == b[8:] and int.from_bytes(b[:8], "little") == 0x7F0000001230 and a[:8] == bytes(8)


@pytest.mark.parametrize("kw, word", [
    (dict(address=8), "address"), (dict(address=-16), "address"), (dict(dtype="fp32"), "dtype"),
    (dict(dims=(64, 512, 16)), "dims"), (dict(dims=(64, 0, 16, 32)), "dims"), (dict(strides=(2048, 128)), "strides"),
    (dict(strides=(2048, 120, 1 << 20)), "strides"), (dict(strides=(2048, 128, 1 << 36)), "strides"),
    (dict(box_rows=0), "box_rows"), (dict(box_rows=257), "box_rows"), (dict(box_cols=128), "box_cols")])
def test_refusals_name_the_argument(kw, word):
    args = dict(address=0, dtype="bf16", dims=(64, 512, 16, 32), strides=(2048, 128, 1 << 20), box_rows=128)
    args.update(kw)
    with pytest.raises(ValueError, match=word):
        encode_tile_map(**args)
