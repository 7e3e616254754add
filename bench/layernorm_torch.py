#!/usr/bin/env python3
"""Times PyTorch's layer norm (aten.native_layer_norm forward, aten.native_layer_norm_backward)
on MIOpen/BOO layernorm commands with the protocol of DESIGN.md section 7, and writes the CSV of
section 7 (backend `torch`) that bench/layernorm_table.py sets beside boo's.

  python3 bench/layernorm_torch.py --commands-file bench/workloads/layernorm_public.txt \\
      --csv torch-layernorm.csv
  python3 bench/layernorm_torch.py --self-test      # no GPU, no torch needed

Per sample, as boo's tune::time_interleaved: a GPU-side hold (torch.cuda._sleep, calibrated to
--hold-us), an L2 flush (a read sweep of max(2 x L2, 128 MiB): only clean lines stay in the L2),
start event, the op, end event. Ceilings of the same run: device-to-device copy bandwidth
(1 GiB, 2 GiB cross HBM) and an empty kernel (torch.cuda._sleep(0), one 1-thread kernel); each
the best of 30 samples, as boo's measure_ceilings. floor = max(flops / fp32 peak, bytes /
bandwidth, empty kernel), as boo's ops::floor_us (the datasheet fp32 peak: the term never wins).
"""
import argparse
import csv
import datetime
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_COMMANDS = os.path.join(HERE, "workloads", "layernorm_public.txt")
HEADER = ("command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,"
          "rel_error,passed,device,date").split(",") + ["graph_us", "bandwidth_gbs", "empty_us"]
OPS = {"layernorm": "fp32", "layernormfp32": "fp32", "layernormfp16": "fp16",
       "layernormbfp16": "bf16"}  # src/parse/miopen_layernorm.cc kOps
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}  # core::dtype_bytes
TOLERANCE = {"bf16": 1e-2, "fp16": 5e-3, "fp32": 1e-5}  # DESIGN.md section 8
FWD, DX, DW, DB = 1, 2, 4, 8  # ops::LayerNormPart, BOO's -F codes
FP32_TFLOPS = 66.9  # ops::Ceilings::tflops_fp32 (H100 SXM datasheet): a layer norm's peak
# name: (short flag, default): MIOpen's layernorm_driver.hpp defaults, as parse::layernorm_flags.
SPEC = {"input": ("-X", "100x3x32x32"), "normalized_dim": ("-o", "3"), "eps": ("-e", "0.00001"),
        "mode": ("-m", "0"), "forw": ("-F", "1")}
FLAGS = dict([(f, n) for n, (f, _) in SPEC.items()] + [("--" + n, n) for n in SPEC])
RUN_FLAGS = {"-t", "--time", "-i", "--iter", "-V", "--verify", "-w", "--wall"}
INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


class BadInput(Exception):
    pass


def format_double(v):
    """core::format_double: the shortest "%.{p}g" (p = 1..17) that reads back as v."""
    for p in range(1, 18):
        s = "%.*g" % (p, v)
        if float(s) == v:
            break
    return s


