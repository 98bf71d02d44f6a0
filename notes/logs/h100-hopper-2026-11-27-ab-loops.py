# loops (backward branches) with >= MINH HGMMA in a cuobjdump -sass listing; counts per loop
import re,sys,collections
MINH=int(sys.argv[2]) if len(sys.argv)>2 else 8
ins=[]
for l in open(sys.argv[1]):
    m=re.search(r'/\*([0-9a-f]{4,5})\*/\s+(.*?);',l)
    if m: ins.append((int(m.group(1),16),m.group(2).strip()))
addr={a:i for i,(a,_) in enumerate(ins)}
for i,(a,t) in enumerate(ins):
    m=re.search(r'BRA (0x[0-9a-f]+)',t)
    if m and int(m.group(1),16)<a:
        j=addr[int(m.group(1),16)]
        body=ins[j:i+1]
        if sum('HGMMA' in x[1] for x in body)>=MINH:
            c=collections.Counter(re.sub(r'^@!?U?P\w+\s+','',x[1]).split()[0].split('.')[0] for x in body)
            print(f"loop {ins[j][0]:x}..{a:x}: {len(body)} ins; HGMMA {c['HGMMA']} MUFU {c['MUFU']} FADD {c['FADD']} FMUL {c['FMUL']} FFMA {c['FFMA']} FMNMX {c['FMNMX']} F2FP {c['F2FP']} SHFL {c['SHFL']} LDL {c['LDL']} STL {c['STL']} DEPBAR {sum('WARPGROUP.DEPBAR' in x[1] for x in body)} other {len(body)-sum(c[k] for k in ['HGMMA','MUFU','FADD','FMUL','FFMA','FMNMX','F2FP','SHFL','LDL','STL'])}")
