#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-wgrad-splits-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-01-wgrad-splits-run.sh PHASE...
#   sweep:  -jobs.txt: 1x1 backward weight GEMMs (C x K over N*H*W) in parallel split-K on
#           forced tiles, clusters (c2x1: the two M tiles of a cluster share their B tile through
#           TMA multicast) and slice counts against dispatch's pick, boo only, two rounds:
#           sweep.csv;
#   prof:   ncu (speed of light, memory, launch) of the kernels boo (dispatch's pick) and cuDNN
#           launch for the public line, and boo on two forced configs (PROF_RUNS: other
#           backend:config pairs, - for dispatch's pick; PROF_TAG: a prefix of the files):
#           prof-NAME-ncu.txt;
#   sum:    (after git apply -sum-experiments.diff) -sum-jobs.txt: parallel split-K lines with
#           one reduction shape for every slice count (BOO_SPLIT_SUM_ROWS, _BATCH: rows a thread,
#           slices in flight; default 1 and 32), boo only, two rounds: sum.csv;
#   final:  -sum-jobs.txt on the landed reduction (base: 4 rows and 8 slices in flight up to 8
#           slices, else 1 row and 16) against each shape everywhere (SPLIT_SUM_FEW=256: 4 rows,
#           =1: 1 row), boo only, two rounds: final.csv;
#   vendor: -jobs.txt's lines of dispatch's picks (config -) against cuDNN (-V 1): vendor.csv;
#   gate-split: tests/gpu/gemm_split_parallel.txt alone;
#   gate:   tests/gpu/gemm_split_parallel.txt (boo) and conv_wgrad_1x1.txt (boo and cuDNN), -V 1:
#           numerics-split.csv, numerics-wgrad-1x1.csv;
#   list:   the public conv list against cuDNN (-V 1): conv-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad-splits
J=bench/results/2026-12-01-wgrad-splits
for phase in "$@"; do
  case "$phase" in
  sweep) timed sweep "$J-jobs.txt" base boo 300 ;;
  prof)
    line="$(head -1 "$J-jobs.txt" | cut -f2 | sed 's/ -t 1 --iter 100//')"
    P=gemm.sm90_bf16.bf16.void.bf16_f32acc_nt_nobias.none_
    step prof-preload 120 "$boo" preload -j 4 "$line"
    for run in ${PROF_RUNS:-boo:- cudnn:- boo:t128x96x64_c1x1_coop_psplitk32 boo:t64x128x64_c2x1_pingpong_psplitk18}; do
      b=${run%%:*} c=${run#*:} cfg=() name=$b
      if [ "$c" != - ]; then cfg=(--config "$P${c}_sw1.rh") name=$b-${c%%_psplitk*}; fi
      log "prof $name"
      timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section LaunchStats -k 'regex:^(?!(fill|read_sweep|hold|empty|compare|gemm_ref|conv_.*ref))' \
        -c 8 "$boo" driver --backend "$b" -V 0 -t 1 --iter 2 "${cfg[@]}" $line >"$R/prof-${PROF_TAG:-}$name-ncu.txt" 2>&1
      grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Grid Size|Cluster Size" \
        "$R/prof-${PROF_TAG:-}$name-ncu.txt" | head -40 | cut -c1-150
    done
    ;;
  vendor)
    grep '^-' "$J-jobs.txt" >/tmp/wgrad-splits-picks.txt
    VENDOR_LIMIT=90 vendor vendor /tmp/wgrad-splits-picks.txt cudnn -V 1
    ;;
  sum)
    timed sum "$J-sum-jobs.txt" \
      "base SPLIT_SUM_ROWS=4+SPLIT_SUM_BATCH=8 SPLIT_SUM_BATCH=16 SPLIT_SUM_ROWS=4+SPLIT_SUM_BATCH=32" boo 420
    ;;
  final) timed final "$J-sum-jobs.txt" "base SPLIT_SUM_FEW=256 SPLIT_SUM_FEW=1" boo 420 ;;
  gate-split) numerics split tests/gpu/gemm_split_parallel.txt ;;
  gate)
    numerics split tests/gpu/gemm_split_parallel.txt
    NUMERICS_VENDORS=,cudnn numerics wgrad-1x1 tests/gpu/conv_wgrad_1x1.txt
    ;;
  list)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
