"""The numeric sweep on the emulator: every AMD family and arch, with no GPU.

A case is planned by one family for one arch (``family.plan`` on a shape-only Problem, as
``plan_mha_fwd`` does), its pointers are bound to numpy arrays, every launch runs through the
emulator, and the output (poisoned with NaN first) and LSE are compared with
``reference.attention_ref`` in float64:

- no NaN may remain (every element written);
- relative Frobenius error of out <= 1e-2 (bf16) / 2e-3 (fp16);
- LSE -inf exactly where the reference has no visible key, elsewhere within 1e-3 + 2e-3.

``run_sweep(arch, ...)`` is what ``pyhipattn check --emulate`` and the CPU tests call.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .. import dispatch, reference, validate
from ..arch import arch_info, canonical_arch
from ..families.base import Problem
from ..runtime.memory import COUNTER_BYTES
from ..emulate.memory import regions
from .emulated_objects import NP_DTYPES, run_plans

#: The AMD families and the arches each ships code objects for.
FAMILY_ARCHES: dict[str, tuple[str, ...]] = {
    "native_splitk": ("gfx942", "gfx950"),
    "wmma": ("gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201"),
    "portable": ("gfx942", "gfx950", "gfx1100"),
    "serve": ("gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201"),
}
ABS_TOL = {"bf16": 1e-2, "fp16": 2e-3}


@dataclass(frozen=True)
class Case:
    b: int
    sq: int
    sk: int
    hq: int
    hk: int
    d: int
    dtype: str = "bf16"
    causal: bool = False
    window: tuple[int, int] = (-1, -1)
    softcap: float = 0.0
    splits: int = 0          # 0: the family's heuristic; >= 2 forced
    seed: int = 0
    dv: int | None = None

    @property
    def id(self) -> str:
        f = "causal" if self.causal else ("window" + str(self.window) if self.window != (-1, -1) else "full")
        if self.softcap:
            f += "+softcap"
        s = f"-split{self.splits}" if self.splits else ""
        return f"b{self.b}-sq{self.sq}-sk{self.sk}-h{self.hq}x{self.hk}-d{self.d}-{self.dtype}-{f}{s}"


@dataclass
class CaseResult:
    case: Case
    family: str
    arch: str
    kernels: tuple[str, ...] = ()
    splits: int = 1
    error: float = float("nan")
    lse_error: float = float("nan")
    limit: float = 0.0
    failure: str | None = None
    seconds: float = 0.0
    wave_instructions: int = 0

    @property
    def passed(self) -> bool:
        return self.failure is None


def make_cases(family: str, arch: str, n: int = 16, seed: int = 2026, head_dims: Iterable[int] | None = None
               ) -> list[Case]:
    """Small cases covering what ``family`` runs on ``arch``: decode and prefill tiles, causal,
    windows, GQA/MQA, odd KV tails, forced splits, both dtypes, the family's head dims."""
    if family == "serve":
        from .emulated_sweep_serve import make_serve_cases

        return make_serve_cases(arch, n, seed)
    rng = random.Random(f"{seed}-{family}-{arch}")
    dims = tuple(head_dims or ((64, 128, 256) if family == "portable" else (64, 128)))
    fixed = [
        Case(1, 1, 300, 8, 2, dims[-1 if len(dims) < 3 else 1], "bf16", splits=4),            # decode, GQA, tail, split
        Case(2, 64, 64, 4, 4, dims[0], "fp16", causal=True),                                     # prefill causal
        Case(1, 100, 200, 4, 1, dims[0], "bf16", window=(32, 8)),                               # MQA window, tails
        Case(1, 33, 130, 2, 2, dims[min(1, len(dims) - 1)], "fp16", splits=3),                  # forced split
    ]
    if family == "portable":
        fixed.append(Case(1, 17, 70, 2, 1, 256, "bf16", causal=True, softcap=5.0))
    out = list(fixed)
    lens = (1, 3, 16, 31, 64, 97, 130, 257)
    while len(out) < n:
        sq, sk = rng.choice(lens), rng.choice(lens)
        hk = rng.choice((1, 2))
        hq = hk * rng.choice((1, 2, 4))
        d = rng.choice(dims)
        feature = rng.choice(("full", "causal", "window", "softcap" if family == "portable" else "causal"))
        out.append(Case(1 + (rng.random() < 0.3), sq, sk, hq, hk, d, rng.choice(("bf16", "fp16")),
                        causal=feature == "causal", window=(rng.choice((0, 5, 40)), rng.choice((-1, 0, 7)))
                        if feature == "window" else (-1, -1), softcap=5.0 if feature == "softcap" else 0.0,
                        splits=rng.choice((0, 0, 2, 5)), seed=len(out)))
    return out[:n]


