"""Static resource checks of one kernel against the facts in :mod:`pyhipattn.arch`.

``resource_report(kernel, arch)`` returns human-readable problems; an empty list means the
kernel fits.  Used by ``pyhipattn check``; nothing here needs a GPU.
"""

from __future__ import annotations

from ..arch import arch_info
from .model import KernelInfo


def resource_report(kernel: KernelInfo, arch: str | None = None) -> list[str]:
    """Problems of ``kernel`` on ``arch`` (default: the kernel's own arch).

    AMD: VGPRs (AGPRs included) within the arch's per-lane register file, LDS
    within ``shared_limit``, no scratch, no spills, a wavefront size the arch runs.
    NVIDIA: at most 255 registers (or the arch limit), static shared memory within
    ``shared_limit``, no local memory (stack frame, which is where spills go).
    """
    info = arch_info(arch or kernel.arch)
    who = f"kernel {kernel.name} ({kernel.arch})"
    problems: list[str] = []

    def over(what: str, value: int | None, limit: int) -> None:
        if value is not None and value > limit:
            problems.append(f"{who} uses {value} {what}; {info.name} allows {limit}")

    over("bytes of shared memory / LDS", kernel.shared_bytes, info.shared_limit)
    if kernel.scratch_bytes:
        memory = "local memory (stack frame)" if info.platform == "nvidia" else "scratch (private segment)"
        problems.append(f"{who} uses {kernel.scratch_bytes} bytes of {memory} per thread; expected 0")
    if info.platform == "nvidia":
        over("registers per thread", kernel.registers, min(info.vgpr_limit, 255))
    else:
        # On gfx90a+ (unified register file) .vgpr_count already is alignTo(arch VGPRs, 4) +
        # AGPRs when AGPRs are used (checked against clang's remarks), so it alone is compared with the limit.
        # SGPRs are not checked: .sgpr_count includes VCC / flat-scratch / XNACK registers and
        # hand-written code objects (AITER's: 112) report the granulated allocation, neither
        # comparable with the 102 addressable SGPRs.
        over("VGPRs per lane (AGPRs included)", kernel.vgpr_count, info.vgpr_limit)
        for kind, n in (("VGPR", kernel.vgpr_spill_count), ("SGPR", kernel.sgpr_spill_count)):
            if n:
                problems.append(f"{who} spills {n} {kind}s; expected 0")
        waves = (64,) if info.wave_size == 64 else (32, 64)   # RDNA runs both wave sizes
        if kernel.wavefront_size not in waves:
            problems.append(f"{who} is built for wave{kernel.wavefront_size}; {info.name} runs wave{info.wave_size}")
    return problems