class Problem:
    """ops::LayerNormProblem: shape seen as rows x cols, cols = the dims from normalized_dim on."""

    def __init__(self, dtype, shape, normalized_dim, eps, affine, parts, command=""):
        self.dtype, self.shape, self.normalized_dim = dtype, list(shape), normalized_dim
        self.eps, self.affine, self.parts, self.command = eps, affine, parts, command

    forward = property(lambda self: bool(self.parts & FWD))
    rows = property(lambda self: math.prod(self.shape[:self.normalized_dim]))
    cols = property(lambda self: math.prod(self.shape[self.normalized_dim:]))

    def flops(self):
        # LayerNormProblem::flops(): forward 6 per element (+2 with affine); dx 9, dw 2, db 2.
        elems = float(self.rows * self.cols)
        if self.forward:
            return elems * (8.0 if self.affine else 6.0)
        per = (9.0 if self.parts & DX else 0) + (2.0 if self.parts & DW else 0)
        return elems * (per + (2.0 if self.parts & DB else 0))

    def min_bytes(self):
        # LayerNormProblem::min_bytes() in src/ops/layernorm_problem.cc, line for line.
        e = DTYPE_BYTES[self.dtype]
        elems, cols = self.rows * self.cols, self.cols
        stats = 2 * self.rows * 4  # fp32 mean and rstd
        if self.forward:
            return 2 * elems * e + stats + (2 * cols * e if self.affine else 0)
        b = elems * e  # dy is always read
        if self.parts & (DX | DW):
            b += elems * e + stats  # x and the stats
        if (self.parts & DX) and self.affine:
            b += cols * e  # weight
        if self.parts & DX:
            b += elems * e
        if self.parts & DW:
            b += cols * e
        if self.parts & DB:
            b += cols * e
        return b

    def key(self):
        # LayerNormProblem::key(): "layernorm_" dtype "_f32acc_x" shape "_norm" dim "_eps"
        # format_double(eps) "_affine_"|"_noaffine_" then "fwd" or "bwd" + ".dx" ".dweight" ".dbias".
        s = "layernorm_%s_f32acc_x%s_norm%d_eps%s_%s_" % (
            self.dtype, "x".join(map(str, self.shape)), self.normalized_dim,
            format_double(self.eps), "affine" if self.affine else "noaffine")
        if self.forward:
            return s + "fwd"
        return s + "bwd" + "".join(n for bit, n in ((DX, ".dx"), (DW, ".dweight"), (DB, ".dbias"))
                                   if self.parts & bit)


def parse_command(line, notes):
    """A MIOpen/BOO layernorm command -> Problem; the checks of parse_miopen_layernorm and
    LayerNormProblem::validate(), with messages naming the flag and value. Raises BadInput."""
    words = line.split()
    if not words or words[0] not in OPS:
        raise BadInput("%r: not a layer norm command (expected one of %s)"
                       % (words[0] if words else line, ", ".join(OPS)))
    given, i = {}, 1
    while i < len(words):
        w = words[i]
        has_value = i + 1 < len(words) and not re.match(r"-[^0-9.]", words[i + 1])
        if w in FLAGS:
            if not has_value:
                raise BadInput("%s: missing value" % w)
            name = FLAGS[w]
            if name in given and given[name][0] != words[i + 1]:
                raise BadInput("%s: given twice with different values (%r and %r)"
                               % (w, given[name][0], words[i + 1]))
            given[name] = (words[i + 1], w)
        elif w.startswith("-"):
            notes.append("%s: %s; ignored" % (w, "the protocol's --iter and --warmup of this "
                         "script apply" if w in RUN_FLAGS else "a flag this script does not use"))
        else:
            raise BadInput("unexpected word %r: expected a flag such as -X" % w)
        i += 2 if (w.startswith("-") and has_value) else 1

    def get(name):
        return given.get(name, SPEC[name][::-1])

    def get_int(name):
        v, f = get(name)
        if not INT_RE.fullmatch(v.strip()):
            raise BadInput("%s %s: expected an integer" % (f, v))
        return int(v)

    text, xf = get("input")
    dims = text.split("x")
    if "," in text or not all(INT_RE.fullmatch(d) for d in dims):
        raise BadInput("%s %s: not a shape (expected dims like 8192x4096)" % (xf, text))
    shape = [int(d) for d in dims]
    if len(shape) > 8:
        raise BadInput("%s %s: at most 8 dims are supported" % (xf, text))
    if any(d < 1 for d in shape):
        raise BadInput("%s %s: every dim must be >= 1" % (xf, text))
    nd = get_int("normalized_dim")
    if not 0 <= nd < len(shape):
        raise BadInput("%s %d: the first normalized dim must be in [0, %d] for %s %s"
                       % (get("normalized_dim")[1], nd, len(shape) - 1, xf, text))
    ev, ef = get("eps")
    if not FLOAT_RE.fullmatch(ev.strip()) or not math.isfinite(float(ev)) or float(ev) < 0:
        raise BadInput("%s %s: epsilon must be a finite number >= 0" % (ef, ev))
    mode = get_int("mode")
    if mode not in (0, 1):
        raise BadInput("%s %d: expected 0 (no weight and bias) or 1 (weight and bias)"
                       % (get("mode")[1], mode))
    forw = get_int("forw")
    ff = get("forw")[1]
    if forw < 1 or forw > 14 or (forw != 1 and forw & 1):
        raise BadInput("%s %d: expected 1 (forward) or a sum of 2 (dx), 4 (dweight), 8 (dbias)"
                       % (ff, forw))
    if mode == 0 and forw & (DW | DB):
        raise BadInput("%s %d: dweight (4) and dbias (8) need weight and bias (-m 1)" % (ff, forw))
    p = Problem(OPS[words[0]], shape, nd, float(ev), mode == 1, forw, " ".join(words))
    if math.prod(shape) * (4 * DTYPE_BYTES[p.dtype] + 8) >= 2 ** 63:
        raise BadInput("%s %s: element count (or the operands' bytes) overflows 64 bits"
                       % (xf, text))
    return p


