#!/usr/bin/env python3
"""Sets boo's layer norm results beside PyTorch's and checks issue 7's targets: a markdown table
per direction (boo us, torch us, speedup = torch / boo, floor/time of each, errors), then the
geometric means and, per target, "met" or "missed (why)". Standard library only.

  python3 bench/layernorm_table.py --boo boo-layernorm.csv --torch torch-layernorm.csv \\
      --md bench/results/YYYY-MM-DD-layernorm-h100.md
  python3 bench/layernorm_table.py --self-test

Inputs: CSVs of DESIGN.md section 7, boo's from `boo driver --backend boo --csv` (rows with
backend `boo`), PyTorch's from bench/layernorm_torch.py (backend `torch`), matched by key. Each
backend's floor/time uses the floor_us column of its own CSV (ceilings of its own run).
"""
import argparse
import csv
import math
import os
import re
import sys
import tempfile

NEEDED = ("command", "key", "backend", "median_us", "floor_us", "bytes", "rel_error", "passed",
          "device", "date")
KEY_RE = re.compile(r"layernorm_(fp32|fp16|bf16)_f32acc_x([0-9x]+)_norm(\d+)_eps(\S+?)_"
                    r"(affine|noaffine)_(fwd|bwd((?:\.dx)?(?:\.dweight)?(?:\.dbias)?))$")
OPS = {"fp32": "layernorm", "fp16": "layernormfp16", "bf16": "layernormbfp16"}
PARTS = {".dx": 2, ".dweight": 4, ".dbias": 8}


class BadInput(Exception):
    pass


