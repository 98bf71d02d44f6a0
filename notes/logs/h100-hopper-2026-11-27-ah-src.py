"""issue11ac: where the samples / instructions of one ncu --page source --csv --print-source sass export go (call a1:
ours and cuDNN at causal 32x512 32/32 d64 bf16, one launch each, SourceCounters + WarpStateStats).

    python3 h100-hopper-2026-11-27-ac-src.py a1-src.csv            # per kernel: instructions / samples by opcode and
                                                                   # by execution count (per tile, per block, ...)
    python3 h100-hopper-2026-11-27-ac-src.py a1-src.csv hopper 4000  # runs of lines with one execution count
"""
import collections
import csv
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
starts = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')]
K = {}
for j, s in enumerate(starts):
    e = starts[j + 1] if j + 1 < len(starts) else len(lines)
    name = next(csv.reader([lines[s]]))[1]
    rows = list(csv.reader(lines[s + 1:e]))
    hdr = rows[0]
    ix = {h: i for i, h in enumerate(hdr)}
    out = []
    for r in rows[1:]:
        if len(r) < len(hdr):
            continue
        try:
            out.append(dict(addr=int(r[0], 16), src=r[1].strip(), samp=int(r[ix["Warp Stall Sampling (All Samples)"]]),
                            ex=int(r[ix["Instructions Executed"]]),
                            st={h: int(r[i]) for h, i in ix.items()
                                if h.startswith("stall_") and "Not Issued" not in h and r[i].isdigit()}))
        except ValueError:
            pass
    K[name] = out
if len(sys.argv) > 2:   # runs of one execution count (address relative to the kernel's first instruction)
    d = K[[n for n in K if sys.argv[2] in n][0]]
    b, minex = d[0]["addr"], int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    segs = []
    for x in d:
        if segs and segs[-1]["ex"] == x["ex"]:
            segs[-1]["n"] += 1; segs[-1]["samp"] += x["samp"]; segs[-1]["ops"].append(x["src"])
        else:
            segs.append(dict(a=x["addr"] - b, ex=x["ex"], n=1, samp=x["samp"], ops=[x["src"]]))
    for s in segs:
        if s["ex"] < minex and s["samp"] < 20:
            continue
        c = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", o).split(" ")[0].split(".")[0] for o in s["ops"])
        print(f"{s['a']:5x} n{s['n']:4d} ex {s['ex']:7d} inst {s['ex'] * s['n'] / 1e6:5.2f}M samples {s['samp']:5d} | "
              + " ".join(f"{k}{v}" for k, v in c.most_common(7)) + " | " + s["ops"][0][:50])
    sys.exit(0)
for n, d in K.items():
    print(n[:100], "lines", len(d), "executed", sum(x["ex"] for x in d), "samples", sum(x["samp"] for x in d))
    op = collections.Counter()
    for x in d:
        m = re.match(r"(@!?U?P\w+\s+)?([A-Z0-9_]+)", x["src"])
        if m:
            op[m.group(2)] += x["ex"]
    print("   by opcode:", ", ".join(f"{k} {v / 1e6:.2f}M" for k, v in op.most_common(20)))
    c = collections.defaultdict(lambda: [0, 0, 0])
    for x in d:
        c[x["ex"]][0] += 1; c[x["ex"]][1] += x["ex"]; c[x["ex"]][2] += x["samp"]
    for k, (nl, e, s) in sorted(c.items(), key=lambda t: -t[1][2])[:8]:
        print(f"   executed {k:7d} times: {nl:4d} lines, {e / 1e6:6.2f}M instructions, {s:5d} samples")
    lsb = sorted(d, key=lambda x: -x["st"].get("stall_long_sb", 0))[:6]
    print("   long_scoreboard:", sum(x["st"].get("stall_long_sb", 0) for x in d), "top:",
          ", ".join(f"{x['addr'] - d[0]['addr']:x} ({x['ex']}) {x['st'].get('stall_long_sb', 0)}" for x in lsb))