def read_commands(path, report=True):
    """(line number, Problem) per command; '#' comments and blank lines skipped."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror))
    out, seen = [], {}  # each note once: the public list repeats -t 1 --iter 100 on every line
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        notes = []
        try:
            out.append((n, parse_command(line.strip(), notes)))
        except BadInput as e:
            raise BadInput("%s:%d: %s" % (path, n, e))
        for note in notes:
            seen.setdefault(note, (n, []))[1].append(n)
    for note, (n, where) in seen.items() if report else ():
        more = " (lines %s)" % ", ".join(map(str, where)) if len(where) > 1 else ""
        print("%s:%d: note: %s%s" % (path, n, note, more), file=sys.stderr)
    return out


# ---------------------------------------------------------------------------------- GPU part
class Bench:
    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 0) or (50 << 20)
        self.flush_buf = torch.ones(max(2 * l2, 128 << 20) // 4, dtype=torch.float32, device="cuda")
        torch.cuda._sleep(1000)  # load the spin kernel before calibrating it
        us = statistics.median(self.time_once(lambda: torch.cuda._sleep(1_000_000))
                               for _ in range(5))
        self.cycles_per_us = 1_000_000 / us
        self.hold_cycles = int(args.hold_us * self.cycles_per_us)

    def time_once(self, fn):
        s, e = (self.torch.cuda.Event(enable_timing=True) for _ in range(2))
        s.record()
        fn()
        e.record()
        e.synchronize()
        return s.elapsed_time(e) * 1000.0

    def flush(self):  # a read sweep leaves only clean lines in the L2; a fill, dirty ones
        self.flush_buf.fill_(1.0) if self.args.flush == "write" else self.flush_buf.sum()

    def samples(self, fn, n, cold=True):
        """Per sample: hold, flush, start, fn, end (tune::time_interleaved's order)."""
        t, out = self.torch, []
        for _ in range(self.args.warmup):
            fn()
        for _ in range(n):
            if self.hold_cycles > 0:
                t.cuda._sleep(self.hold_cycles)  # the host enqueues the rest meanwhile
            if cold:
                self.flush()
            out.append(self.time_once(fn))
        return out

    def graph_us(self, fn, per_graph=20, replays=10):
        """tune::time_in_graph: `per_graph` launches in one CUDA graph, warm L2, the median of
        the replays (2 discarded) per launch."""
        t = self.torch
        side = t.cuda.Stream()
        side.wait_stream(t.cuda.current_stream())
        with t.cuda.stream(side):
            for _ in range(3):
                fn()
        t.cuda.current_stream().wait_stream(side)
        g = t.cuda.CUDAGraph()
        with t.cuda.graph(g):
            for _ in range(per_graph):
                fn()
        per = [self.time_once(g.replay) / per_graph for _ in range(replays + 2)][2:]
        del g
        return statistics.median(per)

    def ceilings(self):
        t = self.torch
        empty = min(self.samples(lambda: t.cuda._sleep(0), 30, cold=False))
        src = t.ones(1 << 30, dtype=t.uint8, device="cuda")
        dst = t.empty_like(src)
        copy = self.samples(lambda: dst.copy_(src), 30, cold=False)
        del src, dst
        t.cuda.empty_cache()
        return 2.0 * (1 << 30) / (min(copy) * 1e-6) / 1e9, empty, statistics.median(copy)


def rel_fro(torch, got, ref):
    """reference::ErrorStats::rel_fro: ||got - ref||_F / ||ref||_F (inf if any value is not
    finite)."""
    g = got.double()
    if not bool(torch.isfinite(g).all()):
        return math.inf
    diff, norm = float((g - ref).norm()), float(ref.norm())
    return diff / norm if norm > 0 else diff


def run_problem(torch, bench, p, ceilings):
    args, aten = bench.args, torch.ops.aten
    dt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[p.dtype]
    shape, norm_shape = p.shape, p.shape[p.normalized_dim:]
    dims = list(range(p.normalized_dim, len(shape)))
    rnd = lambda s: torch.empty(s, dtype=dt, device="cuda").uniform_(-1.0, 1.0)  # noqa: E731
    x = rnd(shape)
    w, b = (rnd(norm_shape), rnd(norm_shape)) if p.affine else (None, None)
    # fp64 reference on the same (rounded) inputs, with its own fp64 statistics.
    x64 = x.double()
    mean64 = x64.mean(dim=dims, keepdim=True)
    rstd64 = ((x64 - mean64).pow(2).mean(dim=dims, keepdim=True) + p.eps).rsqrt()
    xhat = (x64 - mean64) * rstd64
    if p.forward:
        fn = lambda: aten.native_layer_norm(x, norm_shape, w, b, p.eps)  # noqa: E731
        y, mean, rstd = fn()
        y64 = xhat * w.double() + b.double() if p.affine else xhat
        err = max(rel_fro(torch, y, y64), rel_fro(torch, mean.reshape(-1), mean64.reshape(-1)),
                  rel_fro(torch, rstd.reshape(-1), rstd64.reshape(-1)))
        algorithm = "aten.native_layer_norm"
    else:
        dy = rnd(shape)
        _, mean, rstd = aten.native_layer_norm(x, norm_shape, w, b, p.eps)
        mask = [bool(p.parts & DX), bool(p.parts & DW), bool(p.parts & DB)]
        fn = lambda: aten.native_layer_norm_backward(  # noqa: E731
            dy, x, norm_shape, mean, rstd, w, b, mask)
        outs = fn()
        dy64 = dy.double()
        rows = list(range(p.normalized_dim))
        g = dy64 * w.double() if p.affine else dy64
        dx64 = rstd64 * (g - g.mean(dim=dims, keepdim=True)
                         - xhat * (g * xhat).mean(dim=dims, keepdim=True))
        refs = [dx64, (dy64 * xhat).sum(dim=rows) if rows else dy64 * xhat,
                dy64.sum(dim=rows) if rows else dy64]
        err = max(rel_fro(torch, o, r) for o, r, m in zip(outs, refs, mask) if m)
        del dy64, g, dx64, refs, outs
        algorithm = "aten.native_layer_norm_backward"
    del x64, mean64, rstd64, xhat
    times = sorted(bench.samples(fn, args.iter))
    med = statistics.median(times)
    graph = bench.graph_us(fn) if med < args.graph_below_us else None
    bw, empty = ceilings
    floor = max(p.flops() / (FP32_TFLOPS * 1e12) * 1e6, p.min_bytes() / (bw * 1e9) * 1e6, empty)
    passed = err <= TOLERANCE[p.dtype]
    return {"command": p.command, "key": p.key(), "backend": "torch", "algorithm": algorithm,
            "config": torch.__version__, "median_us": "%.6g" % med, "min_us": "%.6g" % times[0],
            "max_us": "%.6g" % times[-1], "floor_us": "%.6g" % floor, "flops": "%.6g" % p.flops(),
            "bytes": "%.6g" % p.min_bytes(), "rel_error": "%.6g" % err,
            "passed": "true" if passed else "false", "device": torch.cuda.get_device_name(0),
            "date": datetime.date.today().isoformat(),
            "graph_us": "" if graph is None else "%.6g" % graph,
            "bandwidth_gbs": "%.6g" % bw, "empty_us": "%.6g" % empty}


def run(args):
    problems = read_commands(args.commands_file)
    try:
        import torch
    except ImportError:
        raise BadInput("PyTorch is not importable here (python3 -c 'import torch')")
    if not torch.cuda.is_available():
        raise BadInput("torch.cuda.is_available() is false: no GPU to time on")
    torch.manual_seed(args.seed)
    bench = Bench(torch, args)
    bw, empty, copy_median = bench.ceilings()
    print("torch %s on %s; ceilings (best of 30): copy %.0f GB/s (1 GiB device-to-device, median "
          "%.1f us), empty kernel %.2f us; hold %.0f us = %d cycles; L2 flush: %s of %d MiB"
          % (torch.__version__, torch.cuda.get_device_name(0), bw, copy_median, empty,
             args.hold_us, bench.hold_cycles, args.flush,
             bench.flush_buf.numel() * 4 >> 20))
    try:
        out = open(args.csv, "w", newline="") if args.csv else None
    except OSError as e:
        raise BadInput("--csv %s: %s" % (args.csv, e.strerror))
    writer = csv.DictWriter(out, HEADER) if out else None
    if writer:
        writer.writeheader()
    failed = 0
    for n, p in problems:
        try:
            row = run_problem(torch, bench, p, (bw, empty))
        except torch.cuda.OutOfMemoryError as e:
            print("%s:%d: %s: out of GPU memory: %s" % (args.commands_file, n, p.command,
                                                       str(e).splitlines()[0]), file=sys.stderr)
            failed += 1
            torch.cuda.empty_cache()
            continue
        med, floor = float(row["median_us"]), float(row["floor_us"])
        graph = ", graph %s us" % row["graph_us"] if row["graph_us"] else ""
        print("%s\n  %s: median %.2f us (min %s, max %s), floor %.2f us, %.0f%% of floor%s, "
              "error %s (%s)" % (p.command, p.key(), med, row["min_us"], row["max_us"], floor,
                                 100 * floor / med, graph, row["rel_error"],
                                 "pass" if row["passed"] == "true" else "FAIL"))
        failed += row["passed"] != "true"
        if writer:
            writer.writerow(row)
            out.flush()
        torch.cuda.empty_cache()
    if out:
        out.close()
    return 1 if failed else 0


def self_test():
    """GPU-free checks of the parser, key() and min_bytes() against values worked out by hand
    from src/ops/layernorm_problem.cc (the keys also appear in boo's numerics CSV,
    bench/results/2026-11-22-workload-numerics-layernorm_public-h100.csv)."""
    fails = []

    def check(what, got, want):
        if got != want:
            fails.append("%s: got %r, want %r" % (what, got, want))

    problems = read_commands(DEFAULT_COMMANDS, report=False)
    check("problems in layernorm_public.txt", len(problems), 8)
    known = {
        # bf16 (2 bytes), rows 8192, cols 4096, elems 33554432, stats 2*8192*4 = 65536:
        # forward 2*elems*2 + stats + 2*4096*2 = 134217728 + 65536 + 16384.
        "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 1":
            ("layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_fwd", 134299648, 8 * 33554432),
        # backward 14: dy, x + stats, weight (dx with affine), dx, dweight, dbias:
        # 3*67108864 + 65536 + 3*8192; flops (9+2+2) per element.
        "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 14":
            ("layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_bwd.dx.dweight.dbias",
             201416704, 13 * 33554432),
        # fp32, rows 10*32*42 = 13440, cols 32, elems 430080: 2*430080*4 + 2*13440*4.
        "layernorm -X 10x32x42x32 -o 3 -e 1e-5 -m 0 -F 1":
            ("layernorm_fp32_f32acc_x10x32x42x32_norm3_eps1e-05_noaffine_fwd", 3548160, 6 * 430080),
        # eps 1e-6 prints as "%.1g" -> 1e-06; no affine: 2*33554432*2 + 2*4096*4.
        "layernormbfp16 -X 4096x8192 -o 1 -e 1e-6 -m 0 -F 1":
            ("layernorm_bf16_f32acc_x4096x8192_norm1_eps1e-06_noaffine_fwd", 134250496,
             6 * 33554432),
        # dx only, no affine: dy + x + stats + dx = 3*16*2 + 2*4*4; flops 9 per element.
        "layernormfp16 -X 4x2x2 -o 1 -e 0.001 -m 0 -F 2 -t 1 --iter 5 -V 0":
            ("layernorm_fp16_f32acc_x4x2x2_norm1_eps0.001_noaffine_bwd.dx", 128, 9 * 16),
        # dbias only: dy + dbias = 6*4*4 + 4*4 (no x, no stats).
        "layernorm -X 6x4 -o 1 -m 1 -F 8 -e 2.5e-7":
            ("layernorm_fp32_f32acc_x6x4_norm1_eps2.5e-07_affine_bwd.dbias", 112, 2 * 24),
    }
    public = {p.command: p for _, p in problems}
    for cmd, (key, nbytes, flops) in known.items():
        p = public.get(cmd) or parse_command(cmd, [])
        check(cmd + " key", p.key(), key)
        check(cmd + " min_bytes", p.min_bytes(), nbytes)
        check(cmd + " flops", p.flops(), float(flops))
    check("defaults", parse_command("layernorm", []).key(),
          "layernorm_fp32_f32acc_x100x3x32x32_norm3_eps1e-05_noaffine_fwd")
    notes = []
    parse_command("layernorm -X 2x3 -o 1 -q 7 -z", notes)
    check("notes on unknown flags", len(notes), 2)
    bad = {"layernorm -X 8192xabc": "-X 8192xabc: not a shape",
           "layernorm -X 8x0 -o 1": "every dim must be >= 1",
           "layernorm -X 8x4 -o 2": "-o 2: the first normalized dim must be in [0, 1]",
           "layernorm -X 8x4 -o 1 -F 3": "-F 3: expected 1 (forward)",
           "layernorm -X 8x4 -o 1 -F 14": "-F 14: dweight (4) and dbias (8) need",
           "layernorm -X 8x4 -o 1 -e nan": "-e nan: epsilon",
           "layernorm -X 8x4 -o 1 -m 2": "-m 2: expected 0",
           "layernorm -X 8x4 -o x": "-o x: expected an integer",
           "layernorm -X 8x4 -o 1 -o 0": "-o: given twice",
           "layernorm -X": "-X: missing value",
           "convbfp16 -n 1": "not a layer norm command"}
    for cmd, want in bad.items():
        try:
            check(cmd + ": accepted, want an error with", parse_command(cmd, []).key(), want)
        except BadInput as e:
            check(cmd + ": error", want if want in str(e) else str(e), want)
    print("".join("FAIL %s\n" % f for f in fails) + "layernorm_torch self-test: " +
          ("%d checks failed" % len(fails) if fails else "ok (%d commands)" % len(problems)))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commands-file", default=DEFAULT_COMMANDS)
    ap.add_argument("--csv", help="write the DESIGN.md section 7 CSV here")
    ap.add_argument("--iter", type=int, default=100, help="timed samples (>= 50)")
    ap.add_argument("--warmup", type=int, default=10, help="warm-up launches (>= 10)")
    ap.add_argument("--hold-us", type=float, default=1000.0,
                    help="GPU-side hold before each sample (0 disables)")
    ap.add_argument("--flush", choices=("read", "write"), default="read",
                    help="L2 flush: read sweep (boo's default) or fill")
    ap.add_argument("--graph-below-us", type=float, default=20.0,
                    help="also time under a CUDA graph when the median is below this")
    ap.add_argument("--seed", type=int, default=1, help="torch.manual_seed for the inputs")
    ap.add_argument("--self-test", action="store_true", help="GPU-free checks, then exit")
    args = ap.parse_args()
    try:
        if args.self_test:
            return self_test()
        if args.iter < 50:
            raise BadInput("--iter %d: must be >= 50 (DESIGN.md section 7)" % args.iter)
        if args.warmup < 10:
            raise BadInput("--warmup %d: must be >= 10 (DESIGN.md section 7)" % args.warmup)
        if not (args.hold_us >= 0 and math.isfinite(args.hold_us)):
            raise BadInput("--hold-us %g: must be >= 0" % args.hold_us)
        return run(args)
    except BadInput as e:
        print("layernorm_torch: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
