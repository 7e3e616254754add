#!/usr/bin/env python3
"""Sums an ncu source page (ncu --import R --page source --print-source sass --csv) by stall
reason: the whole kernel's samples by reason, then blocks of 50 SASS instructions, then the 30
instructions with the most samples, each with its reasons of 3% of its samples or more."""
import csv
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


rows = list(csv.reader(open(sys.argv[1], newline="")))
head = next(i for i, r in enumerate(rows) if r and "Source" in r)
cols, body = rows[head], [r for r in rows[head + 1:] if len(r) == len(rows[head])]
src = cols.index("Source")
samples = next(i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All"))
execd = next((i for i, c in enumerate(cols) if c == "Instructions Executed"), None)
# (each reason's "(Not Issued)" column counts the same samples again, less those that issued)
reasons = [i for i, c in enumerate(cols)
           if (c.startswith("stall_") or c.startswith("smsp__pcsamp")) and "Not Issued" not in c]
if not reasons:
    reasons = [i for i, c in enumerate(cols) if "Stall" in c and i != samples
               and "Not-issued" not in c and "Sampling" not in c]
name = lambda i: cols[i].replace("stall_", "")
total = sum(num(r[samples]) for r in body)
print(f"instructions {len(body)}, samples {total:.0f}")
by = sorted(((sum(num(r[i]) for r in body), i) for i in reasons), reverse=True)
print("reasons: " + ", ".join(f"{name(i)} {v / total * 100:.1f}%" for v, i in by if v >= 0.01 * total))
print("\nblocks of 50 instructions (samples, executed, reasons >= 5% of the block):")
for b in range(0, len(body), 50):
    part = body[b:b + 50]
    s = sum(num(r[samples]) for r in part)
    if s < 0.01 * total:
        continue
    e = sum(num(r[execd]) for r in part) if execd is not None else 0
    rs = sorted(((sum(num(r[i]) for r in part), i) for i in reasons), reverse=True)
    print(f"{b:5d}-{b + 49:5d} {s / total * 100:5.1f}% exec={e:11.0f} | " +
          " ".join(f"{name(i)}={v:.0f}" for v, i in rs if v >= 0.05 * s))
print("\ntop instructions:")
top = sorted(range(len(body)), key=lambda k: -num(body[k][samples]))[:30]
for k in sorted(top):
    r = body[k]
    s = num(r[samples])
    rs = sorted(((num(r[i]), i) for i in reasons), reverse=True)
    print(f"{k:5d} {s / total * 100:5.1f}% {r[src].strip()[:60]:60s} | " +
          " ".join(f"{name(i)}={v:.0f}" for v, i in rs if v >= 0.03 * max(s, 1)))
