#!/bin/bash
# quick build of hopper_fwd_bf16_d64_c2 alone (PMAPS form) for SASS reading; adapted from helper-45's quickc2.sh
#   bash quick.sh REPO_ROOT NAME "-DHOPPER_FOO=1 ..." [Fp16]
set -e
root=$1; name=$2; extra=$3; E=${4:-Bf16}
w=/tmp/ab/quick; mkdir -p $w
printf '#!/bin/bash\nprintf "%%q " "$@" > %s/nvcc_args.txt\nexit 1\n' $w > $w/fakenvcc; chmod +x $w/fakenvcc
(cd $root && NVCC=$w/fakenvcc OUT=$w/junk bash scripts/build/hopper.sh >/dev/null 2>&1 || true)
src=$root/kernels/src/hopper/hopper_fwd.cu
n=$(grep -n '^#define HOPPER_KERNEL_XS' $src | cut -d: -f1)
{ head -n $((n-1)) $src; cat <<EOT
extern "C" __global__ void __launch_bounds__(3 * 128, 1) hopper_fwd_bf16_d64_c2(const __grid_constant__ hopper_fwd_args a, const __grid_constant__ hopper_fwd_maps_param m) {
    fwd_body<$E, 64, 128, HOPPER_C2_STAGES_D64, 2, 2, true, false, false, false, false, false, true, true>(a, &m.m);
}
EOT
} > $w/$name.cu
args=$(sed 's/-o [^ ]* [^ ]*hopper_fwd.cu//' $w/nvcc_args.txt)
eval nvcc $args $extra -Xptxas -v -I$root/kernels/src/hopper -o $w/$name.cubin $w/$name.cu > $w/$name.log 2>&1 || { tail -30 $w/$name.log; exit 1; }
B=$(python3 -c "import triton,os;print(os.path.dirname(triton.__file__))")/backends/nvidia/bin
$B/cuobjdump -sass $w/$name.cubin > $w/$name.sass 2>/dev/null
c() { grep -cE "$1" "$2" || true; }
echo "$name: ins $(grep -cE "^\s+/\*[0-9a-f]{4,5}\*/" $w/$name.sass) MUFU.EX2 $(c MUFU.EX2 $w/$name.sass) WARPGROUP.DEPBAR $(c WARPGROUP.DEPBAR $w/$name.sass) HGMMA $(c HGMMA $w/$name.sass) LDL/STL $(c 'LDL|STL' $w/$name.sass) C75 $(c C75 $w/$name.log); $(grep -oE 'Used [0-9]+ registers.*' $w/$name.log)"
