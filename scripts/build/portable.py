#!/usr/bin/env python3
"""AOT-compile the portable family (kernels/src/portable/attn_fwd.py) for every shipped arch,
on a CPU-only machine, with triton==3.6.0.

    python3 scripts/build/portable.py [--arch sm_90a ...] [--out kernels/co] [--jobs 2]

Writes kernels/co/<arch>/portable_<variant>.{cubin,co} and portable_manifest.json.  The
variants and tiles are pyhipattn.families.portable.variants(arch) (sm_90a also gets short-KV
variants, plain_short / masked_short / softcap_short, for seqlen_k <= SHORT_KV).  The build fails when a
variant's parameters disagree with portable_args.h (order, type, natural-alignment offset),
when the code object's own metadata disagrees with that layout, when Triton asks for global or
profile scratch, when the object spills, uses scratch / local memory or more registers than
the arch has (pyhipattn.codeobj.limits), when shared memory exceeds the arch's limit, or when
the matrix instructions the arch should use (HGMMA on sm_90a fwd, HMMA on sm_80, v_mfma,
v_wmma) are missing.
This is the only place that knows compiler flags.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "kernels" / "src" / "portable" / "attn_fwd.py"
sys.path.insert(0, str(ROOT))

TARGETS = {  # arch -> (backend, arch id, warp size)
    "sm_90a": ("cuda", 90, 32),     # Triton builds capability 90 as sm_90a (wgmma)
    "sm_80": ("cuda", 80, 32),
    "gfx942": ("hip", "gfx942", 64),
    "gfx950": ("hip", "gfx950", 64),
    "gfx1100": ("hip", "gfx1100", 32),
}
# attn_fwd's source options per arch, beyond the tile (registers: every object must fit them
# without spilling; see the kernel):
#   d_chunk   head-dim class -> D_CHUNK, q . k^T by head-dim chunks.  RDNA3's WMMA operands
#             hold a 16-row tile's whole head dim in every lane: Q and K^T of one key block
#             alone fill gfx1100's 256 VGPRs at d=256 and crowd them at 64 / 128.
#   late_rows head-dim classes (any plain kind) or (kind, head-dim class) pairs whose plain
#             variant recomputes its store rows after the loop too (LATE_ROWS; the masked ones
#             always do): sm_80's plain d64 / d128 spilled without it.  On the H100 it cost plain
#             d64 / d128 1.5-2.5%, so sm_90a keeps it off there; its d256 plain needs it (the one
#             spill-free tile without it, (64, 32, 8, 2), ran at 176 TFLOP/s, (128, 32, 8, 2)
#             with it at 338), and so does its short-KV d64 tile (128, 64, 8, 3): 123 registers
#             with it, two CTAs per SM; 160 without, one CTA per SM, 228 instead of ~320 TFLOP/s
#             at s = 512 (notes/portable.md).
#   fma_scale (kind, head-dim class) pairs built with FMA_SCALE: in unmasked key blocks the row
#             max is taken unscaled and the scale goes into the exponent (one FFMA per score).
#             max_registers: (kind, head-dim class) -> ptxas register cap (Triton's maxnreg); the
#             build still refuses any spill.  sm_90a's d64 short kinds, (64, 64, 4, 3) tiles: 136
#             (plain) / 155-162 (masked) registers uncapped, three 128-thread CTAs per SM; capped
#             at 128, four, spill-free: 1.07x (plain) and 1.08x (masked) at s = 512 / 1024 on the
#             H100, and the masked one without the softcap code (softcap_short takes softcap) a
#             further 1.03x (notes/portable.md, issue 11).
#   separate_combine  (kind, head-dim class) pairs whose split-K partials are folded by the
#             separate attn_combine launch; every other variant folds them itself
#             (FOLD_COUNTERS: the last split of a row tile combines, one launch per call).  On
#             sm_90a the fused fold spilled the d256 plain / masked tiles (128 x 256 fp32
#             accumulator over 8 warps; 384-400 bytes of local memory per thread).
ARCH_OPTIONS = {
    "sm_90a": dict(late_rows=(256, ("plain_short", 64)), separate_combine=(("plain", 256), ("masked", 256)),
                   fma_scale=(("plain_short", 64), ("masked_short", 64), ("softcap_short", 64)),
                   max_registers={("plain_short", 64): 128, ("masked_short", 64): 128, ("softcap_short", 64): 128}),
    "sm_80": dict(late_rows=(64, 128, 256)),
    "gfx1100": dict(d_chunk={64: 32, 128: 64, 256: 64}),
}
from pyhipattn.runtime.memory import SPLIT_COUNTERS  # noqa: E402  (the runtime reserves them)

PTR_DIV = 16   # base pointers: 16-byte aligned (the planner's documented requirement)
INT_DIV = 8    # strides and head dims: multiples of 8 elements (the gate checks)
I64_ARGS = {"stride_qb", "stride_kb", "stride_vb", "stride_ob"}
F32_ARGS = {"softmax_scale", "softcap"}


def _find_ptxas() -> str:
    for p in (os.environ.get("TRITON_PTXAS_PATH"), "/usr/local/cuda-13.0/bin/ptxas", shutil.which("ptxas")):
        if p and Path(p).is_file():
            return p
    raise SystemExit("no ptxas: install CUDA 13.0 (cubins must load on driver 580) or set TRITON_PTXAS_PATH")


def _kernel_module():
    spec = importlib.util.spec_from_file_location("portable_attn_fwd", SRC)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def signature(fn, role: str, dtype: str) -> dict[str, str]:
    """Triton signature of ``fn`` for ``dtype``: pointers typed, strides/sizes i32 or i64."""
    sig = {}
    for n in fn.arg_names:
        p = fn.params[fn.arg_names.index(n)]
        if p.is_constexpr:
            sig[n] = "constexpr"
        elif n in ("Q", "K", "V", "OUT"):
            sig[n] = "*" + dtype
        elif n in ("LSE", "WORKSPACE"):
            sig[n] = "*fp32"
        elif n.startswith("CU_SEQLENS"):
            sig[n] = "*i32"
        elif n in I64_ARGS:
            sig[n] = "i64"
        elif n in F32_ARGS:
            sig[n] = "fp32"
        else:
            sig[n] = "i32"
    return sig


def attrs_for(fn, sig) -> dict:
    attrs = {}
    for i, n in enumerate(fn.arg_names):
        if sig[n].startswith("*"):
            attrs[(i,)] = [["tt.divisibility", PTR_DIV]]
        elif n.startswith("stride_") or n in ("head_dim", "head_dim_v"):
            attrs[(i,)] = [["tt.divisibility", INT_DIV]]
    return attrs


def layout_rows(layout) -> list[tuple[str, int, int]]:
    """(name, offset, size) of a kernargs.StructLayout, Triton names lowercased."""
    return [(f.name.lower(), f.offset, f.size) for f in layout.fields]


def source_options(arch: str, hdc: int, kind: str = "plain") -> dict:
    """attn_fwd's D_CHUNK, LATE_ROWS and FOLD_COUNTERS constexprs for ``arch``, head-dim class ``hdc`` and
    variant kind ``kind``; FMA_SCALE only where set (True), HAS_SOFTCAP only where a masked kind
    goes without the softcap code (False: the family's has_softcap_code)."""
    from pyhipattn.families import portable as fam

    o = ARCH_OPTIONS.get(arch, {})
    late = o.get("late_rows", ())
    opts = dict(D_CHUNK=o.get("d_chunk", {}).get(hdc, 0), LATE_ROWS=hdc in late or (kind, hdc) in late,
                FOLD_COUNTERS=0 if (kind, hdc) in o.get("separate_combine", ()) else SPLIT_COUNTERS)
    if (kind, hdc) in o.get("fma_scale", ()):
        opts["FMA_SCALE"] = True
    if fam.SHORT_KINDS.get(kind, kind) == "masked" and not fam.has_softcap_code(arch, kind, hdc):
        opts["HAS_SOFTCAP"] = False
    return opts


def compile_options(arch: str, hdc: int, kind: str) -> dict:
    """Triton compile options beyond num_warps / num_stages: maxnreg where ARCH_OPTIONS caps it."""
    cap = ARCH_OPTIONS.get(arch, {}).get("max_registers", {}).get((kind, hdc))
    return {"maxnreg": cap} if cap else {}


def compile_one(job: dict) -> dict:
    """Worker: compile one variant for one arch; returns the binary and facts for the manifest."""
    import triton
    from triton.backends.compiler import GPUTarget

    mod = _kernel_module()
    v = job["variant"]
    fn = mod.attn_combine if v["role"] == "combine" else mod.attn_fwd
    sig = signature(fn, v["role"], v["dtype"])
    if v["role"] == "combine":
        constexprs = dict(BLOCK_R=v["block_m"], BLOCK_DV=v["block_n"])
    else:
        hdc = v["head_dim_class"]
        masked = v["masked"]            # masked, masked_short, decode
        constexprs = dict(BLOCK_M=v["block_m"], BLOCK_N=v["block_n"], BLOCK_D=hdc, BLOCK_DV=hdc,
                          IS_MASKED=masked, IS_VARLEN=v["varlen"], HAS_SOFTCAP=masked)
        constexprs.update(source_options(job["arch"], hdc, v["kind"]))
    backend, arch_id, warp = TARGETS[job["arch"]]
    t0 = time.time()
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs_for(fn, sig))
    k = triton.compile(src, target=GPUTarget(backend, arch_id, warp),
                       options={"num_warps": v["num_warps"], "num_stages": v["num_stages"],
                                **(compile_options(job["arch"], v["head_dim_class"], v["kind"]) if v["role"] == "fwd" else {})})
    md = k.metadata
    binary = k.asm["cubin"] if backend == "cuda" else k.asm["hsaco"]
    return dict(
        arch=job["arch"], variant=v, binary=binary, seconds=time.time() - t0,
        kernel=md.name, shared=md.shared, num_warps=md.num_warps, warp_size=warp,
        global_scratch_size=getattr(md, "global_scratch_size", 0) or 0,
        profile_scratch_size=getattr(md, "profile_scratch_size", 0) or 0,
        signature=sig, asm=k.asm.get("ptx") or k.asm.get("amdgcn"),
    )


