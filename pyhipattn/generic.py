"""Launch any kernel of any code object from Python: ``pyhipattn.load(path)["name"].launch(...)``.

    mod = pyhipattn.load("kernels/co/sm_90a/common_add.cubin")
    mod["add_kernel"].launch((blocks,), (256,), x, y, out, n, 2.0)       # positional
    mod["add_kernel"].launch((blocks,), (256,), x=x, y=y, out=out, n=n, alpha=2.0)   # by name

``load`` parses the metadata now and loads nothing; the first launch on a device loads the
code object there (through the shared per-device module cache).  Arguments are packed from the
kernel's own metadata (``pyhipattn.kernargs``): ints, floats, and arrays passed by their
device address.  An array is anything with ``data_ptr()`` and ``.device`` (PyTorch),
``__cuda_array_interface__`` (CuPy, Numba, ...) or DLPack (``__dlpack_device__``; JAX).
Arrays in host memory are refused.  ``stream=None`` queues on the current stream of the
framework the arrays came from (PyTorch, CuPy), else on the default stream; ``device=None``
takes the arrays' device, else the current device.

Run on hardware: not by the author; tests/gpu/test_runtime_gpu.py exercises it with
PyTorch, CuPy and JAX arrays.
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Iterator, Sequence

from pyhipattn import kernargs
from pyhipattn.arch import compatible_arches
from pyhipattn.codeobj.model import CodeObject, KernelInfo
from pyhipattn.errors import ArchNotFoundError
from pyhipattn.runtime import detect
from pyhipattn.runtime import modules
from pyhipattn.runtime.modules import Kernel
from pyhipattn.runtime.streams import stream_handle

#: DLPack device types that are host memory (CPU, pinned CUDA host, pinned ROCm host); kernels get none of them.
_HOST_DEVICE_TYPES = {1: "CPU", 3: "CUDAHost", 11: "ROCMHost"}


def load(path: str | os.PathLike | bytes | CodeObject) -> "Module":
    """Parse a code object (hsaco, offload bundle, cubin; a path, its bytes, or a CodeObject)."""
    return Module(path)


class Module:
    """A parsed code object file: every arch entry it holds, nothing loaded yet."""

    def __init__(self, source: str | os.PathLike | bytes | CodeObject) -> None:
        if isinstance(source, CodeObject):
            entries = [source]
            self.source = source.source
        else:
            from pyhipattn import codeobj

            data = source if isinstance(source, (bytes, bytearray)) else os.fspath(source)
            entries = list(codeobj.read(data))
            self.source = "<bytes>" if isinstance(source, (bytes, bytearray)) else os.fspath(source)
        if not entries:
            raise ArchNotFoundError(f"{self.source} holds no code object")
        self.entries: tuple[CodeObject, ...] = tuple(entries)
        names: dict[str, None] = {}
        for co in self.entries:
            names.update(dict.fromkeys(co.kernels))
        self.kernel_names: tuple[str, ...] = tuple(sorted(names))
        self._handles: dict[str, KernelHandle] = {}

    @property
    def arches(self) -> tuple[str, ...]:
        return tuple(co.arch for co in self.entries)

    def entry_for(self, device_arch: str) -> CodeObject:
        """The entry a ``device_arch`` device runs best (exact arch first, then compatible ones)."""
        for arch in compatible_arches(device_arch):
            for co in self.entries:
                if co.arch == arch:
                    return co
        raise ArchNotFoundError(
            f"{self.source} has code for {', '.join(self.arches)}; a {device_arch} device runs "
            f"{', '.join(compatible_arches(device_arch))}"
        )

    def __getitem__(self, name: str) -> "KernelHandle":
        h = self._handles.get(name)
        if h is None:
            if name not in self.kernel_names:
                raise KeyError(
                    f"kernel {name!r} is not in {self.source}; it has: {', '.join(self.kernel_names) or 'no kernels'}"
                )
            h = self._handles[name] = KernelHandle(self, name)
        return h

    def __contains__(self, name: object) -> bool:
        return name in self.kernel_names

    def __iter__(self) -> Iterator[str]:
        return iter(self.kernel_names)

    def __repr__(self) -> str:
        return f"<pyhipattn.Module {self.source} arches={list(self.arches)} kernels={list(self.kernel_names)}>"


class KernelHandle:
    """One kernel of a Module; ``launch`` runs it on any device the module has code for."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        self._kernels: dict[int, Kernel] = {}
        first = next(co for co in module.entries if name in co.kernels)
        self._arg_names = tuple(a.name or f"#{i}" for i, a in enumerate(first[name].explicit_args))

    @property
    def info(self) -> KernelInfo:
        """KernelInfo of the first entry holding the kernel (``info_for(arch)`` for a given arch)."""
        return next(co for co in self.module.entries if self.name in co.kernels)[self.name]

    def info_for(self, arch: str) -> KernelInfo:
        return self.module.entry_for(arch)[self.name]

    def kernel(self, device: int) -> Kernel:
        """The loaded kernel on ``device`` (loads the module there on first use)."""
        k = self._kernels.get(device)
        if k is None or not k.alive:
            backend = detect.get_backend()
            co = self.module.entry_for(backend.device_info(device).arch)
            k = self._kernels[device] = modules.default_cache.kernel(device, co, self.name)
        return k

    def launch(self, grid: int | Sequence[int], block: int | Sequence[int], *args: Any,
               shared_mem: int = 0, stream: Any = None, device: int | None = None, **named: Any) -> None:
        """Queue the kernel: ``grid`` blocks of ``block`` threads (ints or 1-3 tuples).

        Pass the kernel's arguments either all positionally (metadata order) or all by name.
        """
        if args and named:
            raise TypeError(f"{self.name}.launch: pass the kernel's arguments all positionally or all by name, not both")
        framework: str | None = None
        array_device: int | None = None
        deferred = False  # any argument to read over DLPack once the stream is known
        if named:
            values: Any = {}
            for key, x in named.items():
                if type(x) in _SCALARS:
                    values[key] = x
                    continue
                v, framework, array_device = _convert(key, x, framework, array_device)
                deferred = deferred or type(v) is _DLPackArg
                values[key] = v
        else:
            values = []
            names = self._arg_names
            for i, x in enumerate(args):
                if type(x) in _SCALARS:
                    values.append(x)
                    continue
                label = names[i] if i < len(names) else f"#{i}"
                v, framework, array_device = _convert(label, x, framework, array_device)
                deferred = deferred or type(v) is _DLPackArg
                values.append(v)
        backend = detect.get_backend()
        if device is None:
            device = array_device if array_device is not None else backend.current_device()
        elif array_device is not None and array_device != device:
            raise ValueError(f"device={device} but the array arguments are on device {array_device}")
        kernel = self._kernels.get(device)
        if kernel is None or not kernel.alive:
            kernel = self.kernel(device)
        s = stream if type(stream) is int else stream_handle(
            stream, default=backend.default_stream, framework=framework, device=device)
        if stream is not None and array_device is not None:
            sdev = backend.stream_device(s)
            if sdev is not None and sdev != array_device:
                raise ValueError(f"stream belongs to device {sdev} but the array arguments are on device "
                                 f"{array_device}; pass a stream of device {array_device}")
        if deferred:
            if named:
                values = {k: v.pointer(s) if type(v) is _DLPackArg else v for k, v in values.items()}
            else:
                values = [v.pointer(s) if type(v) is _DLPackArg else v for v in values]
        packed = (kernargs.pack_by_names(kernel.info, values) if named
                  else kernargs.pack_positional(kernel.info, values))
        n = len(packed)
        if not kernel.min_kernarg_bytes <= n <= kernel.max_kernarg_bytes:
            kernel.check_kernargs(n, f"the packed arguments of {self.name}")
        kernel.launch(_dims("grid", grid), _dims("block", block), shared_mem, s, packed)

    def __repr__(self) -> str:
        return f"<pyhipattn.KernelHandle {self.name} of {self.module.source}>"


