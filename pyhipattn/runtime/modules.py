"""Per-device module cache, shared by every thread of the process.

A code object is parsed once per file, loaded once per device (with that device current, so
each device gets its own copy), and each kernel's function handle is looked up once per
device.  This fixes both bugs of the AITER seed (``seeds/aiter-thread-safe-cache-pr.txt``):
a ``thread_local`` cache loads the same module once per *thread*, and a plain shared map
races.  Every "once" here is a per-key ``Future`` created under a short lock and filled
outside it, so a slow load of one key never blocks threads asking for another, and 32 threads
asking for the same key at once cause exactly one load (the others wait on the Future).  A
failed load is forgotten, so a later call retries it.

Identity of a code object (the cache key): ``("file", realpath, mtime_ns, size)`` for paths,
``("sha256", digest)`` for a ``CodeObject`` given directly; together with the arch entry
selected for the device.  Files are stat'ed when first seen; a file replaced afterwards is
seen again only after ``unload_all()``.

``unload_all()`` unloads everything; an ``atexit`` hook calls it and swallows errors there
only (the driver may already be tearing down).

Run on hardware: not by the author; the locking is tested with a fake backend in
tests/test_runtime.py, the real loads in tests/gpu/test_runtime_gpu.py.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import threading
import weakref
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, TypeVar, Union

from pyhipattn.arch import compatible_arches
from pyhipattn.codeobj.model import CodeObject, KernelInfo
from pyhipattn.errors import ArchNotFoundError, CodeObjectError
from pyhipattn.runtime.base import Backend, on_device

T = TypeVar("T")
Source = Union[str, os.PathLike, CodeObject]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
_SEARCH_ROOTS = (_PACKAGE_DIR, _PACKAGE_DIR.parent)   # pyhipattn/ and the checkout root
DEFAULT_DYNAMIC_SHARED_LIMIT = 48 * 1024


class OnceMap:
    """``get(key, factory)``: ``factory()`` runs at most once per key, shared by all threads.

    The lock is held only to find or insert the key's Future, never while ``factory`` runs.
    If ``factory`` raises, the key is removed (waiters see the exception; a later call retries).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: dict[Hashable, Future] = {}

    def get(self, key: Hashable, factory: Callable[[], T]) -> T:
        fut = self._futures.get(key)
        if fut is not None and fut.done():
            return fut.result()
        owner = False
        if fut is None:
            with self._lock:
                fut = self._futures.get(key)
                if fut is None:
                    fut = self._futures[key] = Future()
                    owner = True
        if owner:
            try:
                value = factory()
            except BaseException as e:
                with self._lock:
                    self._futures.pop(key, None)
                fut.set_exception(e)
                raise
            fut.set_result(value)
            return value
        return fut.result()

    def peek(self, key: Hashable) -> Any:
        """The value for ``key`` if it finished successfully, else None."""
        fut = self._futures.get(key)
        if fut is None or not fut.done() or fut.exception() is not None:
            return None
        return fut.result()

    def pop_all(self) -> list[Any]:
        """Remove every key; return the values that had finished successfully."""
        with self._lock:
            futures = list(self._futures.values())
            self._futures.clear()
        return [f.result() for f in futures if f.done() and f.exception() is None]

    def __len__(self) -> int:
        return len(self._futures)


@dataclass(frozen=True)
class LoadedModule:
    device: int
    handle: int
    code_object: CodeObject
    key: tuple
    backend: Backend


