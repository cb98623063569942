#!/usr/bin/env python3
"""`tileplan tile --shapes FILE --emit triton` inside a real @triton.autotune, on one GPU.

The batch emitter writes one Python list of triton.Config per kernel (input
and output types, layouts): every configuration in the top k of any of its
shapes, once. This script executes such files as printed (`--lists
LABEL=PATH`, e.g. the lists of --topk 3 and of --topk 1), wraps the
harness's kernel (bench/gpu/triton_gemm_harness.py: the Triton-tutorial
matmul, fp32 accumulation) in one @triton.autotune(configs=LIST,
key=['M', 'N', 'K']) per list, and runs every shape of the picks file
(`--picks`: the JSON Lines of `tileplan tile --shapes FILE --topk 3`, which
give each shape's problem and its first picks):

- the first launch of a shape tunes over the whole list (prune none,
  compile what the cache lacks, benchmark every config, run): its wall
  time is recorded with the autotuner's choice;
- C is then filled with NaN and the tuned kernel launched again, and every
  element is compared with the fp32 product (torch.matmul of the operands
  upcast, cast to C's type), as the harness does; the shape's first pick
  (tileplan's rank 1, launched directly) is checked the same way;
- the tuned kernel of every list, the first pick and cuBLAS (torch.matmul)
  are then timed in `--rounds` interleaved rounds with
  triton.testing.do_bench (median; the harness's warmup and rep), and a
  time is the median of the rounds.

Random normal inputs, fresh per shape (torch.manual_seed(seed + index)).
fp16 and bf16 only (cuBLAS of fp8 needs scales; the harness measures those).

    python3 bench/gpu/check_batch_emit.py --picks P.jsonl --lists top3=L3.py --lists top1=L1.py --out OUT

Writes OUT/results.jsonl (one object per shape), OUT/meta.json and prints a
table. Exit status 1 on any failure: a list missing for a shape's kernel, a
tuned choice outside its list, the first pick missing from a list, a NaN or
an error above 1e-2.
"""

import argparse
import json
import math
import pathlib
import statistics
import subprocess
import sys
import time
import traceback

import torch
import triton
import triton.testing

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_gemm_harness as h  # noqa: E402

MAX_REL_ERR = 1e-2
TRITON_BENCH = dict(warmup=5, rep=25, return_mode="median")  # the harness's (meta.json do_bench)
CUBLAS_BENCH = dict(warmup=10, rep=50, return_mode="median")


def config_key(bm, bn, bk, stages, warps):
    return f"{bm}x{bn}x{bk}_s{stages}_w{warps}"


def key_of(cfg):
    k = cfg.kwargs
    return config_key(k["BLOCK_M"], k["BLOCK_N"], k["BLOCK_K"], cfg.num_stages, cfg.num_warps)


def load_lists(path):
    """The configs_* lists of an emitted file, executed as printed."""
    namespace = {"triton": triton}
    exec(compile(pathlib.Path(path).read_text(), str(path), "exec"), namespace)  # noqa: S102
    lists = {name: value for name, value in namespace.items() if name.startswith("configs_")}
    if not lists:
        raise SystemExit(f"{path}: no configs_* list")
    return lists


def grid_of(M, N):
    return lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)