def problem_of(c: Case) -> Problem:
    dv = c.dv or c.d
    q = validate.ShapeView((c.b, c.sq, c.hq, c.d), c.dtype)
    k = validate.ShapeView((c.b, c.sk, c.hk, c.d), c.dtype)
    v = validate.ShapeView((c.b, c.sk, c.hk, dv), c.dtype)
    return validate.batch_problem(q, k, v, softmax_scale=validate.normalize_scale(None, c.d), causal=c.causal,
                                  window_size=c.window, softcap=c.softcap, return_lse=True, num_splits=c.splits)


def _family(name: str):
    return next(f for f in dispatch.families() if f.NAME == name)


class _Scratch:
    """Host buffers the emulated kernels may touch, registered for the case and released after."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []

    def array(self, a: np.ndarray) -> np.ndarray:
        regions.add(a.ctypes.data, max(a.nbytes, 1), f"sweep array {a.dtype}{list(a.shape)}")
        self.arrays.append(a)
        return a

    def close(self) -> None:
        for a in self.arrays:
            regions.remove(a.ctypes.data)


def run_case(c: Case, family: str, arch: str, compute_units: int | None = None,
             kernels_root: str | None = None, overrides: dict[str, Path] | None = None) -> CaseResult:
    """Plan ``c`` with ``family`` for ``arch``, run it on the emulator, compare with the reference.
    ``overrides`` maps code-object file names (``native_fwd.co``) to files to run instead."""
    arch = canonical_arch(arch)
    res = CaseResult(c, family, arch)
    if family == "serve":
        return _run_serve(c, arch, res, overrides, kernels_root)
    fam = _family(family)
    cus = compute_units or arch_info(arch).default_cus
    p = problem_of(c)
    why = fam.gate(p, arch, compute_units=cus)
    if why:
        res.failure = f"not run: the {family} gate refuses it ({why})"
        return res
    splits = dispatch.resolve_splits(p, fam, arch, cus)
    plans = fam.plan(p, arch, cus, splits)
    res.kernels = tuple(pl.kernel for pl in plans)
    res.splits = splits
    rng = np.random.default_rng(1000 + c.seed)
    dt = NP_DTYPES[c.dtype]
    dv = c.dv or c.d
    scratch = _Scratch()
    t0 = time.perf_counter()
    try:
        q = scratch.array(rng.standard_normal((c.b, c.sq, c.hq, c.d)).astype(dt))
        k = scratch.array(rng.standard_normal((c.b, c.sk, c.hk, c.d)).astype(dt))
        v = scratch.array(rng.standard_normal((c.b, c.sk, c.hk, dv)).astype(dt))
        out = scratch.array(np.full((c.b, c.sq, c.hq, dv), np.nan, dt))
        lse = scratch.array(np.full((c.b, c.hq, c.sq), np.nan, np.float32))
        ws_bytes = max((pl.workspace_bytes for pl in plans), default=0)
        ws = scratch.array(np.zeros(COUNTER_BYTES + ws_bytes + 256, np.uint8))
        pointers = {"q": q.ctypes.data, "k": k.ctypes.data, "v": v.ctypes.data, "out": out.ctypes.data,
                    "lse": lse.ctypes.data, "workspace": ws.ctypes.data + COUNTER_BYTES}
        res.wave_instructions = run_plans(plans, pointers, arch, kernels_root, overrides)
        res.seconds = time.perf_counter() - t0
        res.failure = _compare(res, c, q, k, v, out, lse)
    except Exception as e:   # an emulated fault or unknown instruction is this case's failure
        res.seconds = time.perf_counter() - t0
        res.failure = f"{type(e).__name__}: {e}"
    finally:
        scratch.close()
    return res


def _run_serve(c, arch: str, res: CaseResult, overrides, kernels_root) -> CaseResult:
    from .emulated_sweep_serve import run_serve_case

    scratch = _Scratch()
    try:
        run_serve_case(c, arch, scratch, res, overrides, kernels_root)
    except Exception as e:
        res.failure = f"{type(e).__name__}: {e}"
    finally:
        scratch.close()
    return res


def _compare(res: CaseResult, c: Case, q, k, v, out, lse) -> str | None:
    nan = int(np.isnan(out.astype(np.float32)).sum())
    if nan:
        return f"{nan} output elements are NaN (unwritten or broken)"
    ref, ref_lse = reference.attention_ref(q, k, v, causal=c.causal, window=c.window, softcap=c.softcap)
    ref, ref_lse = np.asarray(ref), np.asarray(ref_lse)
    res.error = reference.rel_error(out, ref)
    res.limit = ABS_TOL[c.dtype]
    if res.error > res.limit:
        return f"rel error {res.error:.3e} > {res.limit:.0e}"
    if not np.array_equal(np.isneginf(lse), np.isneginf(ref_lse)):
        return "lse is -inf at other rows than the reference's rows without keys"
    fin = np.isfinite(ref_lse)
    res.lse_error = float(np.abs(lse[fin] - ref_lse[fin]).max()) if fin.any() else 0.0
    if fin.any() and not np.allclose(lse[fin], ref_lse[fin], rtol=1e-3, atol=2e-3):
        return f"lse differs by up to {res.lse_error:.3e}"
    return None




@dataclass
class SweepReport:
    arch: str
    results: list[CaseResult] = field(default_factory=list)

    @property
    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]


def uses(c: Case, family: str, arch: str, files: set[str]) -> bool:
    """Whether ``family``'s plan for ``c`` on ``arch`` launches one of the object ``files`` (names)."""
    if family == "serve":       # every serving case launches attn_serve of its dtype / head dim / layout
        mode = 1 if c.page else 0
        from ..families import serve as fam_serve

        hdc = c.d if c.d in (64, 128, 256) else 256
        names = {f"serve_{fam_serve.variant_name(c.dtype, hdc, mode, dec, mods, split)}.co"
                 for dec, mods, split in ((False, False, False), (True, False, False), (True, True, False),
                                          (True, False, True))}
        if c.n_new:
            names.add(f"serve_append_{'paged' if c.page else 'contig'}.co")
        return bool(names & files)
    fam = _family(family)
    p = problem_of(c)
    cus = arch_info(arch).default_cus
    if fam.gate(p, arch, compute_units=cus):
        return False
    plans = fam.plan(p, arch, cus, dispatch.resolve_splits(p, fam, arch, cus))
    return any(Path(pl.code_object).name in files for pl in plans)


