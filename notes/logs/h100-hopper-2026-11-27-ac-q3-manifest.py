"""issue11ac: the q3_d64 variant's manifest (call a2).  scripts/build/hopper.sh has no build variable for
HOPPER_C2_CAUSAL_Q3_D64 (the lead wires one when merging), so after
    OUT=/tmp/ac/q3_d64 NVCC_EXTRA="-DHOPPER_C2_CAUSAL_Q3_D64=1" bash scripts/build/hopper.sh
this sets the two _c2 entries to three Q buffers: shared 149248 -> 165632 (make_manifest.shared_bytes(128, 128, 64, 3,
3, True, True, 4)), q_stages 2 -> 3.  make_manifest.py needs the same for a shipped build (its _c2 rule: q_bufs 3, and
its epi_mode condition q_bufs == 2 to admit 3 on _c2, as hopper_fwd.cu's EPI_MODE).

    python3 h100-hopper-2026-11-27-ac-q3-manifest.py /tmp/ac/q3_d64/hopper_manifest.json
"""
import json
import sys

p = sys.argv[1]
raw = open(p).read()
m = json.loads(raw)
n = 0
for o in m["objects"]:
    if o["name"].endswith("_d64_c2"):
        assert o["shared"] == 149248 and o["q_stages"] == 2, o
        o["shared"], o["q_stages"] = 149248 + 16384, 3
        n += 1
assert n == 2, n
open(p, "w").write(json.dumps(m, indent=1 if raw.startswith('{\n "') else 2) + ("\n" if raw.endswith("\n") else ""))
print(f"{p}: {n} _c2 entries set to shared 165632, q_stages 3")
