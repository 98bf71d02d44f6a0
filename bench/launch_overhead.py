"""Host time per launch of a cached kernel, GPU idle: pyhipattn's paths against raw cuLaunchKernel.

    python bench/launch_overhead.py [--rounds 7] [--calls 300] [--device 0]

The kernel is kernels/co/<arch>/common_add.cubin's ``add_kernel`` with n = 0 (it returns at
once), so the GPU is never the limit; every round ends with a stream synchronize so the launch
queue starts empty.  Per path: the median over rounds of each round's median call time (p50),
and the best round's p50.  Paths:

  runtime.launch[L]        runtime.launch(plan, stream=s): kernel lookup, size check, stream, launch
  KernelHandle.launch[L]   pyhipattn.load(...)["add_kernel"].launch(grid, block, *args, stream=s)
  Kernel.launch[L]         a cached Kernel: make_current + kernarg copy + driver call
  raw cuLaunchKernel       driver.cuLaunchKernel(f, ..., extra) from cuda-bindings, extra prebuilt

where L is the launcher: ``cffi`` (cffi ABI mode into libcuda) or ``bindings`` (cuda-bindings).
Prints a table, then one JSON line.  Run on hardware: not by the author (written without a GPU).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyhipattn  # noqa: E402
from pyhipattn import runtime  # noqa: E402
from pyhipattn.arch import compatible_arches  # noqa: E402
from pyhipattn.tools.bench import host_time  # noqa: E402
from pyhipattn.runtime._driver import KernargScratch  # noqa: E402


def measure(fn: Callable[[], None], sync: Callable[[], None], rounds: int, calls: int) -> dict:
    """Back-to-back launches, the GPU idle between rounds (pyhipattn.tools.bench.host_time)."""
    r = host_time(fn, sync, rounds, calls, sync_each=False)
    return {"p50_us": round(r["p50_us"], 3), "best_round_p50_us": round(r["best_round_p50_us"], 3),
            "rounds_p50_us": [round(v, 3) for v in r["rounds_p50_us"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--device", type=int, default=0)
    opts = ap.parse_args()

    backend = runtime.get_backend()
    if backend.platform != "nvidia":
        sys.exit(f"this benchmark compares against cuda-bindings; the platform is {backend.platform}")
    from cuda.bindings import driver

    dev = opts.device
    info = backend.device_info(dev)
    cubin = next(p for a in compatible_arches(info.arch)
                 if (p := ROOT / f"kernels/co/{a}/common_add.cubin").exists())
    handle = pyhipattn.load(cubin)["add_kernel"]
    kernel = handle.kernel(dev)
    stream = backend.stream_create(dev)
    args = struct.pack("<QQQIf", 0, 0, 0, 0, 1.0)        # n = 0: the kernel does nothing
    plan = pyhipattn.LaunchPlan(str(cubin), "add_kernel", (1, 1, 1), (32, 1, 1), 0, args)
    sync = lambda: backend.stream_synchronize(stream)  # noqa: E731

    fn_obj, stream_obj = driver.CUfunction(kernel.function), driver.CUstream(stream)
    scratch = KernargScratch(end_marker=0)
    extra = scratch.fill(args)
    backend.make_current(dev)

    def raw() -> None:
        err = driver.cuLaunchKernel(fn_obj, 1, 1, 1, 32, 1, 1, 0, stream_obj, None, extra)[0]
        if err:
            raise RuntimeError(err)

    results: dict[str, dict] = {"raw cuLaunchKernel": measure(raw, sync, opts.rounds, opts.calls)}
    default_launcher = backend.launcher_name
    for name, launcher in backend.launchers.items():
        backend.launch = launcher   # Kernel.launch looks it up per call
        results[f"Kernel.launch[{name}]"] = measure(
            lambda: kernel.launch((1, 1, 1), (32, 1, 1), 0, stream, args), sync, opts.rounds, opts.calls)
        results[f"runtime.launch[{name}]"] = measure(
            lambda: runtime.launch(plan, stream, dev), sync, opts.rounds, opts.calls)
        results[f"KernelHandle.launch[{name}]"] = measure(
            lambda: handle.launch(1, 32, 0, 0, 0, 0, 1.0, stream=stream, device=dev), sync, opts.rounds, opts.calls)
    backend.launch = backend.launchers[default_launcher]
    backend.stream_destroy(stream)

    print(f"{info.name} ({info.arch}), driver {getattr(backend, 'driver_version', '?')}, "
          f"{opts.rounds} rounds x {opts.calls} calls, default launcher: {default_launcher}")
    print(f"{'path':32s} {'p50 us':>8s} {'best round':>11s}")
    for name, r in results.items():
        print(f"{name:32s} {r['p50_us']:8.2f} {r['best_round_p50_us']:11.2f}")
    print(json.dumps({"bench": "launch_overhead", "device": info.name, "arch": info.arch,
                      "rounds": opts.rounds, "calls": opts.calls, "default_launcher": default_launcher,
                      "results": results}))


if __name__ == "__main__":
    main()
