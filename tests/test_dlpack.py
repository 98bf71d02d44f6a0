"""pyhipattn.dlpack on the CPU: struct layout, consuming numpy / torch / hand-made capsules,
producing DLPackArray for numpy / torch / JAX, stream rules, lifetimes and errors."""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import pyhipattn
from pyhipattn.dlpack import (ManagedTensorOwner, 
    CPU, CUDA, ROCM, DLManagedTensor, DLManagedTensorVersioned, DLPackArray, TensorView,
    consume_capsule, dlpack_stream, framework_of, live_exports, to_framework, view,
)
from pyhipattn.dlpack import capsule, structs

#: where the pyhipattn under test lives (a checkout, or site-packages for a wheel): subprocesses import it too
PKG_PARENT = str(Path(pyhipattn.__file__).resolve().parents[1])

REPO = Path(__file__).resolve().parents[1]
rng = np.random.default_rng(20261122)


# -- helpers --------------------------------------------------------------------------

class HostBuffer:
    """Host memory standing in for a DeviceBuffer: 256-byte aligned, counts its releases."""

    def __init__(self, nbytes: int, released: list[int] | None = None) -> None:
        self._raw = np.zeros(nbytes + 256, np.uint8)
        start = -self._raw.ctypes.data % 256
        self.bytes = self._raw[start:start + nbytes]
        self.ptr = self.bytes.ctypes.data
        self.nbytes = nbytes
        self.released = released if released is not None else []

    def __del__(self) -> None:
        self.released.append(self.ptr)


def host_array(shape: tuple[int, ...], dtype: str = "fp32", **kw) -> tuple[DLPackArray, HostBuffer]:
    nbytes = max(int(np.prod(shape)), 1) * structs.ITEMSIZE[dtype]
    buf = HostBuffer(nbytes)
    return DLPackArray(buf, shape, dtype, **kw), buf


class Wrapper:
    """Forwards only the DLPack protocol, so view() must take the general path."""

    def __init__(self, array, *, legacy: bool = False) -> None:
        self.array, self.legacy, self.calls = array, legacy, []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        if self.legacy and "max_version" in kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return self.array.__dlpack__(**kwargs)


class CountingProducer:
    """Exports a hand-made DLManagedTensor[Versioned] whose deleter counts its calls.

    The capsule has no destructor, so only a consumer's deleter call ends the export."""

    def __init__(self, *, versioned: bool, shape=(2, 3), strides=None, code=structs.FLOAT,
                 bits=32, byte_offset=0, major=1, flags=0, device=(CPU, 0)) -> None:
        self.calls: list[int] = []
        self.data = (ctypes.c_char * 64)()
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.deleter = structs.Deleter(self.calls.append)
        m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        if versioned:
            m.version.major, m.version.minor, m.flags = major, 0, flags
        t = m.dl_tensor
        t.data = ctypes.addressof(self.data)
        t.device = structs.DLDevice(*device)
        t.ndim = len(shape)
        t.dtype = structs.DLDataType(code, bits, 1)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset
        m.deleter = self.deleter
        self.managed, self.versioned, self.device = m, versioned, device
        self.capsule = None

    @property
    def address(self) -> int:
        return ctypes.addressof(self.managed)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        name = capsule.VERSIONED if self.versioned else capsule.LEGACY
        self.capsule = capsule.new(self.address, name, None)
        return self.capsule


def facts(v: TensorView) -> tuple:
    """Everything in a view but who keeps it alive and where it came from."""
    return (v.ptr, v.shape, v.strides, v.dtype, v.device_type, v.device_id, v.readonly)


# -- structs --------------------------------------------------------------------------

@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="layout checked for 64-bit")
@pytest.mark.parametrize("struct, size, offsets", [
    (structs.DLPackVersion, 8, {"major": 0, "minor": 4}),
    (structs.DLDevice, 8, {"device_type": 0, "device_id": 4}),
    (structs.DLDataType, 4, {"code": 0, "bits": 1, "lanes": 2}),
    (structs.DLTensor, 48, {"data": 0, "device": 8, "ndim": 16, "dtype": 20, "shape": 24,
                            "strides": 32, "byte_offset": 40}),
    (DLManagedTensor, 64, {"dl_tensor": 0, "manager_ctx": 48, "deleter": 56}),
    (DLManagedTensorVersioned, 80, {"version": 0, "manager_ctx": 8, "deleter": 16,
                                    "flags": 24, "dl_tensor": 32}),
])
def test_struct_layout_matches_dlpack_h(struct, size, offsets):
    assert ctypes.sizeof(struct) == size
    assert {name: getattr(struct, name).offset for name in offsets} == offsets