def _dims(what: str, value: int | Sequence[int]) -> tuple[int, int, int]:
    if type(value) is tuple and len(value) == 3:  # the common case, checked by the driver
        return value  # type: ignore[return-value]
    if isinstance(value, int) and not isinstance(value, bool):
        dims = (value,)
    else:
        try:
            dims = tuple(int(v) for v in value)
        except TypeError:
            raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints; got {value!r}") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} must be 1 to 3 positive ints; got {value!r}")
    return dims + (1,) * (3 - len(dims))  # type: ignore[return-value]


class _DLPackArg:
    """An argument read over DLPack once the launch stream is known (the export orders the
    producer's pending work before that stream)."""

    __slots__ = ("name", "obj")

    def __init__(self, name: str, obj: Any) -> None:
        self.name = name
        self.obj = obj

    def pointer(self, stream: int) -> int:
        try:
            from pyhipattn.dlpack import view
        except ImportError:  # without pyhipattn.dlpack: JAX's own accessor
            unsafe = getattr(self.obj, "unsafe_buffer_pointer", None)
            if unsafe is None:
                raise TypeError(f"argument {self.name} supports only DLPack, and pyhipattn.dlpack is unavailable") from None
            return int(unsafe())
        return view(self.obj, stream=stream, argname=f"argument {self.name}").ptr


