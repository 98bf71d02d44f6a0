"""pyhipattn: attention forward on AMD and NVIDIA GPUs from precompiled code objects.

Importing this package compiles nothing, touches no driver and imports no framework;
submodules load on first use.  ``import pyhipattn.torch_ops`` registers the PyTorch custom
ops (``torch.ops.pyhipattn.mha_fwd`` / ``mha_varlen_fwd``) for torch.compile and CUDA graphs.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "mha_fwd": ("api", "mha_fwd"),
    "mha_varlen_fwd": ("api", "mha_varlen_fwd"),
    "plan_mha_fwd": ("api", "plan_mha_fwd"),
    "mha_fwd_kvcache": ("kvcache", "mha_fwd_kvcache"),
    "plan_mha_fwd_kvcache": ("kvcache", "plan_mha_fwd_kvcache"),
    "validate_cu_seqlens": ("validate", "validate_cu_seqlens"),
    "GraphCaptureError": ("errors", "GraphCaptureError"),
    "load": ("generic", "load"),
    "LaunchPlan": ("plan", "LaunchPlan"),
    "unload_all": ("runtime.modules", "unload_all"),
}


def __getattr__(name: str):
    try:
        mod, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'pyhipattn' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(f"pyhipattn.{mod}"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
