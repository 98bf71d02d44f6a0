"""Time the portable family's sm_90a d64 short-KV objects (plain_short / masked_short /
softcap_short) against other builds of them and cuDNN, in one process on one GPU (issue 11).

    python3 bench/portable_short_dev.py CANDIDATE_DIR        # OUT=dir also writes time_cands.json

CANDIDATE_DIR holds cubins and ``cands.json``: a list of {name, kind, file, block_m, block_n,
num_warps, num_stages, shared, threads, kernel}; each is timed on the rows whose planned kind is
its ``kind`` (the shipped object's manifest entry patched with its tile, then its cubin), beside
the shipped object ("new") and cuDNN (torch SDPA; not for the softcap rows, where the shipped
object's output is the reference).  ``SHAPES="b,hq,hk,sq,sk,d,causal;..."`` replaces the rows.
Timing: pyhipattn.tools.bench.gpu_time (median over rotated input sets); prints a table last.
"""
import copy, json, os, sys
import torch
from pyhipattn import validate
from pyhipattn.dlpack import view
from pyhipattn.families import portable
from pyhipattn.prepared import prepare
from pyhipattn.tools import bench
from pyhipattn.tools.bench import Shape

from dev_plan import plan_with_manifest   # bench/dev_plan.py (this script's folder is on sys.path)

ARCH = "sm_90a"
SHAPES = [(32, 32, 32, 512, 512, 64, False), (16, 32, 32, 1024, 1024, 64, False),
          (32, 16, 16, 512, 512, 64, False), (16, 12, 12, 1024, 1024, 64, False),
          (32, 32, 32, 512, 512, 64, True), (16, 32, 32, 1024, 1024, 64, True),
          (32, 16, 16, 512, 512, 64, True), (16, 12, 12, 1024, 1024, 64, True)]
SHAPES = [x + (0.0,) for x in SHAPES] + [(32, 32, 32, 512, 512, 64, True, 5.0), (16, 12, 12, 1024, 1024, 64, False, 5.0)]
if os.environ.get("SHAPES"):
    SHAPES = [tuple(int(x) for x in r.split(",")[:6]) + (r.split(",")[6] == "1", 0.0) for r in os.environ["SHAPES"].split(";")]
folder = sys.argv[1]
cands = json.load(open(os.path.join(folder, "cands.json"))) if len(sys.argv) > 1 else []
base_man = portable.manifest(ARCH)


def prep_for(q, k, v, causal, cand, softcap=0.0):
    p = validate.batch_problem(view(q, argname="q"), view(k, argname="k"), view(v, argname="v"),
                               softmax_scale=None, causal=causal, window_size=(-1, -1), softcap=softcap,
                               return_lse=False, num_splits=1)
    kind = portable.tile_kind(p, ARCH)
    if cand is None:
        return prepare(portable.plan(p, ARCH, 132, 1), q.device.index), kind
    name = portable.variant_name("bf16", kind, 64)
    man = copy.deepcopy(base_man)
    o = man["by_name"][name]
    o.update(block_m=cand["block_m"], block_n=cand["block_n"], num_warps=cand["num_warps"],
             num_stages=cand["num_stages"], shared=cand["shared"], threads=cand["threads"], kernel=cand["kernel"])
    plans = plan_with_manifest(portable, man, p, ARCH, 132, 1, os.path.abspath(os.path.join(folder, cand["file"])))
    return prepare(plans, q.device.index), kind


rows = []
l2 = torch.cuda.get_device_properties(0).L2_cache_size
print(torch.cuda.get_device_name(), torch.__version__, flush=True)
for dims in SHAPES:
    b, hq, hk, sq, sk, d, causal, softcap = dims
    s = Shape(b, hq, hk, sq, sk, d, causal, "prefill")
    flops = bench.attn_flops(b, hq, sq, sk, d, causal)
    n_sets = bench.rotation_sets(bench.attn_bytes(b, hq, hk, sq, sk, d) - 2 * b * sq * hq * d, l2)
    sets = bench.make_inputs(s, "bf16", n_sets, seed=7)
    outs = [torch.empty_like(x[0]) for x in sets]
    cudnn = bench._sdpa_call("cudnn", s)
    ref = cudnn(*sets[0]).float() if not softcap else None
    row = {"shape": list(dims)}
    impls = {"cudnn": lambda i: cudnn(*sets[i])} if not softcap else {}
    want = "softcap_short" if softcap else "masked_short" if causal else "plain_short"
    for cand in [None] + [c for c in cands if c["kind"] == want]:
        nm = "new" if cand is None else cand["name"]
        preps = []
        for q, k, v in sets:
            pr, kind = prep_for(q, k, v, causal, cand, softcap)
            preps.append(pr)
        assert kind == want, (kind, want)
        def f(i, preps=preps):
            q, k, v = sets[i]
            preps[i].launch({"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(), "out": outs[i].data_ptr()},
                            torch.cuda.current_stream().cuda_stream)
        f(0); torch.cuda.synchronize()
        if ref is None:     # softcap (no cuDNN): the first implementation's output is the reference
            ref = outs[0].float().clone()
        err = float((outs[0].float() - ref).abs().max())
        row[nm + "_err"] = err
        impls[nm] = f
    for nm, f in impls.items():
        t = bench.gpu_time(f, n_sets, rep_ms=40.0, max_warmup=60)
        row[nm] = flops / (t["ms"] * 1e-3) / 1e12
    rows.append(row)
    print(json.dumps(row), flush=True)
    del sets, outs
    torch.cuda.empty_cache()
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(os.path.join(out, "time_cands.json"), "w"), indent=1)
print("\n| shape (b,hq,hk,sq,sk,d,causal,softcap) | cuDNN | impl | TFLOP/s | /cuDNN | /new | max abs err vs cuDNN (softcap: vs new) |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    names = [k for k in r if k not in ("shape", "cudnn") and not k.endswith("_err")]
    for nm in sorted(names, key=lambda n: -r[n]):
        cu = r.get("cudnn")
        print(f"| {r['shape']} | {cu or 0:.0f} | {nm} | {r[nm]:.0f} | {r[nm] / cu if cu else 0:.3f} | "
              f"{r[nm] / r['new']:.3f} | {r[nm + '_err']:.1e} |")
