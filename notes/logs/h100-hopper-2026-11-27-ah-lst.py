"""listing of one kernel's SASS between two addresses, MUFU runs collapsed.  python3 lst.py CUBIN KERNEL LO HI"""
import re, subprocess, sys
out = subprocess.run(["cuobjdump", "-sass", "-fun", sys.argv[2], sys.argv[1]], capture_output=True, text=True).stdout
ins = [(int(a, 16), o.strip()) for a, o in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", out)]
lo, hi = int(sys.argv[3], 16), int(sys.argv[4], 16)
run = []
def flush():
    if run:
        print(f"  {run[0]:5x} .. MUFU.EX2 x{len(run)}")
        run.clear()
other = 0
for a, o in ins:
    if not lo <= a < hi:
        continue
    if "MUFU.EX2" in o:
        run.append(a); continue
    flush()
    if re.search(r"TRYWAIT|HGMMA|WARPGROUP|BAR\.|BRA|LDS|SHFL|SYNCS|FENCE|STSM|UTMA|MUFU", o):
        if other: print(f"        ({other} others)")
        other = 0
        print(f"  {a:5x} {o[:100]}")
    else:
        other += 1
flush()
