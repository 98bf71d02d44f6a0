import csv, re, collections
def load(path):
    lines = open(path).read().splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')]
    K = {}
    for j, s in enumerate(starts):
        e = starts[j + 1] if j + 1 < len(starts) else len(lines)
        name = next(csv.reader([lines[s]]))[1]
        rows = list(csv.reader(lines[s + 1:e])); hdr = rows[0]; ix = {h: i for i, h in enumerate(hdr)}
        out = []
        for r in rows[1:]:
            if len(r) < len(hdr): continue
            try:
                out.append(dict(addr=int(r[0], 16), src=r[1].strip(), samp=int(r[ix["Warp Stall Sampling (All Samples)"]]),
                    ni=int(r[ix["Warp Stall Sampling (Not-issued Samples)"]]), ex=int(r[ix["Instructions Executed"]]),
                    st={h[6:]: int(r[i]) for h, i in ix.items() if h.startswith("stall_") and "Not Issued" not in h and r[i].isdigit() and int(r[i])}))
            except ValueError: pass
        b = out[0]["addr"]
        for x in out: x["a"] = x["addr"] - b
        K[name] = out
    return K
def summ(sel):
    st = collections.Counter()
    for x in sel: st.update(x["st"])
    return sum(x["samp"] for x in sel), st
