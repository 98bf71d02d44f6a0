# issue11x (helper-45): the control codes of cuobjdump -sass (stall count, yield, barriers) per instruction, and per BAR.SYNC turn of
# the _c2 kernel the instructions / summed stall counts / MUFU.EX2 before and after BAR.ARV.  python3 sassctl.py F.sass [LO HI]
import re,sys
# parse cuobjdump -sass: instruction line has /*addr*/ text ; /* 0xLO */ and next line /* 0xHI */
lines=open(sys.argv[1]).read().split('\n')
ins=[]
for i,l in enumerate(lines):
    m=re.search(r'/\*([0-9a-f]{4,5})\*/\s+(.*?);\s*/\* (0x[0-9a-f]{16}) \*/',l)
    if m:
        hi=int(re.search(r'/\* (0x[0-9a-f]{16}) \*/',lines[i+1]).group(1),16)
        stall=(hi>>41)&0xf; yld=(hi>>45)&1; wb=(hi>>46)&7; rb=(hi>>49)&7; wm=(hi>>52)&0x3f
        ins.append((m.group(1),m.group(2).strip(),stall,yld,wb,rb,wm))
if len(sys.argv)>3:
    lo,hi_=int(sys.argv[2]),int(sys.argv[3])
    for a,t,s,y,wb,rb,wm in ins[lo:hi_]:
        print(f"{a} s{s:2d} y{y} wb{wb} rb{rb} wm{wm:02x}  {t[:70]}")
else:
    # report
    pass
def region_report(ins, name):
    bars=[i for i,x in enumerate(ins) if x[1].startswith('BAR.SYNC')]
    out=[]
    for b in bars[1:]:
        # from BAR.SYNC back to the previous WARPGROUP.DEPBAR / wait (start of softmax) .. first HGMMA after
        st=b
        while st>0 and not ins[st][1].startswith('WARPGROUP.DEPBAR'): st-=1
        g=b
        while g<len(ins) and 'HGMMA' not in ins[g][1]: g+=1
        arv=next(i for i in range(b,len(ins)) if ins[i][1].startswith('BAR.ARV'))
        s_pre=sum(x[2] for x in ins[st:b]); s_turn=sum(x[2] for x in ins[b:arv]); s_post=sum(x[2] for x in ins[arv:g])
        mu_turn=sum('MUFU.EX2' in x[1] for x in ins[b:arv]); mu_post=sum('MUFU.EX2' in x[1] for x in ins[arv:g])
        out.append(f"depbar->sync {b-st} ins/{s_pre} stall; turn {arv-b} ins/{s_turn} stall ({mu_turn} MUFU); arv->PV HGMMA {g-arv} ins/{s_post} stall ({mu_post} MUFU); total stall {s_pre+s_turn+s_post}")
    print(name); [print("   ",o) for o in out]
if len(sys.argv)==2: region_report(ins, sys.argv[1])
