import re, subprocess, sys
cubin = sys.argv[1]
names = sys.argv[2:] or ["hopper_fwd_bf16_d64_c2", "hopper_fwd_fp16_d64_c2", "hopper_fwd_bf16_d64_c2q3", "hopper_fwd_fp16_d64_c2q3"]
for fn in names:
    out = subprocess.run(["cuobjdump", "-sass", "-fun", fn, cubin], capture_output=True, text=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    runs = []; cur = []
    for a, t in ins:
        if "MUFU.EX2" in t:
            cur.append(a)
        else:
            if cur: runs.append(cur)
            cur = []
    if cur: runs.append(cur)
    nmufu = sum(len(r) for r in runs)
    big = [(hex(r[0]), len(r)) for r in runs if len(r) >= 4]
    # split into clusters of MUFU (instances): gap > 0x800 between runs starts a new cluster
    clusters = []; 
    for r in runs:
        if clusters and r[0] - clusters[-1][-1][-1] < 0x600: clusters[-1].append(r)
        else: clusters.append([r])
    cl = [(hex(c[0][0]), sum(len(r) for r in c), max(len(r) for r in c)) for c in clusters]
    print(f"{fn}: {len(ins)} instr, {nmufu} MUFU.EX2, longest run {max(len(r) for r in runs)}; runs>=4 {big}")
    print(f"   clusters (start, mufus, longest): {cl}")