# --- checks against the header and the code object's own metadata ---------------------------


def check_object(r: dict) -> list[str]:
    """Problems with one built object (empty = fine)."""
    from pyhipattn.arch import arch_info
    from pyhipattn.codeobj import parse_image
    from pyhipattn.codeobj.limits import resource_report
    from pyhipattn.errors import KernargMismatchError
    from pyhipattn.families import portable as fam
    from pyhipattn.kernargs import check_layout, triton_layout

    v, arch = r["variant"], r["arch"]
    errs = []
    header = fam.layout(r["struct"])
    tri = triton_layout(r["signature"])
    if layout_rows(tri) != layout_rows(header) or [f.size for f in tri.fields] != [f.size for f in header.fields]:
        errs.append(f"Triton parameters {layout_rows(tri)} != {r['struct']} in portable_args.h {layout_rows(header)}")
    kernel = parse_image(r["binary"], f"{arch}/{v['name']}")[r["kernel"]]
    try:
        check_layout(header, kernel)
    except KernargMismatchError as e:
        errs.append(str(e))
    errs += resource_report(kernel, arch)     # registers, no scratch / local memory, no spills
    if r["global_scratch_size"] or r["profile_scratch_size"]:
        errs.append(f"Triton asks for scratch (global {r['global_scratch_size']}, profile {r['profile_scratch_size']})")
    limit = arch_info(arch).shared_limit
    if r["shared"] > limit:
        errs.append(f"shared memory {r['shared']} > {arch}'s {limit}")
    if v["role"] == "fwd":
        asm = r["asm"]
        if arch == "sm_90a":
            sass = r.get("sass", "")
            need = "HGMMA" if v["kind"] != "decode" else "MMA"
            if need not in sass:
                errs.append(f"no {need} in the SASS")
        elif arch == "sm_80":
            if "mma.sync" not in asm:
                errs.append("no mma.sync in the PTX")
        elif arch == "gfx1100":
            if "v_wmma" not in asm:
                errs.append("no v_wmma")
        elif "v_mfma" not in asm:
            errs.append("no v_mfma")
    return errs