def test_enum_values_match_dlpack_h():
    assert (structs.CPU, structs.CUDA, structs.CUDA_HOST, structs.ROCM) == (1, 2, 3, 10)
    assert (structs.INT, structs.UINT, structs.FLOAT, structs.BFLOAT, structs.BOOL) == (0, 1, 2, 4, 6)
    assert (structs.FLAG_READ_ONLY, structs.FLAG_IS_COPIED,
            structs.FLAG_IS_SUBBYTE_TYPE_PADDED) == (1, 2, 4)
    assert structs.DTYPES["bf16"] == (4, 16) and structs.DTYPES["bool"] == (6, 8)


@pytest.mark.parametrize("shape, strides", [((), ()), ((5,), (1,)), ((2, 3, 4), (12, 4, 1)),
                                            ((2, 0, 3), (3, 3, 1))])
def test_compact_strides_are_row_major_in_elements(shape, strides):
    assert structs.compact_strides(shape) == strides


# -- stream rules (consumer side) ------------------------------------------------------

@pytest.mark.parametrize("stream, device_type, expected", [
    (None, CUDA, None), (0, CUDA, 1), (1, CUDA, 1), (2, CUDA, 2), (-1, CUDA, -1),
    (0x7F00DEAD, CUDA, 0x7F00DEAD),
    (None, ROCM, None), (0, ROCM, 0), (-1, ROCM, -1), (0x7F00DEAD, ROCM, 0x7F00DEAD),
    (0x7F00DEAD, CPU, None), (0, CPU, None),
])
def test_dlpack_stream_translates_per_device(stream, device_type, expected):
    assert dlpack_stream(stream, device_type) == expected


@pytest.mark.parametrize("stream", [1, 2])
def test_dlpack_stream_refuses_cuda_default_streams_on_rocm(stream):
    with pytest.raises(ValueError, match="not valid on ROCm"):
        dlpack_stream(stream, ROCM, "stream")


def test_dlpack_stream_refuses_negative_and_non_int_handles():
    with pytest.raises(ValueError, match="-2"):
        dlpack_stream(-2, CUDA)
    with pytest.raises(TypeError, match="int stream handle"):
        dlpack_stream(1.0, CUDA)


def test_view_passes_stream_0_on_cuda_as_1():
    seen: list[int] = []
    array, _ = host_array((4,), device=(CUDA, 0), sync=seen.append)   # fake CUDA memory
    wrapper = Wrapper(array)
    view(wrapper, stream=0, argname="q")
    assert wrapper.calls[-1]["stream"] == 1 and seen == [1]


def test_view_refuses_stream_1_on_rocm_before_exporting():
    array, _ = host_array((4,), device=(ROCM, 0))
    before = live_exports()
    with pytest.raises(ValueError, match="not valid on ROCm"):
        view(array, stream=1, argname="q")
    assert live_exports() == before


def test_view_passes_no_stream_for_host_arrays():
    wrapper = Wrapper(np.zeros(3, np.float32))
    view(wrapper, stream=0x1234)
    assert "stream" not in wrapper.calls[-1]


# -- consuming numpy ------------------------------------------------------------------

NUMPY_DTYPES = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "int8": np.int8,
                "uint8": np.uint8, "int32": np.int32, "int64": np.int64, "bool": np.bool_}


