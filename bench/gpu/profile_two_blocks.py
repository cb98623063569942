#!/usr/bin/env python3
"""Why do some B-narrow Triton GEMM kernels run 1.8-2x slow at two blocks per SM?

docs/model.md §6 ("Two 255-register blocks with B through registers"): with
A and B row-major and N not a multiple of 16 (B loaded with 2-byte loads
through registers), 128x64x128 with 4 warps runs 1.8-2.0x the time the model
gives it, relative to the other tiles, with 2 or 3 stages (two blocks per SM)
and as predicted with 4 or 5 (one block), on every measured shape; 64x64x128
with 4 warps does the same from 3 stages on. The compiled resources
(registers, spills, shared memory) do not separate the slow variants.

This script compiles those variants (and neighbours) of the tutorial kernel
of bench/gpu/triton_gemm_harness.py for a few cases, records the compiler's
resources, the driver's occupancy and counts of SASS instructions (global
loads by width, shared loads and stores, barriers, local memory, wgmma), checks
every output against torch.matmul, and times each with do_bench (median).
With --ncu it then profiles one launch of each variant on the first case with
Nsight Compute (sections SpeedOfLight, Occupancy, WarpStateStats,
MemoryWorkloadAnalysis), one ncu process per variant.

    python3 bench/gpu/profile_two_blocks.py --out DIR [--ncu] [--cases C,...] [--variants V,...] [--ncu-variants V,...]
    python3 bench/gpu/profile_two_blocks.py --out DIR --carveout

--carveout profiles every runnable configuration of the 216-configuration
grid, launched once each on CARVEOUT_CASES (B through registers),
with Nsight Compute's launch statistics and occupancy sections (the
shared-memory configuration size the driver picks per launch, the block
limits) and the L1 hit rate, in one ncu process per case.

Writes DIR/variants.jsonl (one line per case and variant), DIR/ncu/*.csv and
prints a table.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_gemm_harness as h  # noqa: E402

CASES = ["128x50257x4096", "2048x11001x4096", "128x50176x4096"]
VARIANTS = [
    "128x64x128_s2_w4", "128x64x128_s3_w4", "128x64x128_s4_w4", "128x64x128_s5_w4",
    "64x64x128_s2_w4", "64x64x128_s3_w4", "64x64x128_s4_w4",
    "128x64x64_s2_w4", "128x64x64_s3_w4", "128x64x64_s4_w4",
    "256x64x64_s2_w4", "256x64x64_s3_w4",
]
NCU_VARIANTS = ["128x64x128_s2_w4", "128x64x128_s3_w4", "128x64x128_s4_w4", "128x64x128_s5_w4",
                "64x64x128_s2_w4", "64x64x128_s3_w4", "128x64x64_s2_w4", "128x64x64_s3_w4"]
SECTIONS = ["SpeedOfLight", "Occupancy", "WarpStateStats", "MemoryWorkloadAnalysis"]
# --carveout: every configuration of the grid, B through registers.
CARVEOUT_CASES = ["2048x11001x4096"]


def sass_text(kernel):
    """The kernel's SASS, from its cubin through cuobjdump (empty if unavailable)."""
    import tempfile
    try:
        cubin = kernel.asm["cubin"]
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
            f.write(cubin)
            path = f.name
        out = subprocess.run(["cuobjdump", "--dump-sass", path], capture_output=True, text=True, timeout=120)
        os.unlink(path)
        return out.stdout
    except Exception:
        return ""


def sass_ops(kernel):
    """The kernel's SASS mnemonics, one (op, base) per instruction: op with
    its modifiers (LDG.E.U16), base without (LDG); none if no SASS."""
    for line in sass_text(kernel).splitlines():
        m = re.search(r"/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", line)
        if m:
            yield m.group(1), m.group(1).split(".")[0]


def sass_counts(kernel):
    """Counts of the SASS mnemonics that matter here (empty if no SASS)."""
    counts = collections.Counter()
    for op, base in sass_ops(kernel):
        if base in ("LDG", "STG", "LDS", "STS", "LDSM", "BAR", "LDL", "STL", "LDGSTS", "HGMMA", "WARPGROUP",
                    "SYNCS", "UTMALDG", "LDGDEPBAR", "DEPBAR"):
            counts[op if base in ("LDG", "STS", "LDS", "LDGSTS") else base] += 1
    return dict(counts)