def cuobjdump() -> str | None:
    import triton

    p = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    return str(p) if p.is_file() else shutil.which("cuobjdump")


def sass_of(image: bytes) -> str:
    tool = cuobjdump()
    if tool is None:
        return ""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(image)
        f.flush()
        return subprocess.run([tool, "-sass", f.name], capture_output=True, text=True).stdout


def write_objects(out: Path, family: str, by_arch: dict[str, list], describe, manifest_head) -> int:
    """Replace ``<out>/<arch>/<family>_*`` with the built objects and their manifest; bytes written.
    ``describe(r, fname)`` is an object's manifest entry, ``manifest_head(arch)`` the manifest's
    fields before ``objects`` (both family-specific)."""
    total = 0
    for arch, rs in by_arch.items():
        d = out / arch
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob(f"{family}_*"):
            old.unlink()
        ext = "cubin" if arch.startswith("sm_") else "co"
        objects = []
        for r in rs:
            fname = f"{family}_{r['variant']['name']}.{ext}"
            (d / fname).write_bytes(r["binary"])
            total += len(r["binary"])
            objects.append(describe(r, fname))
        manifest = dict(manifest_head(arch), objects=objects)
        (d / f"{family}_manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return total


def object_tail(r: dict, layout) -> dict:
    """The manifest fields every AOT-built object ends with: kernarg layout, signature, size, hash."""
    return dict(args=[dict(name=f.name, kind=f.kind, offset=f.offset, size=f.size) for f in layout.fields],
                triton_signature=[f"{n}:{t}" for n, t in r["signature"].items() if t != "constexpr"],
                bytes=len(r["binary"]), sha256=hashlib.sha256(r["binary"]).hexdigest())


def main() -> int:
    from pyhipattn.families import portable as fam

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", action="append", choices=list(TARGETS))
    ap.add_argument("--out", type=Path, default=ROOT / "kernels" / "co")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    arches = a.arch or list(TARGETS)

    os.environ["TRITON_PTXAS_PATH"] = _find_ptxas()
    cache = tempfile.mkdtemp(prefix="pyhipattn-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache          # clean build: nothing reused from earlier runs
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"    # no source paths in the objects; smaller too
    import triton

    jobs = [dict(arch=arch, variant=v) for arch in arches for v in fam.variants(arch)]
    t0 = time.time()
    print(f"portable: {len(jobs)} objects for {', '.join(arches)} with {a.jobs} processes "
          f"(triton {triton.__version__}, ptxas {os.environ['TRITON_PTXAS_PATH']})", flush=True)
    with Pool(a.jobs) as pool:
        results = pool.map(compile_one, jobs, chunksize=1)
    shutil.rmtree(cache, ignore_errors=True)

    failures = []
    by_arch: dict[str, list] = {}
    for r in results:
        if r["arch"] == "sm_90a":
            r["sass"] = sass_of(r["binary"])
        r["struct"] = "portable_combine_args" if r["variant"]["role"] == "combine" else "portable_fwd_args"
        errs = check_object(r)
        if errs:
            failures.append(f"{r['arch']} portable_{r['variant']['name']}: " + "; ".join(errs))
        by_arch.setdefault(r["arch"], []).append(r)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1

    def describe(r: dict, fname: str) -> dict:
        v = r["variant"]
        return dict(
            name=v["name"], file=fname, kernel=r["kernel"], role=v["role"], dtype=v["dtype"], kind=v["kind"],
            head_dim_class=v["head_dim_class"], varlen=v["varlen"], masked=v["masked"],
            block_m=v["block_m"], block_n=v["block_n"], num_warps=v["num_warps"], num_stages=v["num_stages"],
            options=source_options(r["arch"], v["head_dim_class"], v["kind"]) if v["role"] == "fwd" else {},
            **(compile_options(r["arch"], v["head_dim_class"], v["kind"]) if v["role"] == "fwd" else {}),
            shared=r["shared"], threads=r["num_warps"] * r["warp_size"],
            global_scratch_size=r["global_scratch_size"], profile_scratch_size=r["profile_scratch_size"],
            struct=r["struct"], **object_tail(r, fam.layout(r["struct"])))

    total = write_objects(a.out, "portable", by_arch, describe, lambda arch: dict(
        family="portable", arch=arch, target=list(TARGETS[arch]), triton=triton.__version__,
        source="kernels/src/portable/attn_fwd.py", header="kernels/src/portable/portable_args.h"))
    slow = max(results, key=lambda r: r["seconds"])
    print(f"portable: wrote {len(results)} objects, {total / 1e6:.1f} MB, in {time.time() - t0:.0f} s "
          f"(slowest {slow['arch']} {slow['variant']['name']} {slow['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
