#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-grouped-phases-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-01-grouped-phases-run.sh PHASE...
#   gate:   tests/gpu/conv_grouped_direct.txt and conv_grouped.txt, boo and cuDNN (-V 1):
#           numerics-grouped-direct.csv, numerics-grouped.csv;
#   ab:     -jobs.txt (stride-2 grouped layers: ResNeXt's c512 28x28 and c256 56x56 G = 32, a
#           G = 16 c128 56x56; the c1024 14x14 G = 32 layer, whose plan keeps whole rows; the public
#           stride-1 G = 32 line, unchanged) with stride-2 rows in phases (base) against whole
#           rows (GROUPED_TMA_PHASES=0), boo only, two rounds: ab.csv;
#   vendor: -jobs.txt on dispatch's picks against cuDNN (-V 1): vendor.csv;
#   prof:   ncu --set full of the grouped TMA kernel on the c512 28x28 stride-2 layer, phases and
#           whole rows (BOO_NVCC_FLAGS): prof-c512-*, prof-c512-whole-*;
#   vecy:   (with bench/results/2026-12-01-taps-channels-vecy-experiments.diff applied)
#           -taps-channels-vecy-jobs.txt with the TMA store (base) against the vector stores
#           (TAPS_VECTOR_Y=1), boo only: vecy.csv;
#   tiles:  -jobs.txt with the tile options of 128 and 64 pixels (base) against 96 and 48
#           (GROUPED_TILE_PIXELS=96) and 112 and 56 (=112), boo only: tiles.csv;
#   list:   the public conv list against cuDNN (-V 1): conv-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh grouped-phases
J=bench/results/2026-12-01-grouped-phases
c512="$(head -1 "$J-jobs.txt" | cut -f2)"
for phase in "$@"; do
  case "$phase" in
  gate)
    NUMERICS_VENDORS=,cudnn numerics grouped-direct tests/gpu/conv_grouped_direct.txt
    NUMERICS_VENDORS=,cudnn numerics grouped tests/gpu/conv_grouped.txt
    ;;
  ab) timed ab "$J-jobs.txt" "base GROUPED_TMA_PHASES=0" boo 200 ;;
  vendor) VENDOR_LIMIT=90 vendor vendor "$J-jobs.txt" cudnn -V 1 ;;
  prof)
    source_profile c512 conv_grouped_tma "$c512"
    BOO_NVCC_FLAGS=-DBOO_GROUPED_TMA_PHASES=0 source_profile c512-whole conv_grouped_tma "$c512"
    ;;
  vecy) timed vecy bench/results/2026-12-01-taps-channels-vecy-jobs.txt "base TAPS_VECTOR_Y=1" boo 200 ;;
  tiles)
    timed tiles "$J-jobs.txt" "base GROUPED_TILE_PIXELS=96 GROUPED_TILE_PIXELS=112" boo 250
    ;;
  list)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
