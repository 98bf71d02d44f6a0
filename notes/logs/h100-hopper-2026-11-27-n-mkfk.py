"""mkfk.py SRC_DIR DST_DIR: a planner experiment: DST gets SRC's cubin and a manifest whose fwd_{bf16,fp16}_d128 entries
are the _fk siblings' (so every d128 problem the planner gives the d128 kernel, 4096 non-causal and causal from 4096 up
outside the _static rule, runs _fk)."""
import json, os, shutil, sys
src, dst = sys.argv[1:3]
os.makedirs(dst, exist_ok=True)
shutil.copy(os.path.join(src, "hopper_fwd.cubin"), os.path.join(dst, "hopper_fwd.cubin"))
m = json.load(open(os.path.join(src, "hopper_manifest.json")))
by = {o["name"]: o for o in m["objects"]}
m["objects"] = [dict(by[o["name"] + "_fk"], name=o["name"]) if o["name"] in ("fwd_bf16_d128", "fwd_fp16_d128") else o
                for o in m["objects"]]
json.dump(m, open(os.path.join(dst, "hopper_manifest.json"), "w"), indent=1, sort_keys=True)
print(dst, [(o["name"], o["kernel"]) for o in m["objects"] if o["name"] == "fwd_bf16_d128"])
