#!/usr/bin/env python3
"""AOT-compile the serving kernels (kernels/src/portable/attn_serve.py: KV caches, sinks, ALiBi)
for every shipped arch, on a CPU-only machine, with triton==3.6.0.

    python3 scripts/build/serve.py [--arch gfx942 ...] [--out kernels/co] [--jobs 2]

Writes kernels/co/<arch>/serve_<variant>.{cubin,co} and serve_manifest.json; the variants and
tiles are pyhipattn.families.serve.variants(arch).  The checks are the portable build's
(scripts/build/portable.py): parameters against serve_args.h, the object's metadata against that
layout, no scratch, no spills, shared memory within the arch's limit, matrix instructions present.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "kernels" / "src" / "portable" / "attn_serve.py"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import portable as common  # noqa: E402  (the portable build's targets, ptxas, checks)

#: the portable family's targets, and RDNA3 / RDNA4 parts it does not build (the serving kernels
#: ship for every arch pyhipattn knows); they take gfx1100's head-dim chunking
TARGETS = {**common.TARGETS, "gfx1101": ("hip", "gfx1101", 32), "gfx1102": ("hip", "gfx1102", 32),
           "gfx1200": ("hip", "gfx1200", 32), "gfx1201": ("hip", "gfx1201", 32)}
D_CHUNK = common.ARCH_OPTIONS["gfx1100"]["d_chunk"]

PTR_DIV = common.PTR_DIV
INT_DIV = common.INT_DIV
#: strides the planner guarantees to be multiples of 8 elements (the gate checks); the LSE,
#: block-table and ALiBi strides carry no hint
ALIGNED = {"stride_qb", "stride_kb", "stride_vb", "stride_ob", "stride_qs", "stride_qh", "stride_ks", "stride_kh",
           "stride_vs", "stride_vh", "stride_os", "stride_oh", "head_dim", "head_dim_v", "stride_nb", "stride_ns",
           "stride_nh", "stride_wb", "stride_ws", "stride_wh"}
I64 = {"stride_qb", "stride_kb", "stride_vb", "stride_ob"}
F32 = {"softmax_scale", "softcap"}
PTR_TYPES = {"LSE": "*fp32", "WORKSPACE": "*fp32", "SINKS": "*fp32", "ALIBI": "*fp32", "CACHE_SEQLENS": "*i32",
             "BLOCK_TABLE": "*i32", "CU_SEQLENS_Q": "*i32", "CU_SEQLENS_K": "*i32"}
COPY_PTRS = ("K_NEW", "V_NEW", "K_CACHE", "V_CACHE")


def _kernel_module():
    spec = importlib.util.spec_from_file_location("portable_attn_serve", SRC)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def signature(fn, dtype: str) -> dict[str, str]:
    sig = {}
    for n in fn.arg_names:
        p = fn.params[fn.arg_names.index(n)]
        if p.is_constexpr:
            sig[n] = "constexpr"
        elif n in ("Q", "K", "V", "OUT"):
            sig[n] = "*" + dtype
        elif n in COPY_PTRS:
            sig[n] = "*i16"
        elif n in PTR_TYPES:
            sig[n] = PTR_TYPES[n]
        elif n in I64:
            sig[n] = "i64"
        elif n in F32:
            sig[n] = "fp32"
        else:
            sig[n] = "i32"
    return sig


def attrs_for(fn, sig) -> dict:
    attrs = {}
    for i, n in enumerate(fn.arg_names):
        if sig[n].startswith("*"):
            attrs[(i,)] = [["tt.divisibility", PTR_DIV]]
        elif n in ALIGNED:
            attrs[(i,)] = [["tt.divisibility", INT_DIV]]
    return attrs


def compile_one(job: dict) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget

    from pyhipattn.runtime.memory import SPLIT_COUNTERS

    mod = _kernel_module()
    v = job["variant"]
    if v["role"] == "append":
        fn = mod.kv_append
        sig = signature(fn, "fp16")
        constexprs = dict(BLOCK_T=v["block_m"], BLOCK_D=v["block_n"], PAGED=v["kv_mode"] == 1)
    else:
        fn = mod.attn_serve
        sig = signature(fn, v["dtype"])
        hdc = v["head_dim_class"]
        d_chunk = D_CHUNK.get(hdc, 0) if job["arch"].startswith("gfx1") else 0   # RDNA: as portable's gfx1100
        constexprs = dict(BLOCK_M=v["block_m"], BLOCK_N=v["block_n"], BLOCK_D=hdc, BLOCK_DV=hdc,
                          KV_MODE=v["kv_mode"], FOLD_COUNTERS=SPLIT_COUNTERS, D_CHUNK=d_chunk,
                          FOLD_SPLITS=v["fold_splits"], FOLD_UNROLL=v["fold_unroll"], FOLD_CHUNK=v["fold_chunk"],
                          DECODE_LOOP=v["decode_loop"], SCORE_MODS=v["score_mods"])
    backend, arch_id, warp = TARGETS[job["arch"]]
    t0 = time.time()
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs_for(fn, sig))
    k = triton.compile(src, target=GPUTarget(backend, arch_id, warp),
                       options={"num_warps": v["num_warps"], "num_stages": v["num_stages"]})
    md = k.metadata
    return dict(
        arch=job["arch"], variant=v, binary=k.asm["cubin"] if backend == "cuda" else k.asm["hsaco"],
        seconds=time.time() - t0, kernel=md.name, shared=md.shared, num_warps=md.num_warps, warp_size=warp,
        global_scratch_size=getattr(md, "global_scratch_size", 0) or 0,
        profile_scratch_size=getattr(md, "profile_scratch_size", 0) or 0,
        signature=sig, asm=k.asm.get("ptx") or k.asm.get("amdgcn"),
        options={k: constexprs[k] for k in ("FOLD_COUNTERS", "D_CHUNK", "FOLD_SPLITS", "FOLD_UNROLL", "FOLD_CHUNK",
                                            "DECODE_LOOP", "SCORE_MODS")
                 if k in constexprs},
    )


def check_object(r: dict) -> list[str]:
    from pyhipattn.arch import arch_info
    from pyhipattn.codeobj import parse_image
    from pyhipattn.codeobj.limits import resource_report
    from pyhipattn.errors import KernargMismatchError
    from pyhipattn.families import serve as fam
    from pyhipattn.kernargs import check_layout, triton_layout

    v, arch = r["variant"], r["arch"]
    errs = []
    header = fam.layout(r["struct"])
    tri = triton_layout(r["signature"])
    if common.layout_rows(tri) != common.layout_rows(header):
        errs.append(f"Triton parameters {common.layout_rows(tri)} != {r['struct']} in serve_args.h "
                    f"{common.layout_rows(header)}")
    kernel = parse_image(r["binary"], f"{arch}/{v['name']}")[r["kernel"]]
    try:
        check_layout(header, kernel)
    except KernargMismatchError as e:
        errs.append(str(e))
    errs += resource_report(kernel, arch)
    if r["global_scratch_size"] or r["profile_scratch_size"]:
        errs.append(f"Triton asks for scratch (global {r['global_scratch_size']}, profile {r['profile_scratch_size']})")
    if r["shared"] > arch_info(arch).shared_limit:
        errs.append(f"shared memory {r['shared']} > {arch}'s {arch_info(arch).shared_limit}")
    if v["role"] == "fwd":
        asm = r["asm"] or ""
        want = {"sm_90a": ("mma",), "sm_80": ("mma.sync",)}.get(arch, ("v_wmma",) if arch.startswith("gfx1") else ("v_mfma",))
        if not any(w in asm for w in want):
            errs.append(f"no {' / '.join(want)} in the {'PTX' if arch.startswith('sm_') else 'ISA'}")
    return errs


def main() -> int:
    from pyhipattn.families import serve as fam

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", action="append", choices=list(TARGETS))
    ap.add_argument("--out", type=Path, default=ROOT / "kernels" / "co")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    arches = a.arch or list(TARGETS)
    os.environ["TRITON_PTXAS_PATH"] = common._find_ptxas()
    cache = tempfile.mkdtemp(prefix="pyhipattn-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton

    jobs = [dict(arch=arch, variant=v) for arch in arches for v in fam.variants(arch)]
    t0 = time.time()
    print(f"serve: {len(jobs)} objects for {', '.join(arches)} with {a.jobs} processes (triton {triton.__version__})",
          flush=True)
    with Pool(a.jobs) as pool:
        results = pool.map(compile_one, jobs, chunksize=1)
    shutil.rmtree(cache, ignore_errors=True)
    failures, by_arch = [], {}
    for r in results:
        r["struct"] = "serve_append_args" if r["variant"]["role"] == "append" else "serve_fwd_args"
        errs = check_object(r)
        if errs:
            failures.append(f"{r['arch']} serve_{r['variant']['name']}: " + "; ".join(errs))
        by_arch.setdefault(r["arch"], []).append(r)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    def describe(r: dict, fname: str) -> dict:
        v = r["variant"]
        return dict(
            name=v["name"], file=fname, kernel=r["kernel"], role=v["role"], dtype=v["dtype"],
            kv_mode=v["kv_mode"], head_dim_class=v["head_dim_class"], block_m=v["block_m"],
            block_n=v["block_n"], num_warps=v["num_warps"], num_stages=v["num_stages"], options=r["options"],
            shared=r["shared"], threads=r["num_warps"] * r["warp_size"], struct=r["struct"],
            **common.object_tail(r, fam.layout(r["struct"])))

    total = common.write_objects(a.out, "serve", by_arch, describe, lambda arch: dict(
        family="serve", arch=arch, target=list(TARGETS[arch]), triton=triton.__version__,
        source="kernels/src/portable/attn_serve.py", header="kernels/src/portable/serve_args.h"))
    print(f"serve: wrote {len(results)} objects, {total / 1e6:.1f} MB, in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
