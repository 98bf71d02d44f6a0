"""Call pr1 part B: the bench's rows with paired timing in the rotate order (ours follows efficient at 3 of 4 calls,
cuDNN follows flash) and in the balanced order (each follows every other equally often): bench.bench_shape over six
rows, the two orders alternating three times each, 5 rounds per row; ours/cuDNN per run."""
import json
import sys

from pyhipattn.tools import bench

SH = [bench.Shape(16, 12, 12, 1024, 1024, 64, False, "prefill"), bench.Shape(32, 16, 16, 512, 512, 64, False, "prefill"),
      bench.Shape(16, 32, 32, 1024, 1024, 64, False, "prefill"), bench.Shape(32, 32, 32, 512, 512, 64, False, "prefill"),
      bench.Shape(1, 32, 8, 8192, 8192, 128, True, "prefill"), bench.Shape(1, 16, 16, 16384, 16384, 128, False, "prefill")]
dev = bench._device()
peers = ["flash", "cudnn", "efficient"]
out = []
for rep in range(3):
    for order in ("rotate", "balanced"):
        for i, s in enumerate(SH):
            row = bench.bench_shape(s, "bf16", peers, dev, seed=1000 + i, log=lambda m: None, rounds=5, order=order)
            r = row["cudnn"]["ms"] / row["ours"]["ms"]
            out.append({"rep": rep, "order": order, "shape": s.dims(), "causal": s.causal, "ours_over_cudnn": r,
                        **{n: row[n]["tflops"] for n in ["ours"] + peers if "tflops" in row.get(n, {})}})
            tf = " ".join(f"{n} {row[n]['tflops']:6.1f}" for n in ["ours"] + peers if "tflops" in row.get(n, {}))
            print(f"rep {rep} {order:8s} {s.label():32s} {tf} ours/cudnn {r:.3f}", flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
