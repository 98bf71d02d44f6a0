"""The per-call checks every entry point shares (pyhipattn.percall): the caller's ``out`` and
``stream``, on the CPU with numpy arrays and a stand-in backend (no GPU, no driver)."""

from __future__ import annotations

import numpy as np
import pytest

from pyhipattn import percall


class _Backend:
    """What percall asks of a backend here: the DLPack device type its arrays carry (kDLCPU for
    numpy) and the GPU a stream belongs to."""

    dlpack_device_type = 1
    default_stream = 0

    def __init__(self, stream_gpu: int | None = None):
        self.stream_gpu = stream_gpu

    def stream_device(self, handle: int) -> int | None:
        return self.stream_gpu


def test_bind_out_takes_a_writable_out_and_refuses_a_read_only_one():
    out = np.zeros((2, 3, 4, 64), np.float16)
    views: dict = {}
    percall.bind_out(_Backend(), views, out, (2, 3, 4, 64), "fp16", 0)
    assert views["out"].ptr == out.ctypes.data and not views["out"].readonly
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only; pass a writable array"):
        percall.bind_out(_Backend(), {}, out, (2, 3, 4, 64), "fp16", 0)


def test_bind_out_refuses_the_wrong_shape_or_dtype():
    with pytest.raises(ValueError, match="out"):
        percall.bind_out(_Backend(), {}, np.zeros((2, 3, 4, 32), np.float16), (2, 3, 4, 64), "fp16", 0)
    with pytest.raises((TypeError, ValueError), match="out"):
        percall.bind_out(_Backend(), {}, np.zeros((2, 3, 4, 64), np.float32), (2, 3, 4, 64), "fp16", 0)


@pytest.mark.parametrize("stream_gpu", [None, 0])
def test_stream_for_passes_a_stream_of_the_arrays_gpu(stream_gpu):
    assert percall.stream_for(_Backend(stream_gpu), 1234, None, 0, "q, k, v") == 1234
    assert percall.stream_for(_Backend(stream_gpu), None, None, 0, "q, k, v") == 0


def test_stream_for_refuses_a_stream_of_another_gpu():
    """mha_fwd and mha_fwd_kvcache both ask: a stream of GPU 1 with arrays on GPU 0 is an error before any launch."""
    with pytest.raises(ValueError, match=r"stream belongs to GPU 1 but q, k_cache, v_cache are on GPU 0; "
                                         r"pass a stream of GPU 0"):
        percall.stream_for(_Backend(1), 1234, None, 0, "q, k_cache, v_cache")


def test_outputs_for_uses_the_callers_out_or_none_for_lse():
    out = np.zeros((1, 2, 2, 8), np.float16)
    views: dict = {}
    percall.bind_out(_Backend(), views, out, out.shape, "fp16", 0)
    got = percall.outputs_for(None, out, views, (out.shape, (1, 2, 2)), "fp16", 0, 0, False)
    assert got == (out, out.ctypes.data, None, 0)
    assert percall.results(out, None, 0, False) is out