def run_sweep(arch: str, families: Iterable[str] | None = None, cases: int = 12, kernels_root: str | None = None,
              progress: Callable[[str], None] | None = None, select: Callable[[Case], bool] | None = None,
              overrides: dict[str, Path] | None = None) -> SweepReport:
    """Run ``cases`` cases per family (every AMD family that ships for ``arch`` by default).

    With ``overrides`` (file name -> path), those files replace the shipped objects and only
    cases whose plans launch one of them run (drawn from a larger pool until ``cases`` are found).
    """
    arch = canonical_arch(arch)
    fams = [f for f in (families or FAMILY_ARCHES) if arch in FAMILY_ARCHES.get(f, ())]
    report = SweepReport(arch)
    todo = []
    for f in fams:
        pool = make_cases(f, arch, cases if not overrides else 20 * cases)
        picked = [c for c in pool if (select is None or select(c)) and
                  (not overrides or uses(c, f, arch, set(overrides)))]
        todo += [(f, c) for c in picked[:cases]]
    for i, (f, c) in enumerate(todo):
        r = run_case(c, f, arch, kernels_root=kernels_root, overrides=overrides)
        report.results.append(r)
        if progress:
            progress(f"  [{i + 1}/{len(todo)}] {arch} {f:13s} {c.id:48s} "
                     f"{'ok  ' if r.passed else 'FAIL'} err {r.error:.1e}  {r.seconds:5.1f}s"
                     + (f"  {r.failure}" if r.failure else ""))
    return report


