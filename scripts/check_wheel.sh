#!/usr/bin/env bash
# The wheel works with no checkout: build it, install it into a fresh virtual environment, leave
# the checkout, and use it there (issue 10).  Run by .ci/run; needs network for the runtime
# dependencies (numpy, ml_dtypes, msgpack, pyelftools, cffi, zstandard) unless they are cached.
#
#   bash scripts/check_wheel.sh            # exit 0 when every step passed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { printf '\n== %s\n' "$*"; }

step "build the wheel"
python3 -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/dist" "$root"
wheel=$(ls "$work"/dist/pyhipattn-*.whl)
python3 - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
co = [n for n in names if n.startswith("pyhipattn/_kernels/co/")]
hdr = [n for n in names if n.startswith("pyhipattn/_kernels/src/") and n.endswith(".h")]
print(f"{sys.argv[1].rsplit('/', 1)[1]}: {len(names)} files, {len(co)} under _kernels/co, {len(hdr)} headers")
assert len(co) > 400 and len(hdr) >= 5, "the wheel lacks its kernels"
PY

step "install it into a fresh venv"
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check "$wheel"

step "use it from outside the checkout"
cd "$work"
unset PYHIPATTN_KERNELS_DIR PYTHONPATH
"$work/venv/bin/pyhipattn" info
"$py" - <<'PY'
import pathlib
import pyhipattn

pkg = pathlib.Path(pyhipattn.__file__).resolve().parent
assert "site-packages" in str(pkg), f"imported {pkg}, not the installed wheel"
arches = ["gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201", "sm_90a", "sm_80"]
for arch in arches:
    for causal in (False, True):
        for shape in (((2, 1024, 32, 128), (2, 1024, 8, 128)), ((4, 1, 32, 64), (4, 8192, 8, 64))):
            d = pyhipattn.plan_mha_fwd(shape[0], shape[1], shape[1], dtype="bf16", causal=causal, arch=arch,
                                       explain=True)
            for p in d.plans:
                path = pathlib.Path(p.code_object)
                assert path.is_absolute() and path.is_file() and pkg in path.parents, p.code_object
                k = pyhipattn.load(p.code_object)[p.kernel]          # by the path the plan names
    kv = pyhipattn.plan_mha_fwd_kvcache((8, 1, 32, 128), (512, 16, 8, 128), (512, 16, 8, 128), arch=arch,
                                        block_table_shape=(8, 64), causal=True, explain=True)
    print(f"{arch:8s} {d.family:9s} decode/prefill plans load; kvcache -> {kv.family}, {len(kv.plans)} launch(es)")
print("planning and loading from", pkg)
PY
site=$("$py" -c 'import pathlib, pyhipattn; print(pathlib.Path(pyhipattn.__file__).parent)')
if command -v llvm-objdump-22 >/dev/null; then
  step "pyhipattn check --static-only on the installed kernels"
  "$work/venv/bin/pyhipattn" check --static-only "$site/_kernels/co" | tail -3
else
  echo "(llvm-objdump-22 not installed: check --static-only skipped)"
fi
step "the wheel works"