_SCALARS = frozenset((int, float, bool))


def _convert(name: str, x: Any, framework: str | None, device: int | None) -> tuple[Any, str | None, int | None]:
    """``(value to pack, framework, device)`` for one argument; arrays become device addresses
    (or a _DLPackArg resolved after the stream is chosen)."""
    if type(x) in _SCALARS:
        return x, framework, device
    if isinstance(x, numbers.Number) and not hasattr(x, "data_ptr"):  # numpy scalars and the like
        return (int(x) if isinstance(x, numbers.Integral) else float(x)), framework, device
    value, dev, fw = _array_arg(name, x)
    if device is not None and dev is not None and dev != device:
        raise ValueError(f"argument {name} is on device {dev} but an earlier array argument is on device {device}")
    return value, framework or fw, device if dev is None else dev


def _host_error(name: str, device_type: int) -> ValueError:
    what = _HOST_DEVICE_TYPES.get(device_type, "host")
    place = "the CPU" if what == "CPU" else f"the host ({what})"
    return ValueError(f"argument {name} is on {place} (device type {device_type}); the kernel needs GPU memory")


def _host_memory_is_device_memory() -> bool:
    """True when the process drives the emulator (``PYHIPATTN_PLATFORM=emulate``)."""
    try:
        return detect.get_backend().dlpack_device_type == 1
    except Exception:
        return False


def _array_arg(name: str, x: Any) -> tuple[Any, int | None, str | None]:
    """``(address or _DLPackArg, device, framework)`` of an array argument; ValueError for host arrays."""
    module = type(x).__module__.split(".", 1)[0]
    if module == "torch" and hasattr(x, "data_ptr"):
        dev = x.device
        if dev.type != "cuda":  # PyTorch says "cuda" on ROCm too
            raise _host_error(name, 1) if dev.type == "cpu" else ValueError(
                f"argument {name} is on a {dev.type} device; the kernel needs CUDA/ROCm GPU memory")
        return int(x.data_ptr()), dev.index, "torch"
    # JAX goes over DLPack: its export orders JAX's pending work before our launch stream.
    cai = None if module in ("jax", "jaxlib") else getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        dev = getattr(getattr(x, "device", None), "id", None)
        return int(cai["data"][0]), dev if isinstance(dev, int) else None, ("cupy" if module == "cupy" else None)
    dlpack_device = getattr(x, "__dlpack_device__", None)
    if dlpack_device is not None:
        device_type, device_id = dlpack_device()
        if int(device_type) in _HOST_DEVICE_TYPES:
            if _host_memory_is_device_memory():       # the emulator: host arrays are its arrays
                from pyhipattn.dlpack import view

                return view(x, argname=f"argument {name}").ptr, 0, module
            raise _host_error(name, int(device_type))
        return _DLPackArg(name, x), int(device_id), ("jax" if module in ("jax", "jaxlib") else None)
    if hasattr(x, "__array_interface__"):  # numpy arrays without DLPack support
        raise _host_error(name, 1)
    raise TypeError(
        f"argument {name} is a {type(x).__module__}.{type(x).__qualname__}; accepted: ints, floats, and GPU "
        "arrays (data_ptr(), __cuda_array_interface__ or DLPack)"
    )
