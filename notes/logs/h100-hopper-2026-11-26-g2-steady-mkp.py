"""mkp.py SRC_DIR DST_DIR static|bn176: a planner experiment: DST gets SRC's cubin and a manifest whose
fwd_{bf16,fp16}_d128 entries are the _static (or _bn176) kernels' (so every non-causal d128 problem runs them)."""
import json, os, shutil, sys
src, dst, mode = sys.argv[1:4]
os.makedirs(dst, exist_ok=True)
shutil.copy(os.path.join(src, "hopper_fwd.cubin"), os.path.join(dst, "hopper_fwd.cubin"))
m = json.load(open(os.path.join(src, "hopper_manifest.json")))
by = {o["name"]: o for o in m["objects"]}
objs = []
for o in m["objects"]:
    if o["name"] in ("fwd_bf16_d128", "fwd_fp16_d128"):
        o = dict(by[o["name"] + "_" + mode], name=o["name"])
    objs.append(o)
m["objects"] = objs
json.dump(m, open(os.path.join(dst, "hopper_manifest.json"), "w"), indent=1, sort_keys=True)
print(dst, [(o["name"], o["kernel"], o["shared"]) for o in objs if o["name"] in ("fwd_bf16_d128",)])
