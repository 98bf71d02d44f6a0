"""Host time of mha_fwd and torch SDPA per CPU the process is pinned to (decode (1,32,8,1,4096,128),
GPU idle before each call): does the host cost depend on where the thread runs?

    python3 bench/host_cpus.py [--calls 400]

Prints the GPU's PCI address, the CPUs sysfs calls local to it, the NUMA layout, then one row
per CPU: p50 of ours and of SDPA, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

import torch

import pyhipattn
from pyhipattn.tools.bench import host_times


def gpu_local_cpus() -> str:
    bus = torch.cuda.get_device_properties(0).pci_bus_id if hasattr(torch.cuda.get_device_properties(0), "pci_bus_id") else None
    out = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader"], capture_output=True, text=True)
    bus = bus or out.stdout.strip().splitlines()[0]
    dom, rest = bus.lower().split(":", 1)
    path = Path(f"/sys/bus/pci/devices/{dom[-4:]}:{rest}/local_cpulist")
    return f"{bus}: local_cpulist {path.read_text().strip() if path.exists() else '(no sysfs entry)'}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=400)
    a = ap.parse_args()
    print(gpu_local_cpus())
    print(subprocess.run(["bash", "-c", "lscpu | grep -E 'NUMA|Socket|Thread|Model name'"], capture_output=True, text=True).stdout)
    q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 4096, 8, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 4096, 8, 128, device="cuda", dtype=torch.bfloat16)
    ours = lambda: pyhipattn.mha_fwd(q, k, v)  # noqa: E731
    sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), enable_gqa=True)
    every = sorted(os.sched_getaffinity(0))
    print(f"{'cpu':>4s} {'ours us':>8s} {'sdpa us':>8s} {'ratio':>6s}")
    for cpu in every + every[:2]:
        os.sched_setaffinity(0, {cpu})
        r = host_times({"ours": ours, "sdpa": sdpa}, torch.cuda.synchronize, rounds=1, calls=a.calls)
        o, s = r["ours"]["p50_us"], r["sdpa"]["p50_us"]
        print(f"{cpu:4d} {o:8.2f} {s:8.2f} {o / s:6.2f}", flush=True)
    os.sched_setaffinity(0, set(every))


if __name__ == "__main__":
    main()
