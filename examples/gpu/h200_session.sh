#!/usr/bin/env bash
# One lease of the H200 for issue 8: what each call of the device tool ran, in order.
#
#   bash examples/gpu/h200_session.sh measure SECONDS KERNEL...   # the sampled spaces (measure_h200.py)
#   bash examples/gpu/h200_session.sh throughput SECONDS KERNEL... # throughput over input sizes (MSP inputs)
#   bash examples/gpu/h200_session.sh search SECONDS KERNEL...     # the tree-guided search, live (search_h200.py)
#   bash examples/gpu/h200_session.sh inputs SECONDS KERNEL...     # bfs, matrix at several input sizes (inputs_h200.py)
#   bash examples/gpu/h200_session.sh xapp SECONDS                # the XAPP corpus's CUDA side
#   bash examples/gpu/h200_session.sh smoke SECONDS               # the machine, and CudaEvaluator's own check
#
# Results accumulate in /tmp/h200 on the GPU machine (kept while it stays warm) and are copied
# to $OUT/h200 at the end of every call (and to data/h200 when $OUT is unset). A machine that
# went cold starts from data/h200 as carried from the last call: every script resumes from
# its stores, so nothing measured is measured twice. SECONDS bounds the measuring; the
# copy-out runs after it, also when the measuring was stopped.
set -u
export PYTHONUNBUFFERED=1
phase=$1; seconds=$2; shift 2
out=${OUT:-data}
work=/tmp/h200
mkdir -p "$work" "$out/h200"
if [ -d data/h200 ]; then cp -rn data/h200/. "$work/"; fi   # a cold machine resumes from the carried data

case $phase in
  smoke)
    { date -u +%FT%TZ; nvidia-smi; nvcc --version; python3 -c "import cupy, pynvml; print('cupy', cupy.__version__)"; } \
      > "$work/machine.txt" 2>&1
    nvidia-smi -q > "$work/nvidia-smi-q.txt" 2>&1
    timeout -s INT -k 10 "$seconds" python3 tests/gpu/run_cuda_evaluator.py "$work/cuda_evaluator.json" --power \
      2>&1 | tee "$work/cuda_evaluator.log"
    ;;
  measure)
    timeout -s INT -k 20 "$seconds" python3 examples/gpu/measure_h200.py "$@" --out "$work" --power-duration 0.5 \
      2>&1 | tee -a "$work/measure.log" | grep -v "━"
    ;;
  throughput)
    timeout -s INT -k 20 "$seconds" python3 examples/gpu/throughput_h200.py "$@" --out "$work" \
      2>&1 | tee -a "$work/throughput.log" | grep -v "━"
    ;;
  search)
    timeout -s INT -k 20 "$seconds" python3 examples/gpu/search_h200.py "$@" --out "$work" \
      2>&1 | tee -a "$work/search.log"
    ;;
  inputs)
    timeout -s INT -k 20 "$seconds" python3 examples/gpu/inputs_h200.py "$@" --out "$work" \
      2>&1 | tee -a "$work/inputs.log"
    ;;
  xapp)
    timeout -s INT -k 20 "$seconds" python3 -m starchart.xapp.measure_corpus corpus --side gpu --host-kind h200 \
      --out "$work/xapp-gpu-h200.json" --no-progress 2>&1 | tee -a "$work/xapp.log"
    ;;
  *) echo "unknown phase $phase: smoke, measure, throughput, search, inputs or xapp" >&2; exit 2 ;;
esac
status=${PIPESTATUS[0]}
rm -f "$work"/*.db-shm
cp -r "$work/." "$out/h200/"
echo "phase $phase ended with status $status; $(ls "$work" | wc -l) files in $out/h200"