def numpy_facts(a: np.ndarray, dtype: str) -> tuple:
    strides = tuple(s // a.itemsize for s in a.strides)
    return (a.__array_interface__["data"][0], a.shape, strides, dtype, CPU, 0, False)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("legacy", [False, True], ids=["versioned", "legacy"])
def test_view_of_numpy_array_reads_pointer_shape_strides_dtype(dtype, legacy):
    a = (rng.standard_normal((3, 4, 5)) * 10).astype(NUMPY_DTYPES[dtype])
    v = view(Wrapper(a, legacy=legacy))
    assert facts(v) == numpy_facts(a, dtype)
    assert v.framework == "dlpack" and v.is_contiguous()


def test_view_of_numpy_array_names_its_framework():
    assert view(np.zeros((2, 2), np.float32)).framework == "numpy"


@pytest.mark.parametrize("index", [np.s_[::2, 1:], np.s_[:, ::-1], np.s_[3]])
def test_view_of_strided_numpy_array_keeps_element_strides(index):
    a = np.arange(6 * 8, dtype=np.float32).reshape(6, 8).T[index]
    v = view(a)
    assert facts(v) == numpy_facts(a, "fp32")
    assert not v.is_contiguous()


def test_view_of_zero_dim_array_has_empty_shape_and_strides():
    v = view(np.array(3.5, np.float32))
    assert (v.shape, v.strides, v.numel) == ((), (), 1)


def test_view_of_readonly_numpy_array_is_marked_readonly():
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    assert view(a).readonly


def test_view_keeps_numpy_memory_alive_until_dropped():
    class Tracked(np.ndarray):
        pass

    import weakref
    a = np.zeros(8, np.float32).view(Tracked)
    alive = weakref.ref(a)
    v = view(a)
    del a
    gc.collect()
    assert alive() is not None
    del v
    gc.collect()
    assert alive() is None


# -- consuming hand-made capsules: ownership -------------------------------------------

@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_view_calls_producer_deleter_once_when_released(versioned):
    producer = CountingProducer(versioned=versioned)
    v = view(producer, argname="q")
    copy = v._replace(framework="again")          # shares the owner
    assert producer.calls == []
    assert capsule.is_valid(producer.capsule, capsule.USED_VERSIONED if versioned
                            else capsule.USED_LEGACY)
    del v
    gc.collect()
    assert producer.calls == []
    del copy
    gc.collect()
    assert producer.calls == [producer.address]
    producer.capsule = None
    gc.collect()
    assert producer.calls == [producer.address]


def test_refused_capsule_is_left_to_its_producer():
    producer = CountingProducer(versioned=True, code=5, bits=64)   # complex64
    with pytest.raises(TypeError, match=r"q has dtype complex64.*supported: bf16"):
        view(producer, argname="q")
    gc.collect()
    assert producer.calls == []
    assert capsule.is_valid(producer.capsule, capsule.VERSIONED)   # not renamed


def test_view_refuses_other_dlpack_major_versions():
    producer = CountingProducer(versioned=True, major=2)
    with pytest.raises(ValueError, match="DLPack 2.0"):
        view(producer, argname="k")
    assert capsule.is_valid(producer.capsule, capsule.VERSIONED)


def test_view_computes_compact_strides_when_strides_is_null():
    v = view(CountingProducer(versioned=False, shape=(2, 3, 4), bits=8, code=structs.INT))
    assert v.strides == (12, 4, 1) and v.dtype == "int8"


def test_view_adds_byte_offset_to_pointer():
    producer = CountingProducer(versioned=True, byte_offset=16, strides=(3, 1))
    v = view(producer)
    assert v.ptr == ctypes.addressof(producer.data) + 16


def test_view_reads_readonly_flag():
    v = view(CountingProducer(versioned=True, flags=structs.FLAG_READ_ONLY))
    assert v.readonly


def test_consume_capsule_refuses_used_capsule():
    producer = CountingProducer(versioned=False)
    cap = producer.__dlpack__()
    consume_capsule(cap)
    with pytest.raises(TypeError, match="not an unused 'dltensor'"):
        consume_capsule(cap, argname="v")


def test_deleter_may_run_on_another_thread():
    producer = CountingProducer(versioned=True)
    holder = [view(producer)]
    thread = threading.Thread(target=holder.clear)
    thread.start()
    thread.join()
    gc.collect()
    assert producer.calls == [producer.address]


# -- consuming torch ------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def torch_cases(torch):
    x = torch.randn(2, 6, 4, 8, generator=torch.Generator().manual_seed(0))
    return {
        "contiguous": x,
        "transposed": x.transpose(1, 2),
        "sliced": x[:, 1::2, :, :5],
        "bf16": x.to(torch.bfloat16),
        "fp16_permuted": x.to(torch.float16).flatten(0, 1).permute(2, 0, 1),
        "int64": torch.arange(12).reshape(3, 4),
        "bool": x > 0,
        "zero_dim": torch.tensor(1.5),
        "empty": x[:, :0],
        "requires_grad": x.clone().requires_grad_(),
    }


@pytest.mark.parametrize("case", ["contiguous", "transposed", "sliced", "bf16", "fp16_permuted",
                                  "int64", "bool", "zero_dim", "empty"])
def test_torch_fast_path_matches_dlpack_path(torch, case):
    t = torch_cases(torch)[case]
    fast = view(t, argname="q")
    general = view(Wrapper(t), argname="q")
    assert fast.owner is t and fast.framework == "torch"
    assert isinstance(general.owner, ManagedTensorOwner)
    assert facts(fast) == facts(general)
    assert fast.ptr == t.data_ptr() and fast.strides == t.stride()
    assert type(fast.shape) is tuple


def test_torch_fast_path_reads_bf16(torch):
    v = view(torch.zeros(2, 3, dtype=torch.bfloat16))
    assert v.dtype == "bf16" and v.itemsize == 2


def test_torch_fast_path_ignores_requires_grad(torch):
    t = torch_cases(torch)["requires_grad"]
    assert view(t).ptr == t.data_ptr()


def test_torch_subclass_takes_the_fast_path(torch):
    p = torch.nn.Parameter(torch.zeros(3))
    assert framework_of(p) == "torch" and view(p).owner is p


def test_torch_lazily_negated_view_is_refused(torch):
    t = torch.randn(3, dtype=torch.complex64).conj().imag
    with pytest.raises(ValueError, match=r"q is a lazily negated .*q.resolve_neg\(\)"):
        view(t, argname="q")


def test_torch_unsupported_dtype_names_argument_and_supported_set(torch):
    with pytest.raises(TypeError, match=r"v has dtype torch.complex64.*supported: bf16, fp16"):
        view(torch.zeros(2, dtype=torch.complex64), argname="v")


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_torch_export_refusal_names_the_argument(torch):
    i = torch.tensor([[0, 1], [1, 0]])
    sparse = torch.sparse_coo_tensor(i, torch.tensor([1.0, 2.0]), (2, 2))
    with pytest.raises(ValueError, match=r"k \(Tensor\) refused the DLPack export"):
        view(sparse, argname="k")


# -- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [[1.0, 2.0], 3.0, "q"])
def test_view_of_object_without_dlpack_is_a_type_error(obj):
    with pytest.raises(TypeError, match=r"q is a builtins\.\w+; pass an array with __dlpack__"):
        view(obj, argname="q")


def test_view_of_complex_numpy_array_is_a_type_error():
    with pytest.raises(TypeError, match=r"q has dtype complex64 .*supported: bf16, fp16"):
        view(np.zeros(3, np.complex64), argname="q")


def test_view_refuses_arrays_on_another_device_type(torch):
    for obj in (np.zeros(3, np.float32), torch.zeros(3)):
        with pytest.raises(ValueError, match=r"k is on CPU \(1\) memory; .*CUDA \(2\)"):
            view(obj, platform_device_type=CUDA, argname="k")


# -- producing ------------------------------------------------------------------------

def test_numpy_consumes_dlpack_array_zero_copy():
    array, buf = host_array((3, 4))
    x = np.from_dlpack(array)
    assert x.__array_interface__["data"][0] == array.ptr == buf.ptr
    x[1, 2] = 7.0
    assert buf.bytes.view(np.float32)[1 * 4 + 2] == 7.0


def test_torch_consumes_dlpack_array_zero_copy_with_strides(torch):
    array, _ = host_array((4, 6), "bf16", strides=(1, 4))
    t = torch.from_dlpack(array)
    assert t.data_ptr() == array.ptr and t.stride() == (1, 4) and t.dtype == torch.bfloat16


@pytest.mark.parametrize("consumer", ["numpy", "torch"])
def test_export_is_released_once_when_consumer_array_dies(consumer):
    if consumer == "torch":
        pytest.importorskip("torch")
    before = live_exports()
    released: list[int] = []
    array = DLPackArray(HostBuffer(64, released), (16,), "fp32")
    x = to_framework(array, consumer)
    del array
    gc.collect()
    assert released == [] and live_exports() == before + 1
    del x
    gc.collect()
    assert len(released) == 1 and live_exports() == before


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((0, 8), "dltensor"),
                                               ((1, 0), "dltensor_versioned"),
                                               ((1, 3), "dltensor_versioned")])
