#!/bin/bash
# issue11n-d128 (helper n), for the lead: validation of the shipped cubin fd7bd13d... (HOPPER_DEC1_CAUSAL_D128) over
# /work/main's tree with .dev-n/tree copied in (the prefix `cp -r .dev-n/tree/. .` does it), then its timing against
# 6255ae7's cubin (.dev-n/v3.tar.xz -> .dev-n/v/main_d128).  Never run; about 300 s.
export PYTHONUNBUFFERED=1
S=$SECONDS
tar -xJf .dev-n/v3.tar.xz -C .dev-n && (cd .dev-n/v && sha256sum -c ../SHA256SUMS3) || exit 2
sha256sum kernels/co/sm_90a/hopper_fwd.cubin   # fd7bd13d...
t0=$SECONDS; CHECK_S=120 TESTS_S=260 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh 2>&1 | tail -4; echo "  ($((SECONDS-t0))s)"
t0=$SECONDS; KERNELS='_d128(_fk)?$' LIMIT=60 STEPS=sanitize OUT=/tmp/s bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  ($((SECONDS-t0))s)"
R="32,16,16,512,512,128,1;16,16,16,1024,1024,128,1;8,16,16,2048,2048,128,1;4,16,16,4096,4096,128,1;32,16,16,512,512,128,0"
HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 120 python3 bench/hopper_dev.py time .dev-n/v/main_d128 > $OUT/time.log 2>&1; echo "time rc=$?"; tail -7 $OUT/time.log
echo "wall $((SECONDS-S))s"
