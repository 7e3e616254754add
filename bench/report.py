#!/usr/bin/env python3
"""Turns a boo results CSV (DESIGN.md section 7 columns) into the markdown table of
bench/results: per problem, each backend's median us, the floor, floor/time, and the speedup of
boo over the vendor; then the geometric means. Usage:

  bench/report.py RESULTS.csv --title "GEMM, public list" --command "boo driver ..." > RESULTS.md
"""
import argparse
import csv
import math
import re
import sys
from collections import OrderedDict


def short_problem(key):
    m = re.match(r"gemm_([a-z0-9]+)\.[a-z0-9]+\.[a-z0-9]+\.([a-z0-9]+)_\w+?_(..)_m(\d+)n(\d+)k(\d+)_b(\d+)", key)
    if m:
        epi = ""
        if "_bias." in key:
            epi = " +bias"
        act = key.rsplit(".", 1)[-1]
        if act != "none":
            epi += " +" + act
        batch = f", batch {m.group(7)}" if m.group(7) != "1" else ""
        return f"{m.group(4)} x {m.group(5)} x {m.group(6)}{batch} ({m.group(1)} {m.group(3)}{epi})"
    m = re.match(r"conv(\d)d_([a-z0-9]+)_(?:f32acc|tf32)_(\w+?)_(n\w+?)_(k\w+?)_s(\w+?)p(\w+?)d(\w+?)_g(\d+)_"
                 r"([a-z.]+)_(\w+)\.(\w+)$", key)
    if m:
        dims, dtype, direction, nchw, kyx, s, p, d, g, layouts, bias, act = m.groups()
        epi = (" +bias" if bias == "bias" else "") + (f" +{act}" if act != "none" else "")
        extra = "".join(f" {n}{v}" for n, v in (("s", s), ("p", p), ("d", d))
                        if set(v.replace("x", "")) != {"1" if n != "p" else "0"})
        grp = f" g{g}" if g != "1" else ""
        layout = layouts.split(".")[0]
        return f"{dims}D {dtype} {direction} {nchw} {kyx}{extra}{grp} {layout}{epi}"
    return key[:60]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--title", default="results")
    ap.add_argument("--command", default="")
    ap.add_argument("--vendor", default="cublaslt")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.csv)))
    if not rows:
        sys.exit("no rows")
    problems = OrderedDict()
    for r in rows:
        problems.setdefault(r["key"], {})[r["backend"]] = r
    device = rows[0]["device"]
    date = rows[0]["date"]
    print(f"# {args.title} ({date}, {device})\n")
    if args.command:
        print("Command:\n\n```\n" + args.command + "\n```\n")
    print("Median of the protocol's samples (DESIGN.md section 7); floor = max(FLOPs / peak, bytes /"
          " bandwidth, empty kernel) with ceilings measured in the same run; speedup = vendor / boo.\n")
    print(f"| problem | boo us | {args.vendor} us | speedup | floor us | boo floor/time |"
          f" {args.vendor} floor/time | boo error | boo config |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    speedups, boo_eff, ven_eff = [], [], []
    for key, by in problems.items():
        boo = by.get("boo")
        ven = by.get(args.vendor)
        if boo is None:
            continue
        b = float(boo["median_us"])
        f = float(boo["floor_us"])
        v = float(ven["median_us"]) if ven else float("nan")
        sp = v / b if ven else float("nan")
        if ven:
            speedups.append(sp)
            ven_eff.append(f / v)
        boo_eff.append(f / b)
        err = boo["rel_error"] or "-"
        if err != "-":
            err = f"{float(err):.1e}"
        config = re.sub(r"^.*?_t(\d)", r"t\1", boo["config"]) if "_t" in boo["config"] else boo["config"]
        print(f"| {short_problem(key)} | {b:.1f} | {v:.1f} | {sp:.3f} | {f:.1f} | {f / b:.0%} |"
              f" {f / v:.0%} | {err} | {boo['algorithm']} {config} |")

    def gmean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    print(f"\nGeometric means over {len(boo_eff)} problems: speedup {gmean(speedups):.3f}, boo floor/time "
          f"{gmean(boo_eff):.0%}, {args.vendor} floor/time {gmean(ven_eff):.0%}.")


if __name__ == "__main__":
    main()