def test_unused_capsule_releases_when_dropped(max_version, name):
    before = live_exports()
    released: list[int] = []
    array = DLPackArray(HostBuffer(64, released), (4, 4), "fp32")
    cap = array.__dlpack__(max_version=max_version)
    assert capsule.is_valid(cap, name.encode())
    del array
    gc.collect()
    assert released == [] and live_exports() == before + 1
    del cap
    gc.collect()
    assert len(released) == 1 and live_exports() == before


def test_versioned_export_fields():
    array, _ = host_array((2, 3), "int32", offset=0)
    cap = array.__dlpack__(max_version=(1, 0))
    m = DLManagedTensorVersioned.from_address(capsule.get_pointer(cap, capsule.VERSIONED))
    t = m.dl_tensor
    assert (m.version.major, m.version.minor, m.flags) == (1, 0, 0)
    assert (t.data, t.byte_offset, t.ndim) == (array.ptr, 0, 2)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (structs.INT, 32, 1)
    assert list(t.shape[:2]) == [2, 3] and list(t.strides[:2]) == [3, 1]


def test_offset_is_folded_into_data_pointer():
    buf = HostBuffer(64)
    array = DLPackArray(buf, (4,), "fp32", offset=16)
    v = view(array)
    assert v.ptr == buf.ptr + 16 == np.from_dlpack(array).ctypes.data


