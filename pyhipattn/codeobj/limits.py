"""Static resource checks of one kernel against the facts in :mod:`pyhipattn.arch`.

``resource_report(kernel, arch)`` returns human-readable problems; an empty list means the
kernel fits.  ``resource_usage(kernel, arch)`` gives each resource as used / limit, and
``matrix_counts(mnemonics)`` picks the matrix-unit instructions out of a disassembly's counts.
Used by ``pyhipattn check`` and ``pyhipattn inspect``; nothing here needs a GPU.
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


#: Mnemonic prefixes of matrix-unit instructions (AMD MFMA / sparse MFMA / WMMA / SWMMAC;
#: NVIDIA mma.sync, wgmma and their integer / double forms).
MATRIX_PREFIXES = ("v_mfma", "v_smfmac", "v_wmma", "v_swmmac", "HMMA", "HGMMA", "IMMA", "IGMMA", "DMMA", "BMMA",
                   "QGMMA")

#: AGPRs a lane may use: 256 on CDNA (gfx90a+, one file with the VGPRs), none on RDNA.
_AGPR_LIMIT = {"cdna3": 256, "cdna4": 256}


def matrix_counts(counts: dict[str, int]) -> dict[str, int]:
    """The matrix-unit instructions among ``counts`` (mnemonic -> count), most frequent first."""
    found = {op: n for op, n in counts.items() if op.upper().startswith(tuple(p.upper() for p in MATRIX_PREFIXES))}
    return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))


def resource_usage(kernel: KernelInfo, arch: str | None = None, dynamic_shared: int = 0) -> dict | None:
    """What ``kernel`` uses against what ``arch`` (default: its own) allows, as
    ``{resource: {"used": n, "limit": m}, ..., "problems": [...]}``; None for an arch
    :mod:`pyhipattn.arch` does not know.

    AMD: ``vgpr`` (AGPRs included on CDNA, the unified 512-entry file), ``agpr``, ``lds``
    (static + ``dynamic_shared`` bytes), ``scratch`` (bytes per lane), ``spills`` (VGPR + SGPR).
    NVIDIA: ``registers`` (per thread), ``shared``, ``local`` (stack frame bytes).
    ``problems`` is :func:`resource_report` plus the dynamic shared memory, if over.
    """
    try:
        info = arch_info(arch or kernel.arch)
    except ValueError:
        return None

    def r(used: int | None, limit: int | None) -> dict:
        return {"used": used, "limit": limit}

    shared = (kernel.shared_bytes or 0) + dynamic_shared
    problems = resource_report(kernel, info.name)
    if dynamic_shared and shared > info.shared_limit:
        problems.append(f"kernel {kernel.name} ({kernel.arch}) uses {kernel.shared_bytes} static + {dynamic_shared} "
                        f"dynamic bytes of shared memory / LDS; {info.name} allows {info.shared_limit}")
    if info.platform == "nvidia":
        return {"registers": r(kernel.registers, min(info.vgpr_limit, 255)), "shared": r(shared, info.shared_limit),
                "local": r(kernel.scratch_bytes, 0), "problems": problems}
    spills = None if kernel.vgpr_spill_count is None and kernel.sgpr_spill_count is None else \
        (kernel.vgpr_spill_count or 0) + (kernel.sgpr_spill_count or 0)
    return {"vgpr": r(kernel.vgpr_count, info.vgpr_limit), "agpr": r(kernel.agpr_count, _AGPR_LIMIT.get(info.family, 0)),
            "lds": r(shared, info.shared_limit), "scratch": r(kernel.scratch_bytes, 0), "spills": r(spills, 0),
            "problems": problems}
