"""issue11ah: per _c2 kernel SASS facts (cuobjdump): instructions, HGMMA, WARPGROUP.DEPBAR / ARRIVE, TRYWAIT, registers,
and the steady block's region around the PV issue.   python3 sass.py CUBIN [KERNEL]"""
import re, subprocess, sys
cub = sys.argv[1]
out = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
funcs = re.split(r"\n\s+Function : ", out)
for f in funcs[1:]:
    name = f.split("\n")[0].strip()
    if not re.search(r"_c2(q3)?$", name):
        continue
    ins = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", f)
    ops = [i[1].strip() for i in ins]
    c = lambda pat: sum(1 for o in ops if re.search(pat, o))
    nbar = c(r"^(@\S+\s+)?BAR")
    print(f"{name}: {len(ops)} instr, HGMMA {c(r'HGMMA')}, WG.DEPBAR {c(r'WARPGROUP.DEPBAR')}, WG.ARRIVE {c(r'WARPGROUP.ARRIVE')}, "
          f"TRYWAIT {c(r'TRYWAIT')}, MUFU.EX2 {c(r'MUFU.EX2')}, BAR {nbar}")
    if len(sys.argv) > 2 and sys.argv[2] in name:
        for a, o in ins:
            if re.search(r"TRYWAIT|HGMMA|WARPGROUP|BAR\.|BRA|MUFU.EX2|LDS|SHFL|ARRIVE", o):
                print("   ", a, o[:90])