@pytest.mark.parametrize("dtype", list(structs.DTYPES))
def test_dlpack_array_round_trips_through_view(dtype):
    array, _ = host_array((2, 3, 5), dtype, strides=(1, 2, 6))
    v = view(array, argname="out")
    assert facts(v) == (array.ptr, (2, 3, 5), (1, 2, 6), dtype, CPU, 0, False)


def test_zero_size_array_exports():
    array, _ = host_array((0, 4))
    assert np.from_dlpack(array).shape == (0, 4)


def test_jax_consumes_dlpack_array_zero_copy():
    jax = pytest.importorskip("jax")
    before = live_exports()
    array, _ = host_array((8, 16))
    x = to_framework(array, "jax")
    assert x.unsafe_buffer_pointer() == array.ptr and x.shape == (8, 16)
    assert view(jax.numpy.ones(3), argname="q").framework == "jax"
    del x, array
    gc.collect()
    assert live_exports() == before


def test_to_framework_follows_like_array_and_refuses_unknown_names():
    array, _ = host_array((3,))
    assert isinstance(to_framework(array, np.zeros(1)), np.ndarray)
    with pytest.raises(ValueError, match="like='tensorflow' names no supported framework"):
        to_framework(array, "tensorflow")


def test_exports_from_many_threads_are_all_released():
    before = live_exports()
    array, _ = host_array((32,))

    def work():
        for _ in range(200):
            x = np.from_dlpack(array)
            del x

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert live_exports() == before


# -- producer stream handshake and refusals ---------------------------------------------

@pytest.mark.parametrize("device_type, stream, synced", [
    (CUDA, None, [1]), (CUDA, 1, [1]), (CUDA, 2, [2]), (CUDA, 0xABC0, [0xABC0]), (CUDA, -1, []),
    (ROCM, None, [0]), (ROCM, 0, [0]), (ROCM, 0xABC0, [0xABC0]), (ROCM, -1, []),
])
def test_producer_makes_consumer_stream_wait(device_type, stream, synced):
    seen: list[int] = []
    array, _ = host_array((4,), device=(device_type, 0), sync=seen.append)
    array.__dlpack__(stream=stream)
    assert seen == synced


def test_producer_sync_hook_defaults_to_buffer_sync():
    seen: list[int] = []
    buf = HostBuffer(16)
    buf.sync = seen.append
    DLPackArray(buf, (4,), "fp32", device=(CUDA, 0)).__dlpack__(stream=77)
    assert seen == [77]


