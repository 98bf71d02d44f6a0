#!/usr/bin/env bash
# One device run for the serving work (issue 13): the GPU tests, then the decode bandwidth
# benchmark.  Logs go to $1 (default ./gpu-run).  Needs torch with a GPU; wheels in .whl/ (if
# present) are installed to /tmp/site first, for machines whose python lacks pyelftools & co.
set -o pipefail
out=${1:-gpu-run}
mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
timeout "${GPU_TESTS_TIMEOUT:-330}" python3 -m pytest -v -rs -p no:cacheprovider tests/gpu 2>&1 \
    | tee "$out/gpu-tests.log" | grep -E "FAILED|ERROR|passed|failed|SKIPPED" | tail -40
timeout "${BENCH_TIMEOUT:-200}" python3 -m pyhipattn bench-kvcache --out "$out" 2>&1 | tee "$out/bench-kvcache.log"
