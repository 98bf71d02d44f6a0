"""issue11x: ncu --page raw --csv of one report -> duration, cycles, instructions, issue, pipes, stalls (per issue-active);
ncu --page source --csv -> warp-stall samples and executed instructions per opcode (MUFU.EX2, the polynomial's FADD.RM...).
    python3 ncusum.py NAME RAW.csv SRC.csv"""
import collections, csv, re, sys
name, rawp, srcp = sys.argv[1:4]
rows = list(csv.reader(open(rawp)))
hdr, vals = rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]
v = vals[0] if vals else []
def get(pat):
    return [(h, v[i]) for i, h in enumerate(hdr) if re.fullmatch(pat, h)]
keys = [r"gpu__time_duration\.sum", r"sm__cycles_active\.avg", r"smsp__inst_executed\.sum", r"smsp__issue_active\.avg\.pct_of_peak_sustained_active",
        r"sm__inst_executed_pipe_(xu|fma|alu|fmaheavy|fmalite|uniform)\.avg\.pct_of_peak_sustained_active",
        r"sm__pipe_(tensor_op_hmma|shared|fma|alu|xu|fmaheavy)_cycles_active\.avg\.pct_of_peak_sustained_active",
        r"sm__pipe_tensor_op_gmma_cycles_active\.avg\.pct_of_peak_sustained_active", r"smsp__warps_eligible\.avg\.per_cycle_active",
        r"smsp__warps_active\.avg\.per_cycle_active"]
out = []
for k in keys:
    for h, x in get(k):
        out.append(f"{h.replace('.avg.pct_of_peak_sustained_active', ' %')}={x}")
print(f"{name}: " + "; ".join(out))
st = sorted(((float(x.replace(',', '')) if x.replace(',', '').replace('.', '').isdigit() else 0.0, h.split('stalled_')[1].split('_per_issue')[0])
             for h, x in get(r"smsp__average_warps_issue_stalled_\w+_per_issue_active\.ratio")), reverse=True)
print(f"{name} stalls per issue-active: " + ", ".join(f"{n} {x:.2f}" for x, n in st[:10] if x > 0))
try:
    rows = list(csv.reader(open(srcp)))
    hi = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    ix = {h: i for i, h in enumerate(rows[hi])}
    sc = [h for h in rows[hi] if h.startswith("stall_") and "Not" not in h]
    by = collections.defaultdict(lambda: [0, 0, collections.Counter()])
    tot = 0
    for r in rows[hi + 1:]:
        if len(r) < len(rows[hi]):
            continue
        src = r[ix["Source"]].strip()
        m = re.match(r"(@!?U?P\w+\s+)?([A-Z0-9_.]+)", src)
        op = m.group(2) if m else "?"
        op = op if op.startswith(("MUFU", "FADD.RM", "HGMMA", "BAR", "SHFL", "SYNCS")) else op.split(".")[0]
        n = int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)
        e = int(r[ix["Instructions Executed"]] or 0)
        tot += n
        by[op][0] += n
        by[op][1] += e
        by[op][2].update({h[6:]: int(r[ix[h]]) for h in sc if r[ix[h]].isdigit() and int(r[ix[h]])})
    print(f"{name} samples {tot}; by opcode (samples, executed, top stalls):")
    for op, (n, e, c) in sorted(by.items(), key=lambda t: -t[1][0])[:14]:
        print(f"   {op:22s} {n:6d} {e:>10d}  " + ", ".join(f"{k} {x}" for k, x in c.most_common(3)))
except Exception as ex:  # noqa: BLE001
    print(f"{name} source page: {type(ex).__name__}: {ex}")
