"""AITER's ASM v3 forward selection table, as data: which code object runs which problem.

Every AITER build names its ASM v3 forward objects ``fwd_<dims>_bf16[_causal][_<cvt>][_group].co``,
and the one kernel in each object is ``aiter::fmha_<file stem>`` (mangled ``_ZN5aiter<len><name>E``).
The table below is AITER's own table, copied as facts from amd-aiter 0.1.7.post2.dev18:

- ``aiter_meta/hsa/gfx942/fmha_v3_fwd/codegen.py``: ``FmhaFwdV3Name`` / ``FmhaFwdV3Buf`` /
  ``FmhaFwdV3Ts`` specialisations (bf16, hdim 128/128, mask 0|1, batch|group, BF16Cvt 0 rtne,
  1 rtna, 2 rtz; ts_qo 256, ts_kv 32), ``fmha_fwd_v3_kernel`` (subfolder ``MI300/`` when the device
  has 304 CUs, ``MI308/`` when it has 80 or 64, anything else unsupported; 512 threads).
- ``aiter_meta/hsa/gfx950/fmha_v3_fwd/codegen.py``: bf16, hdim 128/128 (ts 256/64, 512 threads)
  and 192/128 (ts 128/128, 256 threads), no rounding variants (one object per mask and mode),
  no CU subfolders.

The objects' own metadata (``.reqd_workgroup_size``) agrees with those thread counts.
"""

from __future__ import annotations

from dataclasses import dataclass

#: AITER's ``how_v3_bf16_cvt``: how gfx942 rounds fp32 to bf16 (gfx950 converts in hardware).
BF16_CVT: dict[str, int] = {"rtne": 0, "rtna": 1, "rtz": 2}
BF16_CVT_NAMES: dict[int, str] = {v: k for k, v in BF16_CVT.items()}

#: gfx942 subfolder by the device's CU count (AITER: ``get_num_cu_func()``): MI300X / MI325X
#: have 304 CUs; the cut-down MI308X parts 80 (and 64).
GFX942_SUBDIR_BY_CUS: dict[int, str] = {304: "MI300", 80: "MI308", 64: "MI308"}
GFX942_SUBDIRS: tuple[str, ...] = ("MI300", "MI308")


@dataclass(frozen=True)
class Variant:
    """One AITER ASM v3 forward kernel: where it lives and how AITER launches it.

    stem: file name without ``.co`` (``fwd_hd128_bf16_causal_rtne_group``); the kernel is
        ``fmha_<stem>``.
    ts_qo / ts_kv: the query / key tile sizes (rows per workgroup tile).
    threads: workgroup size (x); y = z = 1.
    """

    arch: str
    stem: str
    ts_qo: int
    ts_kv: int
    threads: int

    @property
    def file_name(self) -> str:
        return f"{self.stem}.co"

    @property
    def kernel_name(self) -> str:
        return f"fmha_{self.stem}"

    @property
    def symbol(self) -> str:
        """The mangled symbol AITER asks ``hipModuleGetFunction`` for (``aiter::<name>``)."""
        name = self.kernel_name
        return f"_ZN5aiter{len(name)}{name}E"


#: (arch, hdim_q, hdim_v) -> (dims part of the stem, ts_qo, ts_kv, threads).
_SHAPES: dict[tuple[str, int, int], tuple[str, int, int, int]] = {
    ("gfx942", 128, 128): ("hd128", 256, 32, 512),
    ("gfx950", 128, 128): ("hd128", 256, 64, 512),
    ("gfx950", 192, 128): ("hd192_hd128", 128, 128, 256),
}

#: Arches with per-rounding-mode objects.
_HAS_CVT_VARIANTS = frozenset({"gfx942"})


def head_dims(arch: str) -> tuple[tuple[int, int], ...]:
    """(hdim_q, hdim_v) pairs with an ASM v3 kernel on ``arch``."""
    return tuple((dq, dv) for (a, dq, dv) in _SHAPES if a == arch)


def lookup(arch: str, hdim_q: int, hdim_v: int, causal: bool, group: bool, bf16_cvt: int) -> Variant | None:
    """The bf16 variant for these traits, or None when AITER has none.

    ``group`` is AITER's group mode (varlen, sequences packed along one token axis);
    ``bf16_cvt`` (0 rtne, 1 rtna, 2 rtz) picks the object on gfx942 and is ignored on gfx950.
    """
    shape = _SHAPES.get((arch, hdim_q, hdim_v))
    if shape is None:
        return None
    dims, ts_qo, ts_kv, threads = shape
    parts = [f"fwd_{dims}_bf16"]
    if causal:
        parts.append("causal")
    if arch in _HAS_CVT_VARIANTS:
        parts.append(BF16_CVT_NAMES[bf16_cvt])
    if group:
        parts.append("group")
    return Variant(arch, "_".join(parts), ts_qo, ts_kv, threads)
