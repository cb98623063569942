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
        cmd = ["ncu", "--csv", "--kernel-name", "regex:matmul", "--metrics", ",".join(metrics)] + argv
        t1 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        with open(os.path.join(ncu_dir, name + ".csv"), "w") as f:
            f.write(res.stdout)
        with open(os.path.join(ncu_dir, name + ".err"), "w") as f:
            f.write(res.stderr[-20000:])
        print(f"# ncu {name}: rc {res.returncode}, {time.perf_counter() - t1:.1f} s", flush=True)
