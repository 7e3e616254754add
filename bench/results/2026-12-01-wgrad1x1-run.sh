#!/usr/bin/env bash
# Device script of the 1x1 backward weight check in bench/results/2026-12-01-depthwise-shared-h200.md
# (section 5; repository root, .deps/device carried):
#   bash bench/results/2026-12-01-wgrad1x1-run.sh
# The public n128 c128 24x48 k384 1x1 backward weight with dispatch's pick (conv.gemm_1x1) and
# with conv.split_wgrad forced (its warpgroup kernel), against cuDNN, two rounds: wgrad1x1.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad1x1
timed wgrad1x1 bench/results/2026-12-01-wgrad1x1-jobs.txt base boo,cudnn 200