class Kernel:
    """One kernel of one loaded module on one device: what a launch needs, precomputed.

    ``min_kernarg_bytes`` is the explicit argument size (what ``extra`` must carry at least);
    ``max_kernarg_bytes`` the metadata's whole kernarg size (AMD: including hidden args).
    """

    __slots__ = ("name", "device", "function", "info", "module", "backend", "alive",
                 "min_kernarg_bytes", "max_kernarg_bytes", "_shared_allowed", "_lock")

    def __init__(self, name: str, module: LoadedModule, function: int, info: KernelInfo) -> None:
        self.name = name
        self.device = module.device
        self.function = function
        self.info = info
        self.module = module
        self.backend = module.backend
        self.alive = True  # False once unload_all() unloaded its module
        self.min_kernarg_bytes = info.explicit_kernarg_size
        self.max_kernarg_bytes = max(info.kernarg_size, self.min_kernarg_bytes)
        self._shared_allowed = DEFAULT_DYNAMIC_SHARED_LIMIT
        self._lock = threading.Lock()

    def check_kernargs(self, n: int, what: str = "kernargs") -> None:
        if not self.min_kernarg_bytes <= n <= self.max_kernarg_bytes:
            want = (f"{self.min_kernarg_bytes}" if self.min_kernarg_bytes == self.max_kernarg_bytes
                    else f"{self.min_kernarg_bytes} to {self.max_kernarg_bytes}")
            raise ValueError(
                f"{what} has {n} bytes; kernel {self.name} ({self.module.code_object.source}) takes {want} "
                "bytes of explicit arguments according to its metadata"
            )

    def allow_shared(self, nbytes: int) -> None:
        """Raise the kernel's dynamic shared memory limit to ``nbytes`` (once per new maximum)."""
        with self._lock:
            if nbytes <= self._shared_allowed:
                return
            limit = self.backend.device_info(self.device).max_shared_per_block
            static = self.info.shared_bytes
            if nbytes + static > limit:
                raise ValueError(
                    f"shared_mem={nbytes} plus kernel {self.name}'s {static} bytes of static shared memory "
                    f"exceeds device {self.device}'s limit of {limit} bytes per block"
                )
            with on_device(self.backend, self.device):
                self.backend.set_max_dynamic_shared(self.function, nbytes)
            self._shared_allowed = nbytes

    def launch(self, grid: tuple[int, int, int], block: tuple[int, int, int], shared_mem: int,
               stream: int, kernargs: bytes) -> None:
        """Queue the kernel on ``stream`` (an int handle) with ``kernargs`` (already checked)."""
        if shared_mem > self._shared_allowed:
            self.allow_shared(shared_mem)
        with on_device(self.backend, self.device):
            self.backend.launch(self.function, grid, block, shared_mem, stream, kernargs)

    def __repr__(self) -> str:
        return f"<Kernel {self.name} on device {self.device} from {self.module.code_object.source}>"


def _kernel_roots() -> tuple[Path, ...]:
    from pyhipattn.kernels_dir import kernels_dir

    try:
        return (kernels_dir(),)
    except FileNotFoundError:
        return ()


def _resolve_path(path: str | os.PathLike, arch: str) -> Path:
    """A code-object path: ``{arch}`` filled in, relative paths tried from cwd, the shipped
    code-object directory (``kernels/co`` or ``PYHIPATTN_KERNELS_DIR``: plans name objects
    relative to it), then the checkout."""
    text = os.fspath(path)
    candidates = [text.format(arch=a) for a in compatible_arches(arch)] if "{arch}" in text else [text]
    for c in candidates:
        p = Path(c)
        if p.is_absolute():
            if p.exists():
                return p
            continue
        for root in (Path.cwd(), *_kernel_roots(), *_SEARCH_ROOTS):
            if (root / p).exists():
                return (root / p).resolve()
    raise FileNotFoundError(
        f"code object {text!r} not found (for arch {arch}; looked in the current directory and "
        f"{', '.join(str(r) for r in _SEARCH_ROOTS)})"
    )