def summarize_carveout(csv_text):
    """One record per launch of an ncu --carveout CSV: the configuration (from
    the program's own output, one key per launch, in order), what the driver
    configured and the L1 hit rate."""
    import csv
    import io
    keys = [line.strip() for line in csv_text.splitlines()
            if re.fullmatch(r"\d+x\d+x\d+_s\d+_w\d+", line.strip())]
    start = csv_text.find('"ID"')
    table = "\n".join(line for line in csv_text[start:].splitlines() if line.startswith('"'))
    metrics = collections.defaultdict(dict)
    for row in csv.DictReader(io.StringIO(table)):
        metrics[int(row["ID"])][row["Metric Name"]] = row["Metric Value"]

    def num(m, name):
        v = m.get(name, "").replace(",", "")
        try:
            return float(v)
        except ValueError:
            return None

    out = []
    for i in sorted(metrics):
        m = metrics[i]
        out.append(dict(key=keys[i] if i < len(keys) else None,
                        regs=num(m, "Registers Per Thread"),
                        dynamic_smem=num(m, "Dynamic Shared Memory Per Block"),
                        driver_smem=num(m, "Driver Shared Memory Per Block"),
                        smem_config=num(m, "Shared Memory Configuration Size"),
                        block_limit_smem=num(m, "Block Limit Shared Mem"),
                        block_limit_regs=num(m, "Block Limit Registers"),
                        block_limit_warps=num(m, "Block Limit Warps"),
                        l1_hit_pct=num(m, "l1tex__t_sector_hit_rate.pct"),
                        ncu_duration_ns=num(m, "gpu__time_duration.sum")))
    return out


