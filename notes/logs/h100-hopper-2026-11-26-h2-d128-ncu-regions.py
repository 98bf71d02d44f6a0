"""Warp-stall samples of an ncu source page (``ncu -i R --page source --csv --print-source sass | gzip > F``) grouped by
each SASS line's execution count (helper h2, issue11h-d128): lines run once per key block, once per tile, ... fall in
separate classes.  python3 ncu-regions.py F.csv.gz SECTION_INDEX ...  (sections: the profiled launches in order)."""
import collections, csv, gzip, sys

rows = list(csv.reader(gzip.open(sys.argv[1], "rt")))
secs, cur, hdr = [], None, None
for r in rows:
    if r and r[0] == "Kernel Name":
        cur = (r[1], []); secs.append(cur)
    elif r and r[0] == "Address":
        hdr = r
    elif cur is not None and r and r[0].startswith("0x"):
        cur[1].append(r)
H = {h: i for i, h in enumerate(hdr)}
stalls = [h for h in H if h.startswith("stall_") and "Not Issued" not in h]
for idx in map(int, sys.argv[2:]):
    name, ins = secs[idx]
    tot = sum(int(x[H["# Samples"]]) for x in ins)
    cls = collections.defaultdict(lambda: [0, 0, collections.Counter()])
    for x in ins:
        e = int(x[H["Instructions Executed"]] or 0); smp = int(x[H["# Samples"]] or 0)
        c = cls[e]; c[0] += 1; c[1] += smp
        for s in stalls: c[2][s] += int(x[H[s]] or 0)
    print(f"== {name[:60]} total samples {tot}")
    for e, (n, smp, st) in sorted(cls.items(), key=lambda kv: -kv[1][1])[:14]:
        print(f"exec {e:9d}: {n:5d} instrs, samples {smp:6d} ({100*smp/tot:5.1f}%)  " + " ".join(f"{k[6:]}={v}" for k, v in st.most_common(4)))
