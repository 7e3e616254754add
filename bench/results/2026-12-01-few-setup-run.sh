#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-few-setup-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-01-few-setup-run.sh PHASE...
#   gate: tests/gpu/conv_few_channels.txt with the direct kernel first (boo and cuDNN), and
#         with --misalign (few_gate): numerics-few.csv, numerics-few-misaligned.csv;
#   ab:   (call 1, with -table-ahead-experiments.diff applied: `git apply` it first) -jobs.txt
#         (C = 3 stems, the C = 4 UNet input, an element-staged C = 5 layer) with that tree
#         (base) against its filter set-up element by element (FEW_SETUP_VECTORS=0), each step
#         loading its own pair-table entry (FEW_TABLE_AHEAD=0), and both (the kernel before, but
#         for the first tile's boxes going out before the set-up), boo only, two rounds: ab.csv;
#   ab2:  (call 2, the landed tree, without FEW_TABLE_AHEAD) -jobs.txt with the landed kernel (base: one
#         vector of 8 loads at a time in the set-up) against 2 and 5 at a time
#         (FEW_SETUP_BATCH=2, =5) and the set-up element by element (FEW_SETUP_VECTORS=0), boo
#         only, two rounds: ab2.csv;
#   ab3:  (call 4) -jobs.txt with the landed kernel (base: few_squarer_tiles' tiles, 16 x 16 on
#         the 112 x 112 stems) against the widest tiles (FEW_SQUARER=0), boo only, two rounds:
#         ab3.csv;
#   prof: ncu --set full of the public stem's kernel (details; SASS source page summed by stall
#         reason; device_steps.sh's source_profile): prof-stem-*.
#   list: the public conv list against cuDNN (-V 1): conv-public.csv;
#   vendor: -jobs.txt's lines on dispatch's pick against cuDNN (-V 1): vendor.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh few-setup
J=bench/results/2026-12-01-few-setup
stem=$(grep -v '^#' bench/workloads/conv_public.txt | grep -- '-c 3 ' | head -1)
for phase in "$@"; do
  case "$phase" in
  gate) few_gate ;;
  ab) timed ab "$J-jobs.txt" \
    "base FEW_SETUP_VECTORS=0 FEW_TABLE_AHEAD=0 FEW_SETUP_VECTORS=0+FEW_TABLE_AHEAD=0" boo 300 ;;
  ab2) timed ab2 "$J-jobs.txt" "base FEW_SETUP_BATCH=2 FEW_SETUP_BATCH=5 FEW_SETUP_VECTORS=0" boo 300 ;;
  ab3) timed ab3 "$J-jobs.txt" "base FEW_SQUARER=0" boo 300 ;;
  prof) source_profile stem conv_few_channels "$stem" ;;
  list)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  vendor) VENDOR_LIMIT=150 vendor vendor "$J-jobs.txt" cudnn -V 1 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
