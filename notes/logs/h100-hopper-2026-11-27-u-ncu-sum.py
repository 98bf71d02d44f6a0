"""issue11u (helper-41): ncu --page raw --csv of the u2 report -> per result: duration, instructions, issue-active and the
stall reasons (warps per issue-active cycle), biggest first.   python3 ncu_sum.py raw.csv LABEL [LABEL ...]"""
import csv
import re
import sys

rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
data = [r for r in rows[2:] if len(r) == len(hdr)]
labels = sys.argv[2:]
col = {h: i for i, h in enumerate(hdr)}
def num(r, h):
    try:
        return float(r[col[h]].replace(",", ""))
    except (KeyError, ValueError):
        return float("nan")
st = [h for h in hdr if re.fullmatch(r"smsp__average_warps_issue_stalled_\w+_per_issue_active\.ratio", h)]
for i, r in enumerate(data):
    lab = labels[i] if i < len(labels) else f"result {i}"
    stalls = sorted(((num(r, h), h.split("stalled_")[1].split("_per_issue")[0]) for h in st), reverse=True)
    print(f"{lab}: {r[col['Kernel Name']] if 'Kernel Name' in col else ''} duration {num(r, 'gpu__time_duration.sum'):.0f} "
          f"inst {num(r, 'smsp__inst_executed.sum'):.4g} issue-active {num(r, 'smsp__issue_active.avg.pct_of_peak_sustained_active'):.1f}% "
          "stalls/issue: " + ", ".join(f"{n} {v:.2f}" for v, n in stalls[:9]))