def run_variant(case, cfg, time_it=True):
    a, b, c = h.case_tensors(case)
    kernel = h.matmul_kernel.warmup(*h.kernel_args(a, b, c), grid=(1,), **h.meta_args(cfg))
    kernel._init_handles()
    shared = int(kernel.metadata.shared)
    occ, _, _ = h.occupancy(kernel.function, 32 * cfg["warps"], shared)
    grid = (triton.cdiv(case.M, cfg["BM"]) * triton.cdiv(case.N, cfg["BN"]),)

    def launch():
        h.matmul_kernel[grid](*h.kernel_args(a, b, c), **h.meta_args(cfg))

    c.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    ref = (a.float() @ b.float())
    rel = float(torch.linalg.norm(c.float() - ref) / torch.linalg.norm(ref))
    nans = int(torch.isnan(c).sum())
    row = dict(case=h.shape_name((case.M, case.N, case.K)), klass=case.klass() if hasattr(case, "klass") else None,
               key=cfg["key"], n_regs=int(kernel.n_regs), n_spills=int(kernel.n_spills), shared=shared,
               occupancy=occ, rel_err=rel, nans=nans, sass=sass_counts(kernel))
    if time_it:
        row["ms"] = triton.testing.do_bench(launch, warmup=5, rep=25, return_mode="median")
    return row, launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", help="comma-separated cases (default: CASES), e.g. 6144x1024x2048:tfloat32:rr")
    ap.add_argument("--variants", help="comma-separated variants to compile and time (default: VARIANTS)")
    ap.add_argument("--ncu-variants", help="comma-separated variants for --ncu (default: NCU_VARIANTS)")
    ap.add_argument("--sections", help="comma-separated Nsight Compute sections for --ncu (default: SECTIONS)")
    ap.add_argument("--ncu", action="store_true", help="profile NCU_VARIANTS on the first case with Nsight Compute")
    ap.add_argument("--one", help="(internal) run one variant once on the first case, for ncu")
    ap.add_argument("--carveout", action="store_true",
                    help="profile every configuration of the grid on CARVEOUT_CASES with Nsight Compute's launch "
                         "statistics and occupancy (the shared-memory carveout the driver picks) and the L1 hit rate")
    ap.add_argument("--launch-all", help="(internal) launch every runnable configuration once on this case")
    ap.add_argument("--summarize-carveout", metavar="CSV",
                    help="turn a --carveout CSV into JSON Lines in --out (no GPU needed)")
    args = ap.parse_args()
    if args.summarize_carveout:
        with open(args.summarize_carveout) as f:
            records = summarize_carveout(f.read())
        with open(args.out, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        return
    torch.manual_seed(20261202)
    if args.launch_all:
        case = h.parse_case(args.launch_all)
        a, b, c = h.case_tensors(case)
        for cfg in h.config_grid():
            try:
                kernel = h.matmul_kernel.warmup(*h.kernel_args(a, b, c), grid=(1,), **h.meta_args(cfg))
                kernel._init_handles()
            except Exception:
                continue  # not runnable (shared memory)
            grid = (triton.cdiv(case.M, cfg["BM"]) * triton.cdiv(case.N, cfg["BN"]),)
            h.matmul_kernel[grid](*h.kernel_args(a, b, c), **h.meta_args(cfg))
            torch.cuda.synchronize()
            print(cfg["key"], flush=True)
        return
    if args.carveout:
        os.makedirs(args.out, exist_ok=True)
        t0 = time.perf_counter()
        classes = sorted({h.parse_case(text).klass() for text in CARVEOUT_CASES})
        h.compile_all(classes, h.config_grid(), os.cpu_count() or 4)
        print(f"# compile {time.perf_counter() - t0:.1f} s for {len(classes)} classes x 216")
        for text in CARVEOUT_CASES:
            base = ["ncu", "--csv", "--kernel-name", "regex:matmul", "--section", "LaunchStats",
                    "--section", "Occupancy"]
            extra = ["--metrics", "l1tex__t_sector_hit_rate.pct,gpu__time_duration.sum"]
            prog = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--launch-all", text]
            t1 = time.perf_counter()
            res = subprocess.run(base + extra + prog, capture_output=True, text=True, timeout=1200)
            if res.returncode != 0:
                res = subprocess.run(base + prog, capture_output=True, text=True, timeout=1200)
            name = text.replace(":", "_")
            with open(os.path.join(args.out, f"carveout_{name}.csv"), "w") as f:
                f.write(res.stdout)
            with open(os.path.join(args.out, f"carveout_{name}.err"), "w") as f:
                f.write(res.stderr[-20000:])
            print(f"# ncu {text}: rc {res.returncode}, {time.perf_counter() - t1:.1f} s, {len(res.stdout)} bytes")
        return
    global CASES, VARIANTS, NCU_VARIANTS, SECTIONS
    if args.sections:
        SECTIONS = args.sections.split(",")
    if args.cases:
        CASES = args.cases.split(",")
    if args.variants:
        VARIANTS = args.variants.split(",")
    if args.ncu_variants:
        NCU_VARIANTS = args.ncu_variants.split(",")
    if args.one:
        cfg = h.parse_config_key(args.one)
        row, launch = run_variant(h.parse_case(CASES[0]), cfg, time_it=False)
        launch()
        torch.cuda.synchronize()
        return
    os.makedirs(args.out, exist_ok=True)
    # Compile every (class, variant) once, in parallel, into Triton's cache.
    t0 = time.perf_counter()
    classes = sorted({h.parse_case(text).klass() for text in CASES})
    h.compile_all(classes, [h.parse_config_key(k) for k in VARIANTS], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s for {len(classes)} classes x {len(VARIANTS)} variants")
    rows = []
    t0 = time.perf_counter()
    with open(os.path.join(args.out, "variants.jsonl"), "w") as f:
        for text in CASES:
            case = h.parse_case(text)
            for key in VARIANTS:
                try:
                    row, _ = run_variant(case, h.parse_config_key(key))
                except Exception as e:  # not runnable in this class (shared memory): recorded, skipped
                    row = dict(case=text, key=key, error=f"{type(e).__name__}: {e}"[:200])
                    f.write(json.dumps(row) + "\n")
                    continue
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
    print(f"# timing {time.perf_counter() - t0:.1f} s")
    print("| case | variant | regs | spills | smem KB | blk/SM | ms | rel_err | LDG.U16 | STS | LDS | BAR | LDL+STL |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s = r["sass"]
        ldg16 = sum(v for k, v in s.items() if k.startswith("LDG") and "U16" in k)
        sts = sum(v for k, v in s.items() if k.startswith("STS"))
        lds = sum(v for k, v in s.items() if k.startswith("LDS"))
        print(f"| {r['case']} | {r['key']} | {r['n_regs']} | {r['n_spills']} | {r['shared'] / 1024:.0f} | "
              f"{r['occupancy']} | {r['ms']:.4f} | {r['rel_err']:.1e} | {ldg16} | {sts} | {lds} | "
              f"{s.get('BAR', 0)} | {s.get('LDL', 0) + s.get('STL', 0)} |")
    if args.ncu:
        ncu_dir = os.path.join(args.out, "ncu")
        os.makedirs(ncu_dir, exist_ok=True)
        for key in NCU_VARIANTS:
            cmd = ["ncu", "--csv", "--kernel-name", "regex:matmul", "--launch-count", "1"]
            for sec in SECTIONS:
                cmd += ["--section", sec]
            cmd += [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one", key,
                    "--cases", ",".join(CASES)]
            t1 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            with open(os.path.join(ncu_dir, f"{key}.csv"), "w") as f:
                f.write(res.stdout)
            with open(os.path.join(ncu_dir, f"{key}.err"), "w") as f:
                f.write(res.stderr)
            print(f"# ncu {key}: rc {res.returncode}, {time.perf_counter() - t1:.1f} s, {len(res.stdout)} bytes")
        # One file for the lot (the runner brings back a limited number of files).
        subprocess.run(["tar", "czf", os.path.join(args.out, "ncu.tar.gz"), "-C", args.out, "ncu"], check=False)
        subprocess.run(["rm", "-rf", ncu_dir], check=False)


if __name__ == "__main__":
    main()
