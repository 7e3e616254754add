#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-wgrad-cluster-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-01-wgrad-cluster-run.sh PHASE...
# with bench/results/2026-12-01-wgrad-cluster-experiments.diff applied first (the clusters and
# their WGRAD_WGMMA_CLUSTER switch; main has neither; probe needs no diff):
#   probe: bench/probes/cluster_occupancy.cu (blocks the device holds in clusters): probe.txt;
#   gate:  tests/gpu/conv_wgrad_wgmma.txt with the direct kernels first (boo, -V 1), clusters of 4
#          (the default): numerics-gate.csv; then clusters of 2 (WGRAD_WGMMA_CLUSTER=2):
#          numerics-gate2.csv;
#   ab:    the six stride-1 backward-weight lines of 2026-11-30-wgrad-pipe-sweep-jobs.txt with
#          the slices summed in clusters of 4 (base), of 2, and not (WGRAD_WGMMA_CLUSTER=1: the
#          kernel before), boo only, two rounds: ab.csv;
#   kern:  ncu on the public line and a 1D line (n32 c128 W500 1x3) with clusters of 4, 2 and
#          none: each kernel's duration: kern.txt; then both lines timed, three rounds: kern.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad-cluster
J=bench/results/2026-11-30-wgrad-pipe
PUBLIC="convbfp16 -n 64 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 4 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
for phase in "$@"; do
  case "$phase" in
  probe)
    nvcc -arch=sm_90a -O2 -o /tmp/cluster_probe bench/probes/cluster_occupancy.cu &&
      /tmp/cluster_probe | tee "$R/probe.txt"
    ;;
  gate)
    BOO_CONV_WGRAD_DIRECT=first numerics gate tests/gpu/conv_wgrad_wgmma.txt
    BOO_NVCC_FLAGS=-DBOO_WGRAD_WGMMA_CLUSTER=2 BOO_CONV_WGRAD_DIRECT=first \
      numerics gate2 tests/gpu/conv_wgrad_wgmma.txt
    ;;
  ab) timed ab "$J-sweep-jobs.txt" "base WGRAD_WGMMA_CLUSTER=1 WGRAD_WGMMA_CLUSTER=2" boo 400 ;;
  kern)
    # ncu on the public line and a 1D line (n32 c128 W500 1x3) with clusters of 4, 2 and none:
    # each kernel's duration (the main kernel and the reduction, one launch each, serialized by
    # the profiler): kern.txt; then the same lines timed, three rounds: kern.csv.
    ONE="convbfp16 -n 32 -c 128 -H 1 -W 500 -k 128 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    printf '%s\n%s\n' "$PUBLIC" "$ONE" >/tmp/kern-lines.txt
    printf -- '-\t%s\n-\t%s\n' "$PUBLIC" "$ONE" >/tmp/kern-jobs.txt
    for v in 4 2 1; do
      BOO_NVCC_FLAGS=-DBOO_WGRAD_WGMMA_CLUSTER=$v timeout 200 "$boo" preload -j 2 \
        --commands-file /tmp/kern-lines.txt >"$L/kern-$v-preload.log" 2>&1 &
    done
    wait
    for v in 4 2 1; do
      for line in public one; do
        cmd=$PUBLIC
        [ $line = one ] && cmd=$ONE
        BOO_NVCC_FLAGS=-DBOO_WGRAD_WGMMA_CLUSTER=$v timeout 100 ncu --clock-control none \
          -k regex:wgrad --launch-count 2 --metrics gpu__time_duration.sum,launch__cluster_dim_x \
          "$boo" driver --backend boo -t 0 "$cmd" >"$L/kern-$v-$line.log" 2>&1
        echo "cluster $v $line: $(grep -E 'conv_wgrad_(wgmma|reduce)_kernel|gpu__time_duration|cluster_dim' \
          "$L/kern-$v-$line.log" | sed -E 's/\(.*//; s/ +/ /g' | tr '\n' ' ')" | tee -a "$R/kern.txt"
      done
    done
    OUT="$R" JOBS=/tmp/kern-jobs.txt REPS="1 2 3" BACKENDS=boo CSV=kern.csv \
      VARIANTS="base WGRAD_WGMMA_CLUSTER=2 WGRAD_WGMMA_CLUSTER=1" timeout 300 bash bench/variants.sh \
      >"$L/kern-timed.log" 2>&1
    summary "$R/kern.csv" 70 40
    ls /usr/local/cuda/bin | grep -i nsys; ls /opt/nvidia 2>/dev/null
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
