#!/bin/sh
# The GPU side of every corpus kernel that has none yet (those added since the last GPU run), as one script.
#
#   corpus/measure_gpu.sh              on a machine with an NVIDIA GPU and nvcc: measures, writes
#                                      corpus/measurements/<date>-gpu-<HOST_KIND>.json (resumes if killed)
#   corpus/measure_gpu.sh --dry-run    anywhere with gcc and g++: builds every such CUDA program against the
#                                      CPU emulator, runs it and its C side at small_args and compares the
#                                      checksums (times mean nothing; the file goes to the temporary folder)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--dry-run" ]; then
    exec python -m starchart.xapp.measure_corpus corpus --side both --emulate --unmeasured gpu --no-progress
fi
exec python -m starchart.xapp.measure_corpus corpus --side gpu --unmeasured gpu --host-kind "${HOST_KIND:-gpu}" \
    --note "${NOTE:-GPU side of the kernels added after the H200 run of 2026-11-23}"