def families_of(arch: str, file_name: str) -> tuple[str, ...]:
    """The AMD families that launch a code object called ``file_name`` on ``arch``."""
    if file_name in ("native_fwd.co", "native_combine.co"):
        return tuple(f for f in ("native_splitk", "wmma") if arch in FAMILY_ARCHES[f])
    if file_name.startswith("portable_") and arch in FAMILY_ARCHES["portable"]:
        return ("portable",)
    if file_name.startswith("serve_") and arch in FAMILY_ARCHES["serve"]:
        return ("serve",)
    return ()


def emulated_check(paths: list[str], cases: int = 12, progress: Callable[[str], None] | None = None) -> dict:
    """``pyhipattn check --emulate``: the emulated sweep of every AMD attention object under
    ``paths`` (files or directories), each in place of its shipped counterpart.  Returns
    ``{"results": [row...], "failures": [str], "skipped": [str], "seconds": float}``."""
    from .. import codeobj

    t0 = time.perf_counter()
    by_arch: dict[str, dict[str, Path]] = {}
    skipped = []
    for f in _object_files(paths):
        try:
            cos = codeobj.read(str(f))
        except Exception as e:
            skipped.append(f"{f}: {e}")
            continue
        for co in cos:
            if co.platform != "amd":
                continue
            if not families_of(co.arch, f.name):
                skipped.append(f"{f}: no emulated sweep for this object (not an attention kernel of ours)")
                continue
            by_arch.setdefault(co.arch, {})[f.name] = f
    rows, failures = [], []
    for arch, files in sorted(by_arch.items()):
        fams = sorted({fam for name in files for fam in families_of(arch, name)})
        rep = run_sweep(arch, fams, cases, progress=progress, overrides=files)
        for r in rep.results:
            rows.append({"arch": arch, "family": r.family, "case": r.case.id, "kernels": list(r.kernels),
                         "splits": r.splits, "error": r.error, "limit": r.limit, "lse_error": r.lse_error,
                         "ok": r.passed, "failure": r.failure, "seconds": round(r.seconds, 2),
                         "wave_instructions": r.wave_instructions})
            if not r.passed:
                failures.append(f"{arch} {r.family} {r.case.id}: {r.failure}")
        if not rep.results:
            skipped.append(f"{arch}: no case of the sweep launches {', '.join(sorted(files))}")
    return {"results": rows, "failures": failures, "skipped": skipped,
            "seconds": round(time.perf_counter() - t0, 1)}


def _object_files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += [f for f in sorted(p.rglob("*.co")) if f.is_file()]
        elif p.is_file():
            out.append(p)
        else:
            raise FileNotFoundError(f"{p} does not exist")
    return out


def format_table(rows: list[dict]) -> str:
    """The per-case table ``check --emulate`` prints."""
    lines = [f"{'arch':8s} {'family':13s} {'case':50s} {'rel err':>9s} {'limit':>7s} {'time':>6s}  result"]
    for r in rows:
        err = "-" if r["error"] != r["error"] else f"{r['error']:.2e}"
        lines.append(f"{r['arch']:8s} {r['family']:13s} {r['case']:50s} {err:>9s} {r['limit']:7.0e} "
                     f"{r['seconds']:5.1f}s  {'ok' if r['ok'] else 'FAIL: ' + str(r['failure'])}")
    return "\n".join(lines)
