"""Facts about the GPU architectures pyhipattn plans for.

Planning is a pure function of (problem, arch), so everything dispatch and the static checks
need to know about an arch lives here as data: platform, wave size, LDS / shared-memory
limit, register files, the matrix instructions its kernels must contain, and a default
compute-unit count used when no device is present (a real device's count wins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ArchInfo:
    name: str                 # canonical: "gfx942", "gfx1100", "sm_90a", "sm_80"
    platform: str             # "amd" | "nvidia"
    wave_size: int            # 64 on CDNA, 32 on RDNA and NVIDIA
    shared_limit: int         # bytes of LDS / shared memory one workgroup may use
    default_cus: int          # CUs / SMs of the reference part (planning without a device)
    matrix_isa: tuple[str, ...]  # mnemonic prefixes that show the matrix units are used
    vgpr_limit: int = 512     # per lane (AMD: arch VGPRs + AGPRs on gfx90a+ unified file)
    sgpr_limit: int = 102
    family: str = ""          # "cdna3", "cdna4", "rdna3", "rdna4", "hopper", "ampere"


_ARCHES: dict[str, ArchInfo] = {
    a.name: a
    for a in (
        ArchInfo("gfx942", "amd", 64, 64 * 1024, 304, ("v_mfma",), 512, 102, "cdna3"),
        ArchInfo("gfx950", "amd", 64, 160 * 1024, 256, ("v_mfma",), 512, 102, "cdna4"),
        ArchInfo("gfx1100", "amd", 32, 64 * 1024, 96, ("v_wmma",), 256, 106, "rdna3"),
        ArchInfo("gfx1101", "amd", 32, 64 * 1024, 60, ("v_wmma",), 256, 106, "rdna3"),
        ArchInfo("gfx1102", "amd", 32, 64 * 1024, 32, ("v_wmma",), 256, 106, "rdna3"),
        ArchInfo("gfx1200", "amd", 32, 64 * 1024, 32, ("v_wmma",), 256, 106, "rdna4"),
        ArchInfo("gfx1201", "amd", 32, 64 * 1024, 64, ("v_wmma",), 256, 106, "rdna4"),
        ArchInfo("sm_90a", "nvidia", 32, 227 * 1024, 132, ("HGMMA", "HMMA"), 255, 0, "hopper"),
        ArchInfo("sm_80", "nvidia", 32, 163 * 1024, 108, ("HMMA",), 255, 0, "ampere"),
    )
}

#: The arches pyhipattn ships code objects for.
SHIPPED_ARCHES: tuple[str, ...] = ("sm_90a", "sm_80", "gfx942", "gfx950", "gfx1100")

_GFX_TAIL = re.compile(r"(gfx[0-9a-f]+)(?::[a-z+-]*)?$")


def canonical_arch(name: str) -> str:
    """Normalise an arch spelling: ``"gfx942:sramecc+:xnack-"`` -> ``"gfx942"``,
    ``"amdgcn-amd-amdhsa--gfx942"`` -> ``"gfx942"``, ``"sm_90"``/``"90"``/``(9, 0)``-style
    ``"9.0"`` -> ``"sm_90a"`` (Hopper code is built for sm_90a), ``"sm_86"`` -> ``"sm_86"``.
    """
    s = name.strip().lower()
    m = _GFX_TAIL.search(s.split(":")[0]) if "gfx" in s else None
    if m:
        return m.group(1)
    s = s.removeprefix("sm_").removeprefix("compute_")
    if re.fullmatch(r"\d+\.\d+", s):
        major, minor = s.split(".")
        s = f"{major}{minor}"
    if re.fullmatch(r"\d+a?", s):
        return "sm_90a" if s in ("90", "90a") else f"sm_{s}"
    raise ValueError(f"arch {name!r} is not a gfx name (gfx942, gfx1100, ...) or an NVIDIA SM (sm_90a, sm_80, 9.0)")


def arch_info(name: str) -> ArchInfo:
    """Facts for an arch; raises ValueError listing the known arches."""
    a = canonical_arch(name)
    try:
        return _ARCHES[a]
    except KeyError:
        raise ValueError(f"arch {name!r} is unknown to pyhipattn; known: {', '.join(_ARCHES)}") from None


def compatible_arches(device_arch: str) -> tuple[str, ...]:
    """Code-object arches a device can run, best first (sm_86 runs sm_80 code; sm_90 runs sm_90a)."""
    a = canonical_arch(device_arch)
    if a.startswith("sm_"):
        major_minor = int(a[3:].rstrip("a"))
        out = [a]
        if major_minor == 90 and a != "sm_90a":
            out.insert(0, "sm_90a")
        if major_minor >= 80 and a != "sm_80":
            out.append("sm_80")
        return tuple(dict.fromkeys(out))
    return (a,)


def known_arches() -> tuple[str, ...]:
    return tuple(_ARCHES)
