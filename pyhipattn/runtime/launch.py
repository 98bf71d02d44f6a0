"""``launch(plan, stream, device)``: run one LaunchPlan, the only place a plan meets a driver.

Per call, for a kernel already loaded: one dict lookup for the Kernel (keyed by the plan's
``code_object`` string, kernel name and device), a length check of the kernarg bytes against
the kernel's metadata, the stream normalised to an int, the device made current, and one
driver launch.  No parsing, no allocation (the split-K workspace, when a plan needs one, is a
per-(device, stream) buffer that only grows, stream-ordered).

Run on hardware: not by the author; tests/gpu/test_runtime_gpu.py and
bench/launch_overhead.py exercise it on a GPU, tests/test_runtime.py the error paths.
"""

from __future__ import annotations

from typing import Any

from pyhipattn.plan import LaunchPlan
from pyhipattn.runtime import detect, memory, modules
from pyhipattn.runtime.base import on_device
from pyhipattn.runtime.streams import stream_handle

WORKSPACE_SLOT = "workspace"


def launch(plan: LaunchPlan, stream: Any = None, device: int | None = None, *,
           framework: str | None = None) -> None:
    """Queue ``plan`` on ``stream`` on ``device``.

    stream: anything ``runtime.streams.stream_handle`` accepts; None means the current stream
        of ``framework`` ("torch" / "cupy") when given, else the default stream.
    device: device ordinal; None means the thread's current device.
    Raises ValueError when the plan still has unbound pointer slots (other than ``workspace``,
    which is bound here when ``plan.workspace_bytes`` > 0) or its kernarg bytes do not match the
    kernel's metadata; DriverError when the driver refuses the launch.
    """
    slots = plan.pointer_slots
    if slots:
        _check_slots(plan)
    backend = detect.get_backend()
    if device is None:
        device = backend.current_device()
    with on_device(backend, device):     # the caller's device is current again on return
        kernel = modules.default_cache.kernel(device, plan.code_object, plan.kernel)
        kernel.check_kernargs(len(plan.kernargs), "plan.kernargs")
        s = stream if type(stream) is int else stream_handle(
            stream, default=backend.default_stream, framework=framework, device=device)
        if plan.workspace_bytes and any(name == WORKSPACE_SLOT for name, _ in slots):
            ws = memory.workspace(device, s, backend)
            with ws.lock:  # the buffer must not be replaced between binding and queuing the launch
                bound = plan.bind({WORKSPACE_SLOT: ws.ensure(plan.workspace_bytes)})
                kernel.launch(bound.grid, bound.block, bound.shared_mem, s, bound.kernargs)
            return
        kernel.launch(plan.grid, plan.block, plan.shared_mem, s, plan.kernargs)


def _check_slots(plan: LaunchPlan) -> None:
    unbound = [name for name, _ in plan.pointer_slots
               if not (name == WORKSPACE_SLOT and plan.workspace_bytes > 0)]
    if unbound:
        raise ValueError(
            f"plan for kernel {plan.kernel} has unbound pointer slots {', '.join(unbound)}; "
            f"bind them first: plan.bind({{{', '.join(repr(n) + ': ptr' for n in unbound)}}})"
        )
