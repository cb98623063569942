"""Shared steps of the GPU probes (parity_probe.py, partial_line_probe.py):
interleaved timing rounds written as JSON Lines, a table of medians, and one
ncu process per case."""
import json
import os
import statistics
import subprocess
import time

import triton


def timing_rounds(launches, rows, rounds, path):
    """Time every launch with do_bench (median) in `rounds` interleaved rounds;
    write one line per launch and round (its row, the round, ms) to `path`.
    Returns {key: [ms per round]}."""
    times = {key: [] for key in launches}
    with open(path, "w") as f:
        for r in range(rounds):
            for key, launch in launches.items():
                ms = triton.testing.do_bench(launch, warmup=5, rep=25, return_mode="median")
                times[key].append(ms)
                f.write(json.dumps(dict(rows[key], round=r, ms=ms)) + "\n")
    return times


def print_medians(cases, variants, times, name):
    """A Markdown table of each case's median per variant, and its ratio to the case's best."""
    print("| case | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for case in cases:
        med = [statistics.median(times[(case, k)]) for k in variants]
        best = min(med)
        print(f"| {name(case)} | " + " | ".join(f"{t:.4f} ({t / best:.3f})" for t in med) + " |")


def ncu_each(runs, metrics, ncu_dir):
    """One ncu process per (file name, command): its --csv output to
    ncu_dir/<name>.csv, the tail of its stderr to <name>.err."""
    os.makedirs(ncu_dir, exist_ok=True)
    for name, argv in runs:
        cmd = ["ncu", "--csv", "--clock-control", "none", "--kernel-name", "regex:matmul", "--metrics",
               ",".join(metrics)] + argv
        t1 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        with open(os.path.join(ncu_dir, name + ".csv"), "w") as f:
            f.write(res.stdout)
        with open(os.path.join(ncu_dir, name + ".err"), "w") as f:
            f.write(res.stderr[-20000:])
        print(f"# ncu {name}: rc {res.returncode}, {time.perf_counter() - t1:.1f} s", flush=True)


def tutorial_variant(h, case, key, cfg=None):
    """One configuration of the tutorial kernel of triton_gemm_harness.py (module h)
    on one case: compiled, launched once on C filled with NaN, every element
    checked against the fp32 product. `cfg` is the configuration when the key
    alone does not say it (default: h.parse_config_key(key)). Returns (its
    row: registers, spills, shared memory, programs, rel_err, NaNs; a launch
    function)."""
    import torch

    a, b, c = h.case_tensors(case)
    cfg = cfg or h.parse_config_key(key)
    kernel = h.matmul_kernel.warmup(*h.kernel_args(a, b, c), grid=(1,), **h.meta_args(cfg))
    kernel._init_handles()
    grid = (triton.cdiv(case.M, cfg["BM"]) * triton.cdiv(case.N, cfg["BN"]),)

    def launch():
        h.matmul_kernel[grid](*h.kernel_args(a, b, c), **h.meta_args(cfg))

    c.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    rel, nans = h.rel_error(c, a.float() @ b.float())
    row = dict(case=case.name(), key=key, n_regs=int(kernel.n_regs), n_spills=int(kernel.n_spills),
               shared=int(kernel.metadata.shared), programs=grid[0], rel_err=rel, nans=nans)
    return row, launch


def tutorial_probe_main(doc, script, cases, variants, metrics, seed):
    """The command line of a probe of the tutorial kernel: --out DIR [--rounds N]
    [--ncu]. Compiles every (case class, variant), checks and times each in
    interleaved rounds (DIR/probe.jsonl, a table of medians), and with --ncu
    runs `script --one CASE` under ncu once per case (DIR/ncu/<case>.csv)."""
    import argparse
    import sys

    import torch
    import triton_gemm_harness as h

    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--one", help="(internal) launch each variant once on this case, for ncu")
    args = ap.parse_args()
    torch.manual_seed(seed)
    if args.one:
        case = h.parse_case(args.one)
        for key in variants:
            _, launch = tutorial_variant(h, case, key)
            launch()
            torch.cuda.synchronize()
        return
    os.makedirs(args.out, exist_ok=True)
    parsed = [h.parse_case(c) for c in cases]
    t0 = time.perf_counter()
    h.compile_all(sorted({c.klass() for c in parsed}), [h.parse_config_key(k) for k in variants], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    launches, rows = {}, {}
    for case in parsed:
        for key in variants:
            row, launch = tutorial_variant(h, case, key)
            launches[(case, key)] = launch
            rows[(case, key)] = row
            assert row["nans"] == 0 and row["rel_err"] < 1e-2, row
    times = timing_rounds(launches, rows, args.rounds, os.path.join(args.out, "probe.jsonl"))
    print(f"# timing {time.perf_counter() - t0:.1f} s", flush=True)
    print_medians(parsed, variants, times, lambda case: case.name())
    if args.ncu:
        me = [sys.executable, os.path.abspath(script), "--out", args.out, "--one"]
        ncu_each([(case.name().replace(":", "_"), me + [case.name()]) for case in parsed], metrics,
                 os.path.join(args.out, "ncu"))
