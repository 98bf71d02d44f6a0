#!/bin/bash
# lead call d4 (exploratory, nothing ships from it): the d64 _c2 siblings of issue11j-d64c2 merged over main's PDEC (branch
# issue11k-c2pdec): v/c2p_d64 = _c2 reading the producer's tile decode (per-thread q_empty), v/c2pf_d64 = the same with
# helper-31's fused tile boundary (HOPPER_C2_FUSE_D64=1, never run before), v/c2_d64 = helper-31's shipped _c2 (own decode).
# The "hopper" column is main's shipped cubin (the PDEC d64 kernel); .dev-k/dev.py opens the _c2 gate to every length.
export PYTHONUNBUFFERED=1
cp -r .dev-k/tree/. . || exit 2
V=.dev-k/v
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $V/*/hopper_fwd.cubin
t0=$SECONDS; timeout 100 python3 .dev-k/dev.py check-only $V/c2p_d64 $V/c2pf_d64 > $OUT/check.log 2>&1; rc=$?
echo "check-only rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"; grep FAIL $OUT/check.log | head -5
[ $rc -eq 0 ] || exit 1
for c in c2p_d64 c2pf_d64; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 LIMIT=40 STEPS=sanitize OUT=$OUT/s/$c bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;1,2,2,40000,40000,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 120 \
  python3 .dev-k/dev.py time $V/c2_d64 $V/c2p_d64 $V/c2pf_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -13 $OUT/time.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf s.tgz s && rm -rf s)
