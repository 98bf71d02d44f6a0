import csv, sys, collections
def load(p):
    rows = list(csv.reader(open(p))); hdr = rows[1]; ix = {h: i for i, h in enumerate(hdr)}
    sc = [h for h in hdr if h.startswith("stall_") and "Not" not in h]
    d = []
    for r in rows[2:]:
        if len(r) < len(hdr): continue
        d.append((int(r[0], 16), r[1].strip(), int(r[ix["Instructions Executed"]]), int(r[ix["Warp Stall Sampling (All Samples)"]]), {h[6:]: int(r[ix[h]]) for h in sc}))
    b = d[0][0]
    return [(a - b, s, e, n, st) for a, s, e, n, st in d]
def region(d, lo, hi, name, ex=None):
    sel = [x for x in d if lo <= x[0] < hi and (ex is None or x[2] == ex)]
    n = sum(x[3] for x in sel); st = collections.Counter()
    for x in sel: st.update(x[4])
    top = ", ".join(f"{k} {v}" for k, v in st.most_common(4) if v)
    print(f"  {name:42s} lines {len(sel):4d} samples {n:5d}  [{top}]")
    return n
# ours: the steady c2_step (bf16 base): 0x22e0 .. 0x5590 ; PV wait at 0x54d0
d = load(sys.argv[1])
tot = sum(x[3] for x in d); print("ours total samples", tot)
region(d, 0x22e0, 0x2380, "steady: loop head .. QK^T wait (incl.)")
region(d, 0x2380, 0x34f0, "steady: after QK wait .. BAR.SYNC (mask)")
region(d, 0x34f0, 0x3500, "steady: BAR.SYNC")
region(d, 0x3500, 0x4120, "steady: turn (max + 31 EX2)")
region(d, 0x4120, 0x49d0, "steady: after BAR.ARV .. first PV HGMMA")
region(d, 0x49d0, 0x4c90, "steady: PV issue (8 HGMMA)")
region(d, 0x4c90, 0x5170, "steady: K wait + QK^T issue")
region(d, 0x5170, 0x54d0, "steady: flush (pending O)")
region(d, 0x54d0, 0x5590, "steady: PV wait .. back branch")
region(d, 0x5590, 0xa160, "last block + tile boundary + end")
region(d, 0x0, 0x22e0, "prologue + first tile (consumers)")
region(d, 0xa160, 0x20000, "producer (+ spin stubs)")
