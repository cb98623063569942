#!/usr/bin/env python3
"""What does Triton compile differently for the same tile in two divisibility classes?

With B stored K-major (`rc`), 128x256x64 with 8 warps runs 18-30% slower than
256x128x64 when M, N and K are multiples of 16, and as fast when N is not
(docs/model.md §6). This script compiles chosen configurations of the
tutorial kernel of bench/gpu/triton_gemm_harness.py for chosen classes (each
on the class's proxy shape), writes each one's TTGIR and a summary of its
SASS (counts of the memory, barrier and wgmma instructions, the distinct
HGMMA forms), then times every configuration on chosen cases with do_bench
(median, three interleaved rounds) with every element of C checked.

    python3 bench/gpu/compare_kernels.py --out DIR [--classes C,...] [--configs K,...] [--cases C,...] [--ptx]

Writes DIR/<class>/<key>.ttgir (and .ptx with --ptx), DIR/kernels.jsonl and DIR/times.jsonl.
"""
import argparse
import collections
import json
import os
import statistics
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_two_blocks as two_blocks  # noqa: E402
import triton_gemm_harness as h  # noqa: E402

CLASSES = ["float16:rc:MNK", "float16:rc:MnK", "float16:rr:MNK", "float16:rr:MnK"]
CONFIGS = ["128x256x64_s3_w8", "256x128x64_s3_w8", "128x128x64_s4_w8"]
CASES = ["4096x4096x4096:float16:rc", "4096x4097x4096:float16:rc", "4096x4104x4096:float16:rc",
         "4096x4096x4096:float16:rr", "4096x4104x4096:float16:rr"]


def sass(kernel):
    """Counts of the memory, barrier and wgmma instructions, and the HGMMA forms."""
    counts, forms = collections.Counter(), collections.Counter()
    for op, base in two_blocks.sass_ops(kernel):
        if base in ("LDG", "STG", "LDS", "STS", "LDSM", "STSM", "BAR", "LDL", "STL", "LDGSTS", "HGMMA", "WARPGROUP",
                    "SYNCS", "UTMALDG", "UTMASTG", "DEPBAR", "LDGDEPBAR"):
            counts[op] += 1
        if base == "HGMMA":
            forms[op] += 1
    return dict(counts), dict(forms)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--classes")
    ap.add_argument("--configs")
    ap.add_argument("--cases")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ptx", action="store_true", help="also write each kernel's PTX (DIR/<class>/<key>.ptx)")
    args = ap.parse_args()
    classes = args.classes.split(",") if args.classes else CLASSES
    configs = args.configs.split(",") if args.configs else CONFIGS
    cases = args.cases.split(",") if args.cases else CASES
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(20261202)
    needed = sorted(set(classes) | {h.parse_case(c).klass() for c in cases})
    h.compile_all(needed, [h.parse_config_key(k) for k in configs], os.cpu_count() or 4)
    with open(os.path.join(args.out, "kernels.jsonl"), "w") as f:
        for klass in classes:
            os.makedirs(os.path.join(args.out, klass.replace(":", "_")), exist_ok=True)
            a, b, c = h.warm_tensors(klass)
            for key in configs:
                cfg = h.parse_config_key(key)
                k = h.matmul_kernel.warmup(*h.kernel_args(a, b, c), grid=(1,), **h.meta_args(cfg))
                k._init_handles()
                with open(os.path.join(args.out, klass.replace(":", "_"), key + ".ttgir"), "w") as g:
                    g.write(k.asm["ttgir"])
                if args.ptx:
                    with open(os.path.join(args.out, klass.replace(":", "_"), key + ".ptx"), "w") as g:
                        g.write(k.asm["ptx"])
                counts, forms = sass(k)
                row = dict(klass=klass, key=key, n_regs=int(k.n_regs), n_spills=int(k.n_spills),
                           shared=int(k.metadata.shared), sass=counts, hgmma=forms)
                f.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)
    launches = {}
    for text in cases:
        case = h.parse_case(text)
        a, b, c = h.case_tensors(case)
        ref = a.float() @ b.float()
        for key in configs:
            cfg = h.parse_config_key(key)
            grid = (triton.cdiv(case.M, cfg["BM"]) * triton.cdiv(case.N, cfg["BN"]),)

            def launch(a=a, b=b, c=c, cfg=cfg, grid=grid):
                h.matmul_kernel[grid](*h.kernel_args(a, b, c), **h.meta_args(cfg))

            c.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            rel, nans = h.rel_error(c, ref)
            assert nans == 0 and rel < 1e-2, (text, key, rel, nans)
            launches[(text, key)] = (launch, rel)
    times = collections.defaultdict(list)
    with open(os.path.join(args.out, "times.jsonl"), "w") as f:
        for r in range(args.rounds):
            for (text, key), (launch, rel) in launches.items():
                ms = triton.testing.do_bench(launch, warmup=5, rep=25, return_mode="median")
                times[(text, key)].append(ms)
                f.write(json.dumps(dict(case=text, key=key, round=r, ms=ms, rel_err=rel)) + "\n")
    for text in cases:
        case = h.parse_case(text)
        flops = 2.0 * case.M * case.N * case.K
        print(text, " ".join(f"{key} {statistics.median(times[(text, key)]):.4f} ms "
                             f"({flops / statistics.median(times[(text, key)]) / 1e9:.0f} TFLOP/s)" for key in configs))


if __name__ == "__main__":
    main()