@pytest.mark.parametrize("device_type, stream, error", [
    (CUDA, 0, ValueError), (ROCM, 1, ValueError), (ROCM, 2, ValueError),
    (CPU, 5, BufferError), (CUDA, -3, ValueError),
])
def test_producer_refuses_invalid_streams(device_type, stream, error):
    array, _ = host_array((4,), device=(device_type, 0))
    with pytest.raises(error, match=f"stream={stream}"):
        array.__dlpack__(stream=stream)


def test_producer_refuses_copies_and_other_devices():
    array, _ = host_array((4,))
    with pytest.raises(BufferError, match="copy=True"):
        array.__dlpack__(copy=True)
    with pytest.raises(BufferError, match=r"cannot export to \(2, 0\)"):
        array.__dlpack__(dl_device=(CUDA, 0))
    assert capsule.is_valid(array.__dlpack__(dl_device=(CPU, 0), copy=False), capsule.LEGACY)


def test_dlpack_array_validates_its_description():
    with pytest.raises(TypeError, match=r"dtype 'complex64' is not supported \(supported: bf16"):
        DLPackArray(HostBuffer(8), (1,), "complex64")
    with pytest.raises(ValueError, match="needs 80 bytes; the buffer has 64"):
        DLPackArray(HostBuffer(64), (4, 5), "fp32")
    with pytest.raises(ValueError, match="strides"):
        DLPackArray(HostBuffer(64), (4, 4), "fp32", strides=(4,))
    with pytest.raises(ValueError, match="device"):
        DLPackArray(HostBuffer(64), (4,), "fp32", device=(7, 0))


# -- interpreter exit --------------------------------------------------------------------

# Buffer's methods get globals of their own: a class defined in __main__ would pin
# __main__'s globals (through the live-export registry) and nothing would be released.
EXIT_BUFFER = '''
import ctypes, os

class Buffer:
    write = staticmethod(os.write)

    def __init__(self, name, nbytes=64):
        self.name, self.raw, self.nbytes = name, bytearray(nbytes), nbytes
        self.ptr = ctypes.addressof((ctypes.c_char * nbytes).from_buffer(self.raw))

    def __del__(self):
        self.write(1, b"released " + self.name + b"\\n")
'''

EXIT_SCRIPT = textwrap.dedent("""
    import gc, sys
    from pathlib import Path
    import numpy as np
    import torch
    from pyhipattn.dlpack import DLPackArray

    namespace = {}
    exec(Path(sys.argv[1]).read_text(), namespace)
    Buffer = namespace.pop("Buffer")
    del namespace

    kept = torch.from_dlpack(DLPackArray(Buffer(b"torch"), (16,), "fp32"))
    kept_np = np.from_dlpack(DLPackArray(Buffer(b"numpy"), (16,), "fp32"))
    unused = DLPackArray(Buffer(b"capsule"), (16,), "fp32").__dlpack__()
    dropped = torch.from_dlpack(DLPackArray(Buffer(b"dropped"), (16,), "fp32"))

    # pyhipattn's modules and their globals go away; exports must still be releasable
    for name in [m for m in sys.modules if m.startswith("pyhipattn")]:
        sys.modules[name].__dict__.clear()
        del sys.modules[name]
    del DLPackArray
    gc.collect()
    del dropped
    gc.collect()
    print("exiting", flush=True)
""")


def test_exports_survive_interpreter_exit(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "buffer.py").write_text(EXIT_BUFFER)
    (tmp_path / "exit.py").write_text(EXIT_SCRIPT)
    env = {**os.environ, "PYTHONPATH": PKG_PARENT}
    proc = subprocess.run([sys.executable, str(tmp_path / "exit.py"), str(tmp_path / "buffer.py")],
                          capture_output=True, text=True, timeout=120, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["released dropped", "exiting"], proc.stdout
    # the rest are released during interpreter teardown, each exactly once
    assert sorted(lines[2:]) == ["released capsule", "released numpy", "released torch"], \
        proc.stdout
    assert "Exception ignored" not in proc.stderr, proc.stderr


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_capsule_dropped_on_a_consumer_error_path_still_releases():
    # numpy takes the capsule, refuses bf16 and drops the capsule with its error set
    before = live_exports()
    array, _ = host_array((4,), "bf16")
    with pytest.raises(Exception):
        np.from_dlpack(array)
    gc.collect()
    assert live_exports() == before
