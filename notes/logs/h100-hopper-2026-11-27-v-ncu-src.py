import csv, sys, collections
def load(p):
    rows = list(csv.reader(open(p)))
    hdr = rows[1]; data = rows[2:]
    ix = {h: i for i, h in enumerate(hdr)}
    out = []
    for r in data:
        if len(r) < len(hdr): continue
        try:
            out.append(dict(addr=int(r[0], 16), src=r[1].strip(), samp=int(r[ix["Warp Stall Sampling (All Samples)"]]),
                            ex=int(r[ix["Instructions Executed"]]),
                            st={h: int(r[i]) for h, i in ix.items() if h.startswith("stall_") and "Not Issued" not in h and r[i].isdigit()}))
        except ValueError:
            pass
    return out
for p in sys.argv[1:]:
    d = load(p)
    tot = sum(x["ex"] for x in d); ts = sum(x["samp"] for x in d)
    print(p, "lines", len(d), "executed", tot, "samples", ts)
    # group by executed count
    g = collections.defaultdict(lambda: [0, 0, 0])
    for x in d:
        g[x["ex"]][0] += 1; g[x["ex"]][1] += x["ex"]; g[x["ex"]][2] += x["samp"]
    for k, (n, e, s) in sorted(g.items(), key=lambda t: -t[1][1])[:12]:
        print(f"  exec/line {k:>8}: lines {n:4d} executed {e:>9} ({100*e/tot:5.1f}%) samples {s:6d} ({100*s/ts:5.1f}%)")
    stt = collections.Counter()
    for x in d: stt.update(x["st"])
    print("  stalls:", ", ".join(f"{k[6:]} {100*v/ts:.1f}%" for k, v in stt.most_common(10)))
    # top sampled instructions
    for x in sorted(d, key=lambda x: -x["samp"])[:25]:
        top = max(x["st"].items(), key=lambda t: t[1]) if x["st"] else ("", 0)
        print(f"   {x['addr'] & 0xffff:#07x} {x['samp']:5d} ex {x['ex']:7d} {top[0][6:]:>12} {x['src'][:70]}")
