"""The inputs an emulated sweep runs with: NumPy dtypes of the API's dtype names, the code objects
of plans, parsed once per file version, and the run of a case's plans on the emulator (shared by
``emulated_sweep`` and ``emulated_sweep_serve``)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np

from .. import codeobj
from ..emulate.executor import launch as run_kernel
from ..kernels_dir import kernels_dir

NP_DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}
_CO_CACHE: dict[tuple, object] = {}


def code_object(path: str, arch: str, kernels_root: str | None, overrides: dict[str, Path] | None = None):
    """The parsed code object of a plan's ``path`` for ``arch``, read once per file version.
    ``overrides`` maps file names to other files (a kernel developer's new build);
    ``kernels_root`` replaces the shipped kernels directory."""
    p = Path(path)
    if overrides and p.name in overrides:
        p = Path(overrides[p.name])
    elif kernels_root and not p.is_absolute():
        p = Path(kernels_root) / p
    elif kernels_root:
        try:
            p = Path(kernels_root) / p.relative_to(kernels_dir())
        except ValueError:
            pass
    elif not p.is_absolute():
        p = kernels_dir() / p
    st = p.stat()
    key = (str(p.resolve()), arch, st.st_mtime_ns, st.st_size)
    co = _CO_CACHE.get(key)
    if co is None:
        co = _CO_CACHE[key] = codeobj.read_for_arch(str(p), arch)
    return co


def run_plans(plans, pointers: dict[str, int], arch: str, kernels_root: str | None,
              overrides: dict[str, Path] | None = None) -> int:
    """Bind each of ``plans`` to ``pointers`` (slot name -> host address) and run it on the emulator,
    in order; returns the wave instructions executed."""
    waves = 0
    for pl in plans:
        bound = pl.bind(pointers)
        st = run_kernel(code_object(pl.code_object, arch, kernels_root, overrides), pl.kernel, bound.grid,
                        bound.block, bound.kernargs, bound.shared_mem)
        waves += st.wave_instructions
    return waves
