"""GPU runtime: backends (CUDA, HIP), the per-device module cache, streams, memory, launch.

Importing this package loads no GPU bindings; ``cuda.bindings`` / ``hip`` are imported on the
first ``get_backend()`` (see ``detect.py``).

    from pyhipattn import runtime
    runtime.launch(plan, stream=torch.cuda.current_stream().cuda_stream)
"""

from __future__ import annotations

from pyhipattn.runtime.base import Backend, DeviceInfo
from pyhipattn.runtime.detect import PLATFORM_ENV, get_backend, platform_report, set_backend
from pyhipattn.runtime.launch import launch

__all__ = ["Backend", "DeviceInfo", "PLATFORM_ENV", "get_backend", "launch", "platform_report", "set_backend"]
