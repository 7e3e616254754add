#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-weak-lines-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-11-28-weak-lines-run.sh PHASE...
#   grouped: tests/gpu/conv_grouped_direct.txt's gate, then conv.grouped's TMA kernel with its
#            filter fragments kept in registers (K/G = 8, at most 10 chunks) against loaded every
#            step (GROUPED_TMA_HOIST_B=0), boo only, three rounds, interleaved;
#   sweep1:  forced configs on the public lines under 0.95x the vendor (16032 x 109 x 16384,
#            the 7x7 1x1 K = 2048 layer, the 1x1 backward weight, fp16 c320 3x3), two rounds,
#            then those lines with dispatch's pick against the vendor;
#   grouped2: the grouped A/B again, two rounds;
#   sweep2:  the conv.sm90_implicit N tiles (160, 192, ...) on SD-UNet-like fp16 layers, and more
#            configs on the 16032 x 109 and 7x7 K = 2048 lines, the same way;
#   grouped3: the grouped gate, then the k8 tail step against the k16 one (GROUPED_TMA_TAIL_K8=0)
#            and against neither it nor the registers, three rounds;
#   sweep3:  more tiles (256x64, 128x192, 128x96, 2x2 clusters) on the 7x7 K = 2048 line and 2x1
#            clusters on the 16032 x 109 and 113 lines, the same way;
#   ncu160:  ncu (full set, details pages) of the c320 3x3 on 128x160 and 128x192 cooperative tiles;
#   sweep4:  128x160 cooperative tiles on one N = 160 MMA against 128x192 and 128x128 pingpong, on
#            two fp16 3x3 layers (boo only, one round, checked once);
#   lists:   both public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh weak-lines
J=bench/results/2026-11-28-weak-lines
sweep_preload() {  # sweep_preload NAME: compiles its jobs' kernels (8 at a time)
  while IFS=$'\t' read -r c cmd; do
    local cfg=(); [ "$c" = - ] || cfg=(--config "$c")
    "$boo" preload -j 2 "${cfg[@]}" "$cmd" >>"$L/$1-preload.log" 2>&1 &
    while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
  done <"$J-$1-jobs.txt"
  wait
}
sweep() {  # sweep NAME: its jobs (bench/results/...-NAME-jobs.txt), two rounds, then each line
  # with dispatch's pick against the vendor
  log "$1 preload done: $(grep -c 'compiled 1' "$L/$1-preload.log" 2>/dev/null) compiled"
  grep -i "error\|failed [1-9]" "$L/$1-preload.log" | head -5
  OUT="$R" JOBS=$J-$1-jobs.txt VARIANTS=base REPS="1 2" BACKENDS=boo CSV=$1.csv \
    timeout 300 bash bench/variants.sh >"$L/$1.log" 2>&1
  grep -E "verify boo: FAIL|error|==" "$L/$1.log" | cut -c1-150
  summary "$R/$1.csv"
  cut -f2 $J-$1-jobs.txt | uniq >/tmp/$1-lines.txt
  grep '^-' /tmp/$1-lines.txt >/tmp/$1-gemm.txt
  grep '^conv' /tmp/$1-lines.txt >/tmp/$1-conv.txt
  step $1-vendor-conv 150 "$boo" driver --backend boo,cudnn -t 1 --iter 100 \
    --csv "$R/$1-vendor-conv.csv" --commands-file /tmp/$1-conv.txt
  step $1-vendor-gemm 60 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 \
    --csv "$R/$1-vendor-gemm.csv" --commands-file /tmp/$1-gemm.txt
  grep -hE ">>> (boo: min|cudnn: min|cublaslt: min|speedup)" "$L/$1-vendor-conv.log" \
    "$L/$1-vendor-gemm.log" | cut -c1-110
}
for phase in "$@"; do
  case "$phase" in
  grouped)
    sweep_preload sweep1 &
    pre=$!
    numerics grouped tests/gpu/conv_grouped_direct.txt
    OUT="$R" JOBS=$J-grouped-jobs.txt VARIANTS="base GROUPED_TMA_HOIST_B=0" REPS="1 2 3" \
      BACKENDS=boo CSV=grouped-ab.csv timeout 200 bash bench/variants.sh >"$L/ab-grouped.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab-grouped.log" | cut -c1-150
    summary "$R/grouped-ab.csv"
    wait "$pre"
    ;;
  sweep1)  # call 1
    sweep sweep1
    ;;
  grouped2)  # call 2: the grouped A/B again (two rounds), the sweep2 kernels compiling beside it
    sweep_preload sweep2 &
    pre=$!
    OUT="$R" JOBS=$J-grouped-jobs.txt VARIANTS="base GROUPED_TMA_HOIST_B=0" REPS="1 2" \
      BACKENDS=boo CSV=grouped-ab2.csv timeout 200 bash bench/variants.sh >"$L/ab-grouped2.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab-grouped2.log" | cut -c1-150
    summary "$R/grouped-ab2.csv"
    wait "$pre"
    ;;
  sweep2)  # call 2: the conv N tiles on SD-UNet-like fp16 layers, more configs on two lines
    [ -s "$L/sweep2-preload.log" ] || sweep_preload sweep2
    sweep sweep2
    ;;
  sweep3)  # call 4: wider and clustered tiles on the 7x7 K = 2048 and 16032 x 113 lines
    sweep_preload sweep3
    sweep sweep3
    ;;
  grouped3)  # call 3: the k8 tail step against the k16 one (and neither it nor the registers)
    step preload-conv 300 "$boo" preload -j 8 --commands-file bench/workloads/conv_public.txt &
    step preload-gemm 300 "$boo" preload -j 8 --commands-file bench/workloads/gemm_public.log &
    numerics grouped3 tests/gpu/conv_grouped_direct.txt
    OUT="$R" JOBS=$J-grouped-jobs.txt \
      VARIANTS="base GROUPED_TMA_TAIL_K8=0 GROUPED_TMA_TAIL_K8=0+GROUPED_TMA_HOIST_B=0" \
      REPS="1 2 3" BACKENDS=boo CSV=grouped-ab3.csv timeout 240 bash bench/variants.sh \
      >"$L/ab-grouped3.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab-grouped3.log" | cut -c1-150
    summary "$R/grouped-ab3.csv"
    wait
    ;;
  ncu160)  # call 5: ncu of the c320 3x3 on 128x160 and 128x192 cooperative tiles
    cmd="convfp16 -n 2 -c 320 -H 64 -W 64 -k 320 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    for n in 160 192; do
      cfg=conv.sm90_implicit_fp16_f32acc_fprop_2d_nobias.none_t128x${n}x64_c1x1_coop
      "$boo" preload --config $cfg "$cmd" >"$L/ncu-preload-$n.log" 2>&1 &
    done
    wait
    for n in 160 192; do
      cfg=conv.sm90_implicit_fp16_f32acc_fprop_2d_nobias.none_t128x${n}x64_c1x1_coop
      step ncu-$n 120 ncu --set full -k regex:'device_kernel' -c 1 -o "$R/ncu-$n" \
        "$boo" driver --backend boo -t 0 --config $cfg "$cmd"
      ncu --import "$R/ncu-$n.ncu-rep" --page details 2>/dev/null >"$R/ncu-$n-details.txt"
      grep -E "Duration|Registers Per|Shared Memory Config|Dynamic Shared|Block Size|Grid Size|Issued Warp|Compute \(SM\) Thr|Memory Thr|L1/TEX Hit|Bank Conf|Achieved Occ|Warp Cycles Per Issued|Executed Ipc A" \
        "$R/ncu-$n-details.txt" | head -30
    done
    ;;
  sweep4)  # call 6: 128x160 tiles with their own MMA width (CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)
    sweep_preload sweep4
    OUT="$R" JOBS=$J-sweep4-jobs.txt VARIANTS=base REPS="1" BACKENDS=boo CSV=sweep4.csv \
      timeout 120 bash bench/variants.sh >"$L/sweep4.log" 2>&1
    grep -E "verify boo|error|==" "$L/sweep4.log" | cut -c1-150
    summary "$R/sweep4.csv"
    ;;
  lists)
    public_lists 200
    ;;
  esac
done
log done