def checked(launch, c, ref):
    c.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    return h.rel_error(c, ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--picks", required=True, help="JSON Lines of `tileplan tile --shapes FILE --topk 3`")
    ap.add_argument("--lists", action="append", required=True, help="LABEL=PATH of an emitted file (repeatable)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--deadline-s", type=float, default=480, help="stop before a shape that would start after this")
    args = ap.parse_args()
    t_start = time.perf_counter()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    picks = [json.loads(line) for line in pathlib.Path(args.picks).read_text().splitlines() if line.strip()]
    variants = {}
    for item in args.lists:
        label, _, path = item.partition("=")
        variants[label] = load_lists(path)
    # One autotuner per (variant, list): each keeps its own cache of choices.
    tuned = {label: {name: triton.autotune(configs=configs, key=["M", "N", "K"])(h.matmul_kernel)
                     for name, configs in lists.items()}
             for label, lists in variants.items()}

    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,"
                          "power.draw,power.limit,clocks_event_reasons.active", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    meta = dict(date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), gpu=torch.cuda.get_device_name(0),
                torch=torch.__version__, triton=triton.__version__, nvidia_smi_before=smi,
                lists={label: {name: [key_of(c) for c in configs] for name, configs in lists.items()}
                       for label, lists in variants.items()},
                do_bench=dict(triton=TRITON_BENCH, cublas=CUBLAS_BENCH), rounds=args.rounds, seed=args.seed)
    failures = []
    results = []
    for index, line in enumerate(picks):
        if time.perf_counter() - t_start > args.deadline_s:
            failures.append(f"deadline: {len(picks) - index} shape(s) not run")
            break
        p = line["problem"]
        M, N, K = p["m"], p["n"], p["k"]
        label_shape = f"{M}x{N}x{K}"
        if p["dtype"] not in ("float16", "bfloat16") or p.get("lda") not in (None, K if p["a_layout"] == "row" else M):
            failures.append(f"{label_shape}: only packed fp16/bf16 problems are checked here")
            continue
        if not line["candidates"]:
            continue
        try:
            torch.manual_seed(args.seed + index)
            case = h.Case(M, N, K, p["dtype"], p["a_layout"], p["b_layout"])
            a, b, c = h.case_tensors(case)
            ref = torch.matmul(a.float(), b.float()).to(c.dtype)
            list_name = f"configs_{p['dtype']}_{p['out_dtype']}_{p['a_layout']}_{p['b_layout']}"
            args_of = h.kernel_args(a, b, c)
            grid = grid_of(M, N)
            first = line["candidates"][0]
            first_key = config_key(first["block_m"], first["block_n"], first["block_k"], first["stages"],
                                   first["threads"] // 32)
            first_meta = dict(BLOCK_M=first["block_m"], BLOCK_N=first["block_n"], BLOCK_K=first["block_k"],
                              GROUP_M=8, num_warps=first["threads"] // 32, num_stages=first["stages"])
            row = dict(shape=label_shape, dtype=p["dtype"], a_layout=p["a_layout"], b_layout=p["b_layout"],
                       list=list_name, first_pick=first_key,
                       top3=[config_key(x["block_m"], x["block_n"], x["block_k"], x["stages"], x["threads"] // 32)
                             for x in line["candidates"][:3]], variants={})
            fns = {}
            for label, kernels in tuned.items():
                if list_name not in kernels:
                    failures.append(f"{label_shape}: {label} has no {list_name}")
                    continue
                kern = kernels[list_name]
                keys = [key_of(cfg) for cfg in variants[label][list_name]]
                if first_key not in keys:
                    failures.append(f"{label_shape}: its first pick {first_key} is not in {label}'s {list_name}")
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                kern[grid](*args_of)
                torch.cuda.synchronize()
                tune_s = time.perf_counter() - t0
                best = key_of(kern.best_config)
                if best not in keys:
                    failures.append(f"{label_shape}: {label}'s autotuner chose {best}, not in its list")
                timings = {key_of(cfg): (t[0] if isinstance(t, (list, tuple)) else t)
                           for cfg, t in (getattr(kern, "configs_timings", None) or {}).items()}
                rel, nans = checked(lambda: kern[grid](*args_of), c, ref)
                if nans or not rel <= MAX_REL_ERR:
                    failures.append(f"{label_shape}: {label} rel_err {rel:.3e}, NaNs {nans}")
                row["variants"][label] = dict(list_size=len(keys), tune_s=tune_s, chosen=best,
                                              autotuner_ms=timings, rel_err=rel, n_nan=nans)
                fns[label] = (lambda kern=kern: kern[grid](*args_of), TRITON_BENCH)
            rel, nans = checked(lambda: h.matmul_kernel[grid](*args_of, **first_meta), c, ref)
            if nans or not rel <= MAX_REL_ERR:
                failures.append(f"{label_shape}: first pick rel_err {rel:.3e}, NaNs {nans}")
            row["first_pick_rel_err"], row["first_pick_n_nan"] = rel, nans
            fns["first_pick"] = (lambda: h.matmul_kernel[grid](*args_of, **first_meta), TRITON_BENCH)
            fns["cublas"] = (lambda: torch.matmul(a, b, out=c), CUBLAS_BENCH)
            samples = {name: [] for name in fns}
            for _ in range(args.rounds):
                for name, (fn, bench) in fns.items():
                    samples[name].append(triton.testing.do_bench(fn, **bench))
            row["ms"] = {name: statistics.median(v) for name, v in samples.items()}
            row["ms_rounds"] = samples
            results.append(row)
            del a, b, c, ref
            torch.cuda.empty_cache()
        except Exception:
            traceback.print_exc()
            failures.append(f"{label_shape}: exception")

    with open(out / "results.jsonl", "w") as f:
        for row in results:
            f.write(json.dumps(row) + "\n")
    meta["nvidia_smi_after"] = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active",
         "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    meta["total_s"] = time.perf_counter() - t_start
    meta["failures"] = failures
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")

    labels = list(tuned)
    print(f"{meta['gpu']}, torch {torch.__version__}, triton {triton.__version__}; {len(results)} shape(s)")
    head = "shape                 " + "".join(f"{lb + ' chosen':>22} {lb + ' s':>8}" for lb in labels)
    print(head + f"{'first pick':>22} " + "".join(f"{lb + '/first':>12}" for lb in labels) + f"{'cuBLAS/'+labels[0]:>14}")
    for row in results:
        cells = "".join(f"{row['variants'][lb]['chosen']:>22} {row['variants'][lb]['tune_s']:>8.2f}"
                        for lb in labels if lb in row["variants"])
        ratios = "".join(f"{row['ms'][lb] / row['ms']['first_pick']:>12.3f}" for lb in labels if lb in row["ms"])
        print(f"{row['shape']:<22}{cells}{row['first_pick']:>22} {ratios}{row['ms']['cublas'] / row['ms'][labels[0]]:>14.3f}")
    for lb in labels:
        rows = [r for r in results if lb in r["ms"]]
        if not rows:
            continue
        g = math.exp(statistics.mean(math.log(r["ms"][lb] / r["ms"]["first_pick"]) for r in rows))
        cb = math.exp(statistics.mean(math.log(r["ms"]["cublas"] / r["ms"][lb]) for r in rows))
        tune = math.exp(statistics.mean(math.log(r["variants"][lb]["tune_s"]) for r in rows))
        same = sum(r["variants"][lb]["chosen"] == r["first_pick"] for r in rows)
        print(f"{lb}: tuned / first pick {g:.3f} (geomean), cuBLAS / tuned {cb:.3f}, tuning {tune:.2f} s "
              f"(geomean), chose the first pick on {same} of {len(rows)}")
    print(f"total {meta['total_s']:.1f} s")
    if failures:
        print("FAILED:")
        for f in failures:
            print(f"  {f}")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