def read_rows(path, backend):
    """{key: row} of the rows of `backend` in a section 7 CSV."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in NEEDED if c not in (reader.fieldnames or [])]
            if missing:
                raise BadInput("%s: not a DESIGN.md section 7 CSV (missing column%s %s)"
                               % (path, "s" if len(missing) > 1 else "", ", ".join(missing)))
            rows = {}
            for n, r in enumerate(reader, 2):
                if r["backend"] != backend:
                    continue
                if r["key"] in rows:
                    print("%s:%d: note: a second %s row for %s; the first is used"
                          % (path, n, backend, r["key"]), file=sys.stderr)
                    continue
                for c in ("median_us", "floor_us"):  # as numbers in "_median_us", "_floor_us"
                    try:
                        r["_" + c] = float(r[c])
                    except ValueError:
                        raise BadInput("%s:%d: %s %r: not a number" % (path, n, c, r[c]))
                    if not r["_" + c] > 0:
                        raise BadInput("%s:%d: %s %r: must be > 0" % (path, n, c, r[c]))
                rows[r["key"]] = r
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror))
    if not rows:
        raise BadInput("%s: no rows with backend %r" % (path, backend))
    return rows


def write_merged(path, boo, torch):
    """One section 7 CSV of both: the torch CSV's columns (the 15 of section 7 and its extras),
    boo's rows, then torch's."""
    fields = [c for c in next(iter(torch.values())) if not c.startswith("_") and c is not None]
    try:
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fields, restval="", extrasaction="ignore")
            w.writeheader()
            w.writerows(list(boo.values()) + list(torch.values()))
    except OSError as e:
        raise BadInput("--csv %s: %s" % (path, e.strerror))


def short_command(key, fallback):
    """The canonical command (LayerNormProblem::to_command()) spelled back from the key."""
    m = KEY_RE.match(key)
    if not m:
        return fallback[:70]
    dtype, shape, dim, eps, affine, direction, parts = m.groups()
    forw = 1 if direction == "fwd" else sum(v for k, v in PARTS.items() if k in parts)
    return "%s -X %s -o %s -e %s -m %d -F %d" % (OPS[dtype], shape, dim, eps,
                                                 affine == "affine", forw)


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fmt_us(v):
    return "-" if v is None else ("%.1f" % v if v >= 10 else "%.2f" % v)


def fmt_err(r):
    if r is None or r["rel_error"] in ("", None):
        return "-"
    mark = "" if r["passed"] in ("true", "") else " FAIL"
    return "%.1e%s" % (float(r["rel_error"]), mark)


def build(boo, torch, floor_target=0.85, speedup_target=1.3, title="Layer norm"):
    """The markdown text."""
    out = []
    first = next(iter(boo.values()))
    t0 = next(iter(torch.values()))
    out.append("# %s: boo vs PyTorch (%s, %s)\n" % (title, first["date"], first["device"]))
    boo_bw = max(float(r["bytes"]) / (r["_floor_us"] * 1e3) for r in boo.values())
    ceil = ""
    if t0.get("bandwidth_gbs"):
        ceil = ": copy %.0f GB/s, empty kernel %.2f us" % (float(t0["bandwidth_gbs"]),
                                                           float(t0.get("empty_us") or 0))
    out.append("Median us of the protocol's samples (DESIGN.md section 7); speedup = torch / boo. "
               "boo floor/time uses floor_us of the boo CSV (ceilings of boo's run; its floors "
               "imply a copy bandwidth of %.0f GB/s); torch floor/time uses floor_us of the "
               "torch CSV (ceilings of bench/layernorm_torch.py's run%s). PyTorch %s: "
               "aten.native_layer_norm, aten.native_layer_norm_backward.\n"
               % (boo_bw, ceil, t0.get("config", "")))
    keys = list(boo) + [k for k in torch if k not in boo]
    targets = []
    all_speedups, incomplete_all = [], []
    for name, is_fwd in (("Forward", True), ("Backward", False)):
        ks = [k for k in keys if ("_fwd" in k) == is_fwd]
        if not ks:
            continue
        out.append("## %s\n" % name)
        out.append("| command | boo us | torch us | speedup | boo floor/time | torch floor/time |"
                   " floor us (boo / torch) | boo error | torch error |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        boo_eff, torch_eff, speedups, incomplete, failed = [], [], [], [], []
        for k in ks:
            b, t = boo.get(k), torch.get(k)
            cmd = short_command(k, (b or t)["command"])
            sp = t["_median_us"] / b["_median_us"] if b and t else None
            be = b["_floor_us"] / b["_median_us"] if b else None
            te = t["_floor_us"] / t["_median_us"] if t else None
            if be is not None:
                boo_eff.append(be)
                if b["passed"] == "false":
                    failed.append(cmd)
            if te is not None:
                torch_eff.append(te)
            if sp is not None:
                speedups.append((sp, cmd))
            else:
                incomplete.append("%s has no %s row" % (cmd, "boo" if not b else "torch"))
            out.append("| %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |" % (
                cmd, fmt_us(b and b["_median_us"]), fmt_us(t and t["_median_us"]),
                "-" if sp is None else "%.2fx" % sp, "-" if be is None else "%.0f%%" % (100 * be),
                "-" if te is None else "%.0f%%" % (100 * te), fmt_us(b and b["_floor_us"]),
                fmt_us(t and t["_floor_us"]), fmt_err(b), fmt_err(t)))
        g_boo = gmean(boo_eff)
        out.append("")
        low = min(speedups) if speedups else None
        counts = "" if len(boo_eff) == len(torch_eff) else " (boo over %d, torch over %d)" % (
            len(boo_eff), len(torch_eff))
        out.append("%s, %d problems: geometric mean floor/time boo %.1f%%, torch %.1f%%%s; "
                   "speedup geometric mean %s, lowest %s.\n" % (
                       name, len(ks), 100 * g_boo, 100 * gmean(torch_eff), counts,
                       "%.2fx" % gmean([s for s, _ in speedups]) if speedups else "-",
                       "%.2fx (%s)" % low if low else "-"))
        why = []
        if not boo_eff:
            why.append("no boo rows")
        elif g_boo < floor_target:
            why.append("%.1f%% < %.0f%%" % (100 * g_boo, 100 * floor_target))
        missing_boo = [s for s in incomplete if s.endswith("no boo row")]
        if missing_boo:
            why.append("%d problem%s without a boo row" % (len(missing_boo),
                                                           "s" if len(missing_boo) > 1 else ""))
        if failed:
            why.append("boo failed the numerics gate on %d" % len(failed))
        verdict = "missed (%s)" % "; ".join(why) if why else "met (%.1f%%)" % (100 * g_boo)
        targets.append("- %s at >= %.0f%% of the memory floor (geometric mean of boo floor/time): "
                       "%s" % (name.lower(), 100 * floor_target, verdict))
        all_speedups += speedups
        incomplete_all += incomplete
    slow = [(s, c) for s, c in all_speedups if s < speedup_target]
    why = []
    if slow:
        why.append("%d of %d below %.1fx; lowest %.2fx on %s"
                   % (len(slow), len(all_speedups), speedup_target, *min(slow)))
    if incomplete_all:
        why.append("not compared: " + ", ".join(incomplete_all))
    if not all_speedups:
        why.append("no problem has both rows")
    verdict = ("missed (%s)" % "; ".join(why) if why
               else "met (lowest %.2fx on %s)" % min(all_speedups))
    targets.append("- >= %.1fx PyTorch on every case: %s" % (speedup_target, verdict))
    out.append("## Targets (issue 7)\n")
    out += targets
    return "\n".join(out) + "\n"


def self_test():
    fails = []
    header = ("command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,"
              "rel_error,passed,device,date")
    k_fa = "layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_fwd"
    k_fb = "layernorm_fp32_f32acc_x10x32x42x32_norm3_eps1e-05_noaffine_fwd"
    k_fc = "layernorm_bf16_f32acc_x4096x8192_norm1_eps1e-06_noaffine_fwd"  # torch only
    k_ba = "layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_bwd.dx.dweight.dbias"
    k_bb = "layernorm_fp16_f32acc_x64x256_norm1_eps1e-05_affine_bwd.dx"

    def row(key, backend, med, floor, err="0.002", passed="true"):
        return '"cmd %s",%s,%s,alg,cfg,%s,%s,%s,%s,1,%d,%s,%s,H100,2026-11-23' % (
            key, key, backend, med, med, med, floor, floor * 3000e3, err, passed)

    boo_csv = [header, row(k_fa, "boo", 50, 45), row(k_fa, "reference", 9000, 45, "", ""),
               row(k_fb, "boo", 10, 8), row(k_ba, "boo", 100, 90), row(k_bb, "boo", 20, 18)]
    torch_csv = [header + ",graph_us,bandwidth_gbs,empty_us",
                 row(k_fa, "torch", 80, 44) + ",,3000,2.1", row(k_fb, "torch", 14, 8) + ",9,3000,2.1",
                 row(k_fc, "torch", 60, 45) + ",,3000,2.1", row(k_ba, "torch", 120, 90) + ",,3000,2.1",
                 row(k_bb, "torch", 40, 18, "0.2", "false") + ",,3000,2.1"]
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, lines in (("boo.csv", boo_csv), ("torch.csv", torch_csv),
                            ("bad.csv", ["command,key\nx,y"])):
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                f.write("\n".join(lines) + "\n")
        text = build(read_rows(paths[0], "boo"), read_rows(paths[1], "torch"))
        write_merged(os.path.join(d, "both.csv"), read_rows(paths[0], "boo"),
                     read_rows(paths[1], "torch"))
        both = list(csv.DictReader(open(os.path.join(d, "both.csv"))))
        if [(r["backend"], r["graph_us"]) for r in both][3:6] != [("boo", ""), ("torch", ""),
                                                                  ("torch", "9")]:
            fails.append("merged CSV: unexpected rows %r" % both)
        text2 = build(read_rows(os.path.join(d, "both.csv"), "boo"),
                      read_rows(os.path.join(d, "both.csv"), "torch"))
        if text2 != text:
            fails.append("the merged CSV does not give the same table")
        try:
            read_rows(paths[2], "boo")
            fails.append("bad.csv accepted")
        except BadInput as e:
            if "missing columns backend, median_us" not in str(e):
                fails.append("bad.csv: unexpected error %r" % str(e))
    want = [
        "| layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 1 | 50.0 | 80.0 | 1.60x | 90% | 55% |"
        " 45.0 / 44.0 | 2.0e-03 | 2.0e-03 |",
        "| layernormbfp16 -X 4096x8192 -o 1 -e 1e-06 -m 0 -F 1 | - | 60.0 | - | - | 75% |",
        "| layernormfp16 -X 64x256 -o 1 -e 1e-05 -m 1 -F 2 | 20.0 | 40.0 | 2.00x | 90% | 45% |"
        " 18.0 / 18.0 | 2.0e-03 | 2.0e-01 FAIL |",
        "Forward, 3 problems: geometric mean floor/time boo 84.9%, torch 61.8% (boo over 2, "
        "torch over 3); "
        "speedup geometric mean 1.50x, lowest 1.40x (layernorm -X 10x32x42x32 -o 3 -e 1e-05 -m 0 -F 1).",
        "- forward at >= 85% of the memory floor (geometric mean of boo floor/time): missed "
        "(84.9% < 85%; 1 problem without a boo row)",
        "- backward at >= 85% of the memory floor (geometric mean of boo floor/time): met (90.0%)",
        "- >= 1.3x PyTorch on every case: missed (1 of 4 below 1.3x; lowest 1.20x on "
        "layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 14; not compared: layernormbfp16 "
        "-X 4096x8192 -o 1 -e 1e-06 -m 0 -F 1 has no boo row)",
        "copy bandwidth of 3000 GB/s", "run: copy 3000 GB/s, empty kernel 2.10 us)", "PyTorch cfg:",
    ]
    for w in want:
        if w not in text:
            fails.append("missing from the table: %r" % w)
    if "9000" in text:
        fails.append("the boo CSV's reference row leaked into the table")
    for f in fails:
        print("FAIL " + f)
    if fails:
        print(text)
    print("layernorm_table self-test: %s" % ("%d checks failed" % len(fails) if fails else "ok"))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boo", help="boo's CSV (boo driver --backend boo --csv)")
    ap.add_argument("--torch", help="PyTorch's CSV (bench/layernorm_torch.py --csv)")
    ap.add_argument("--md", help="write the markdown here (default: stdout)")
    ap.add_argument("--csv", help="also write one CSV of both (boo's rows, then torch's) here")
    ap.add_argument("--title", default="Layer norm, public list")
    ap.add_argument("--floor-target", type=float, default=0.85)
    ap.add_argument("--speedup-target", type=float, default=1.3)
    ap.add_argument("--self-test", action="store_true", help="GPU-free checks, then exit")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    try:
        if not args.boo or not args.torch:
            raise BadInput("--boo and --torch are both needed (or --self-test)")
        text = build(read_rows(args.boo, "boo"), read_rows(args.torch, "torch"),
                     args.floor_target, args.speedup_target, args.title)
        if args.csv:
            write_merged(args.csv, read_rows(args.boo, "boo"), read_rows(args.torch, "torch"))
        if args.md:
            try:
                with open(args.md, "w") as f:
                    f.write(text)
            except OSError as e:
                raise BadInput("--md %s: %s" % (args.md, e.strerror))
        else:
            sys.stdout.write(text)
    except BadInput as e:
        print("layernorm_table: error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
