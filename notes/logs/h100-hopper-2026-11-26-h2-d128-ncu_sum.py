"""Summarise an ncu raw csv (one row per profiled launch): key metrics side by side, then the top stall reasons."""
import csv, sys, re
rows = list(csv.reader(open(sys.argv[1])))
hdr, units, data = rows[0], rows[1], rows[2:]
col = {h: i for i, h in enumerate(hdr)}
def g(r, name):
    i = col.get(name)
    return r[i] if i is not None else "-"
keys = ["Kernel Name", "gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "sm__cycles_active.max",
        "sm__cycles_active.min", "smsp__inst_executed.sum", "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread", "launch__grid_size", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed"]
keys += [h for h in hdr if re.search(r"tensor.*(gmma|op_hmma).*active.*pct|pipe_tensor_op_gmma_cycles_active\.avg\.pct", h)][:4]
for k in keys:
    print(f"{k[:70]:70s} | " + " | ".join(g(r, k)[:40] for r in data))
st = [h for h in hdr if re.match(r"smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$", h)]
print("\nstalls per issued instruction (top 10 by launch)")
for r in data:
    vals = []
    for h in st:
        try: vals.append((float(g(r, h).replace(",", "")), h.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", "")))
        except ValueError: pass
    vals.sort(reverse=True)
    print(g(r, "Kernel Name")[:40], " ".join(f"{n}={v:.2f}" for v, n in vals[:10]))
