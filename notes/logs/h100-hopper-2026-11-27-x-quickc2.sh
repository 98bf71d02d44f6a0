#!/bin/bash
# issue11x (helper-45): a ~2 s build of hopper_fwd_bf16_d64_c2 alone, for SASS reading (its SASS, encodings included,
# equals the whole build's bf16 _c2: checked for p4 on 2026-11-27).  Takes scripts/build/hopper.sh's nvcc flags (through a
# fake nvcc that records them), the source up to the kernel macros, and one kernel instantiation.
#   bash quickc2.sh REPO_ROOT NAME "-DHOPPER_FOO=1 ..."   -> /tmp/quickc2/NAME.{cubin,sass,log} and one summary line
set -e
root=$1; name=$2; extra=$3
w=/tmp/quickc2; mkdir -p $w
printf '#!/bin/bash\nprintf "%%q " "$@" > %s/nvcc_args.txt\nexit 1\n' $w > $w/fakenvcc; chmod +x $w/fakenvcc
(cd $root && NVCC=$w/fakenvcc OUT=$w/junk bash scripts/build/hopper.sh >/dev/null 2>&1 || true)
src=$root/kernels/src/hopper/hopper_fwd.cu
n=$(grep -n '^#define HOPPER_KERNEL_XS' $src | cut -d: -f1)
{ head -n $((n-1)) $src; cat <<'EOT'
extern "C" __global__ void __launch_bounds__(3 * 128, 1) hopper_fwd_bf16_d64_c2(const __grid_constant__ hopper_fwd_args a) {
    fwd_body<Bf16, 64, 128, HOPPER_C2_STAGES_D64, 2, 2, true, false, false, false, false, false, true>(a);
}
EOT
} > $w/$name.cu
args=$(sed 's/-o [^ ]* [^ ]*hopper_fwd.cu//' $w/nvcc_args.txt)
eval nvcc $args $extra -Xptxas -v -I$root/kernels/src/hopper -o $w/$name.cubin $w/$name.cu > $w/$name.log 2>&1 || { tail -20 $w/$name.log; exit 1; }
B=$(python3 -c "import triton,os;print(os.path.dirname(triton.__file__))")/backends/nvidia/bin
$B/cuobjdump -sass $w/$name.cubin > $w/$name.sass 2>/dev/null
c() { grep -cE "$1" "$2" || true; }
echo "$name: MUFU.EX2 $(c MUFU.EX2 $w/$name.sass) WARPGROUP.DEPBAR $(c WARPGROUP.DEPBAR $w/$name.sass) HGMMA $(c HGMMA $w/$name.sass) LDL/STL $(c 'LDL|STL' $w/$name.sass) C75 $(c C75 $w/$name.log); $(grep -oE 'Used [0-9]+ registers' $w/$name.log)"
