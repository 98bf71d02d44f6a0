#!/usr/bin/env bash
# Run the test suite on a PATH that hides tools, as on machines that lack them (issue 10):
#   bash scripts/test_restricted.sh llvm14        # no LLVM >= 15 tools: llvm-objdump is the system's old one (if any)
#   bash scripts/test_restricted.sh cuda-off-path # CUDA stays in /usr/local/cuda but is not on PATH
# Every other executable on PATH stays (symlinked into a private bin directory).  Extra
# arguments go to pytest.  PYHIPATTN_REQUIRE_TOOLS is cleared: missing tools must skip.
set -euo pipefail
mode=${1:?usage: test_restricted.sh llvm14|cuda-off-path [pytest args]}
shift
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    [ -x "$f" ] && [ -f "$f" ] || continue
    name=$(basename "$f")
    [ -e "$bin/$name" ] && continue
    real=$(readlink -f "$f")
    case $mode in
      llvm14)
        if [[ $name =~ -(1[5-9]|[2-9][0-9])$ || $real == */llvm-1[5-9]/* || $real == */llvm-[2-9][0-9]/* ]]; then continue; fi ;;
      cuda-off-path)
        if [[ $real == /usr/local/cuda* || $name =~ ^(nvcc|ptxas|cuobjdump|nvdisasm|fatbinary|nvlink)$ ]]; then continue; fi ;;
      *) echo "unknown mode $mode" >&2; exit 2 ;;
    esac
    ln -s "$f" "$bin/$name"
  done
done
unset PYHIPATTN_REQUIRE_TOOLS CUDA_HOME
echo "PATH=$bin ($(ls "$bin" | wc -l) tools); llvm-objdump: $(PATH=$bin command -v llvm-objdump || echo none) $(PATH=$bin llvm-objdump --version 2>/dev/null | grep -o 'LLVM version [0-9.]*' || true); nvcc on PATH: $(PATH=$bin command -v nvcc || echo none)"
PATH=$bin python3 -m pytest -q -rs "$@"
