"""Platform detection: which GPU platform this process drives, and its backend object.

``get_backend()`` picks the platform once per process (thread-safe, cached):

- ``PYHIPATTN_PLATFORM=nvidia`` or ``=amd`` forces one, and fails with a PlatformError naming
  what is missing when that one is unavailable; ``=emulate`` selects the CPU emulator of AMD
  GPUs (``pyhipattn.emulate``: numpy arrays, ``PYHIPATTN_EMULATE_ARCH``), which is never
  picked unless asked for; any other value is a ValueError.
- otherwise NVIDIA when ``cuda.bindings`` imports and ``cuInit`` finds at least one device,
  else AMD when ``hip`` (hip-python) imports and finds a device, else PlatformError saying
  why each was rejected.

``platform_report()`` tells the same story as data, never raising (``pyhipattn info``).
Nothing here imports ``cuda.bindings`` / ``hip`` before the first ``get_backend()`` or
``platform_report()``.

Run on hardware: not yet (the no-GPU paths are covered by tests/test_runtime.py).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from pyhipattn.errors import PlatformError
from pyhipattn.runtime.base import Backend

PLATFORM_ENV = "PYHIPATTN_PLATFORM"
_PLATFORMS = ("nvidia", "amd")
_FORCEABLE = _PLATFORMS + ("emulate",)
_BINDINGS = {"nvidia": "cuda.bindings", "amd": "hip", "emulate": "pyhipattn.emulate"}

_lock = threading.Lock()
_backend: Backend | None = None
_instances: dict[str, Backend] = {}      # platform -> constructed backend
_failures: dict[str, str] = {}           # platform -> why it could not be constructed


def _construct(platform: str) -> Backend:
    if platform == "nvidia":
        from pyhipattn.runtime.cuda import CudaBackend

        return CudaBackend()
    if platform == "emulate":
        from pyhipattn.dlpack.consume import add_host_view_listener
        from pyhipattn.emulate.backend import expose_view, make_backend

        backend = make_backend()
        add_host_view_listener(expose_view)
        return backend
    from pyhipattn.runtime.hip import HipBackend

    return HipBackend()


def _try(platform: str) -> Backend | None:
    """The platform's backend, or None with the reason recorded in ``_failures`` (call under _lock)."""
    if platform in _instances:
        return _instances[platform]
    if platform in _failures:
        return None
    try:
        _instances[platform] = _construct(platform)
        return _instances[platform]
    except Exception as e:  # ImportError, a driver without devices, libcuda missing, ...
        _failures[platform] = f"{type(e).__name__}: {e}"
        return None


def forced_platform() -> str | None:
    """The platform named by PYHIPATTN_PLATFORM, None when unset; ValueError for other values."""
    value = os.environ.get(PLATFORM_ENV, "").strip().lower()
    if not value:
        return None
    if value not in _FORCEABLE:
        raise ValueError(
            f"{PLATFORM_ENV}={os.environ[PLATFORM_ENV]!r}: accepted values are 'amd', 'nvidia' and 'emulate' "
            "(or leave it unset to detect the platform)"
        )
    return value


def get_backend() -> Backend:
    """The process's GPU backend (constructed on first call, then cached)."""
    b = _backend
    if b is not None:
        return b
    return _select()


def _select() -> Backend:
    global _backend
    forced = forced_platform()
    with _lock:
        if _backend is not None:
            return _backend
        order = (forced,) if forced else _PLATFORMS
        for platform in order:
            b = _try(platform)
            if b is not None:
                _backend = b
                return b
        if forced:
            raise PlatformError(
                f"{PLATFORM_ENV}={forced} but {_BINDINGS[forced]} is unusable: {_failures[forced]}"
            )
        raise PlatformError(
            "no GPU platform: "
            + "; ".join(f"{_BINDINGS[p]}: {_failures[p]}" for p in _PLATFORMS)
            + f"; set {PLATFORM_ENV}=nvidia or {PLATFORM_ENV}=amd to require one and see its error alone"
        )


def set_backend(backend: Backend | None) -> None:
    """Install ``backend`` as the process's backend (None: forget it and detect again).

    For tests and for embedding pyhipattn in a program that built its own backend; modules
    loaded through the previous backend should be unloaded first (``modules.unload_all``).
    """
    global _backend
    with _lock:
        _backend = backend
        if backend is None:
            _instances.clear()
            _failures.clear()


def _describe(platform: str, b: Backend | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"bindings": _BINDINGS[platform], "usable": b is not None}
    if b is None:
        entry["error"] = _failures.get(platform)
        return entry
    entry["launcher"] = getattr(b, "launcher_name", None)
    if getattr(b, "driver_version", None) is not None:
        entry["driver_version"] = b.driver_version  # type: ignore[attr-defined]
    devices = []
    for i in range(b.device_count()):
        try:
            d = b.device_info(i)
            devices.append({"index": i, "name": d.name, "arch": d.arch, "raw_arch": d.raw_arch,
                            "compute_units": d.compute_units, "total_memory": d.total_memory})
        except Exception as e:
            devices.append({"index": i, "error": f"{type(e).__name__}: {e}"})
    entry["devices"] = devices
    return entry


def _bindings_version(module: str) -> str | None:
    from importlib import metadata

    dist = {"cuda.bindings": ("cuda-bindings", "cuda-python"), "hip": ("hip-python",)}[module]
    for name in dist:
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def platform_report() -> dict[str, Any]:
    """What is present and what is missing, as a dict; never raises.

    ``{"selected": "nvidia" | "amd" | None, "forced": ..., "error": ..., "nvidia": {...},
    "amd": {...}}`` where each platform entry has ``bindings``, ``installed`` (distribution
    and version, or None), ``usable``, and either ``error`` or ``devices`` (index, name, arch).
    """
    report: dict[str, Any] = {"selected": None, "forced": None, "error": None}
    try:
        report["forced"] = forced_platform()
    except ValueError as e:
        report["error"] = str(e)
    try:
        report["selected"] = get_backend().platform if report["error"] is None else None
    except Exception as e:
        report["error"] = f"{type(e).__name__}: {e}"
    for platform in _PLATFORMS:
        with _lock:
            b = _try(platform)
        try:
            entry = _describe(platform, b)
        except Exception as e:
            entry = {"bindings": _BINDINGS[platform], "usable": False, "error": f"{type(e).__name__}: {e}"}
        try:
            entry["installed"] = _bindings_version(_BINDINGS[platform])
        except Exception:
            entry["installed"] = None
        report[platform] = entry
    return report

