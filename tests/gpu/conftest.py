"""GPU tests: skipped (with the reason) where no NVIDIA/AMD GPU is usable from torch."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def _gpu_reason() -> str | None:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no GPU visible to torch"
    try:
        from pyhipattn.runtime import get_backend

        get_backend()
    except Exception as e:  # the reason is the point: report it
        return f"pyhipattn has no GPU backend: {e}"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _gpu_reason()
    if reason is None:
        return
    mark = pytest.mark.skip(reason=reason)
    for item in items:
        if "tests/gpu" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(mark)


@pytest.fixture(scope="module")
def torch():
    """torch, with a GPU it can see (else the test skips with the reason)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA/ROCm device visible to torch")
    return torch


@pytest.fixture(scope="module")
def cupy():
    """cupy, with a GPU it can see (else the test skips with the reason)."""
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no device")
    except Exception:
        pytest.skip("no GPU visible to CuPy")
    return cupy