class ModuleCache:
    """The cache; one per process is normal (``default_cache``), tests build their own.

    ``backend``: a Backend, or None to use ``pyhipattn.runtime.get_backend()`` at first need.
    """

    def __init__(self, backend: Backend | None = None) -> None:
        self._backend = backend
        self._parsed = OnceMap()      # (file key | digest, device arch) -> CodeObject
        self._modules = OnceMap()     # (device, identity) -> LoadedModule
        self._kernels = OnceMap()     # (device, identity, name) -> Kernel
        self._fast: dict[tuple, Kernel] = {}   # (source str, name, device) -> Kernel
        self._registered: dict[str, Source] = {}
        self._digests: dict[int, tuple[weakref.ref, str]] = {}
        self._lock = threading.Lock()
        self._loads: dict[tuple, int] = {}

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            from pyhipattn.runtime.detect import get_backend

            return get_backend()
        return self._backend

    # ---- identity and parsing --------------------------------------------------------
    def register(self, name: str, source: Source) -> None:
        """Let ``name`` (e.g. a LaunchPlan's ``code_object``) stand for a path or CodeObject."""
        with self._lock:
            self._registered[name] = source
            self._fast = {k: v for k, v in self._fast.items() if k[0] != name}

    def _digest(self, co: CodeObject) -> str:
        entry = self._digests.get(id(co))
        if entry is not None and entry[0]() is co:
            return entry[1]
        digest = hashlib.sha256(co.image).hexdigest()
        self._digests[id(co)] = (weakref.ref(co), digest)
        return digest

    def code_object(self, source: Source, device_arch: str) -> tuple[tuple, CodeObject]:
        """``(identity, CodeObject)`` of ``source`` for a device of ``device_arch``.

        Raises ArchNotFoundError when the source holds nothing the device can run.
        """
        if isinstance(source, str) and source in self._registered:
            source = self._registered[source]
        if isinstance(source, CodeObject):
            if source.arch not in compatible_arches(device_arch):
                raise ArchNotFoundError(
                    f"code object {source.source} is for {source.arch}; a {device_arch} device runs "
                    f"{', '.join(compatible_arches(device_arch))}"
                )
            return ("sha256", self._digest(source), source.arch), source
        path = _resolve_path(source, device_arch)
        st = path.stat()
        file_key = ("file", str(path), st.st_mtime_ns, st.st_size)
        co = self._parsed.get((file_key, device_arch), lambda: _read_for_device(path, device_arch))
        return file_key + (co.arch,), co

    # ---- loading ---------------------------------------------------------------------
    def module(self, device: int, source: Source) -> LoadedModule:
        """The module of ``source`` loaded on ``device`` (loaded on first use, once)."""
        backend = self.backend
        arch = backend.device_info(device).arch
        identity, co = self.code_object(source, arch)
        if co.platform != backend.platform:
            raise CodeObjectError(
                f"code object {co.source} is for {co.platform}; this process drives {backend.platform} GPUs"
            )

        def load() -> LoadedModule:
            handle = backend.module_load(device, co.image)
            with self._lock:
                self._loads[(device, identity)] = self._loads.get((device, identity), 0) + 1
            return LoadedModule(device, handle, co, identity, backend)

        return self._modules.get((device, identity), load)

    def kernel(self, device: int, source: Source, name: str) -> Kernel:
        """Kernel ``name`` of ``source`` on ``device``; loads the module on first use."""
        if isinstance(source, str):
            k = self._fast.get((source, name, device))
            if k is not None and k.alive:
                return k
        module = self.module(device, source)
        co = module.code_object

        def make() -> Kernel:
            info = co[name]  # KeyError listing the kernels the code object has
            # AMD metadata's .symbol is the kernel descriptor ("<name>.kd"); the module API wants the name.
            symbol = (info.symbol or info.name).removesuffix(".kd")
            return Kernel(name, module, module.backend.get_function(module.handle, symbol), info)

        k = self._kernels.get((device, module.key, name), make)
        if isinstance(source, str):
            self._fast[(source, name, device)] = k
        return k

    # ---- counters and teardown -------------------------------------------------------
    def load_count(self, device: int, source: Source | tuple) -> int:
        """How many times ``source`` (path, CodeObject, or identity tuple) was loaded on ``device``."""
        if isinstance(source, tuple):
            identity = source
        else:
            identity, _ = self.code_object(source, self.backend.device_info(device).arch)
        return self._loads.get((device, identity), 0)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            loads = dict(self._loads)
        return {"modules": len(self._modules), "kernels": len(self._kernels),
                "parsed": len(self._parsed), "loads": loads}

    def unload_all(self, *, at_exit: bool = False) -> None:
        """Unload every module (each on its device) and forget every kernel.

        ``at_exit=True`` swallows driver errors (the driver may already be shutting down).
        Kernels obtained earlier must not be launched afterwards.
        """
        with self._lock:
            self._fast.clear()
            self._loads.clear()
        for k in self._kernels.pop_all():
            k.alive = False
        self._parsed.pop_all()
        errors = []
        for m in self._modules.pop_all():
            try:
                m.backend.module_unload(m.device, m.handle)
            except Exception as e:
                if not at_exit:
                    errors.append(e)
        if errors:
            raise errors[0]


def _read_for_device(path: Path, device_arch: str) -> CodeObject:
    """Parse ``path``, picking the best entry a ``device_arch`` device can run."""
    from pyhipattn import codeobj

    return codeobj.read_for_arch(str(path), device_arch)


default_cache = ModuleCache()


def get_kernel(device: int, source: Source, name: str) -> Kernel:
    """Kernel ``name`` of ``source`` (a path, a registered name, or a CodeObject) on ``device``."""
    return default_cache.kernel(device, source, name)


def register(name: str, source: Source) -> None:
    default_cache.register(name, source)


def load_count(device: int, source: Source | tuple) -> int:
    return default_cache.load_count(device, source)


def stats() -> dict[str, Any]:
    return default_cache.stats()


_unload_listeners: list = []


def on_unload(callback) -> None:
    """Call ``callback()`` whenever ``unload_all`` runs (caches of loaded kernels clear here)."""
    _unload_listeners.append(callback)


def unload_all() -> None:
    """Unload every module the default cache loaded (``pyhipattn.unload_all``); everything that
    cached kernels (the API's prepared launches) forgets them first."""
    for cb in _unload_listeners:
        cb()
    default_cache.unload_all()


@atexit.register
def _unload_at_exit() -> None:
    try:
        default_cache.unload_all(at_exit=True)
    except Exception:  # never fail interpreter shutdown
        pass
