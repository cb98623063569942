#!/usr/bin/env python3
"""End to end on an H200: Triton's autotuner over the full grid against tileplan's pruning.

The kernel and grid are those of triton_gemm_harness.py: the Triton-tutorial
GEMM (A[M,K] . B[K,N], both row-major, fp32 accumulation, C in the input
type), 216 configurations of which 168 run (48 are refused at load with
OutOfResources). Variants, each a real decorator on that kernel:

  full        @triton.autotune(configs=GRID, key=["M", "N", "K"])
  top1/3/5    the same with prune_configs_by=tileplan.triton.prune(top_k=k)
  heuristics  @triton.heuristics(tileplan.triton.heuristics()): no autotuning

Triton's own benchmarker is used throughout (triton.testing.do_bench with its
defaults, as the autotuner calls it). The autotuner gets it through its
do_bench argument, wrapped so that (a) each config is first compiled without
a launch (JITFunction.run with warmup=True) and the compile time is recorded,
(b) the benchmark then runs while holding a per-GPU lock, so that benchmarks
of different processes never overlap on one GPU. Every other launch of the
kernel (the autotuner's final launch, heuristics, top-1) also compiles first
and launches under the lock. The tuning wall time of a first launch is its
wall time minus the time spent waiting for that lock.

A cold full-grid autotune compiles 216 configurations one after another
(0.6 s each on average on the H200 machine, up to 4 s) and benchmarks 216
(0.1 s to 0.5 s each): about 2.5 minutes per shape, an hour for 24 shapes,
which does not fit in one 10-minute call. The measurement is therefore
decomposed:

  1. direct: one shape per input class (fp16, fp16 with M not a multiple of
     16, bf16) gets a real cold full autotune: fresh process, empty
     TRITON_CACHE_DIR; its per-config compile and benchmark times are kept.
  2. warm: every shape gets the real full autotune in a process whose Triton
     cache already holds the class's 216 kernels (compiled beforehand by the
     harness's parallel compile_all): it loads and benchmarks. The full cold
     tuning time of a shape is estimated as its class's serial compile time
     (the direct run's sum of per-config compile times) plus the shape's warm
     tuning time minus the warm run's cache-load time; the direct shapes
     check that estimate.
  3. cold: top1, top3, top5 and heuristics, each really cold: a fresh process
     with an empty TRITON_CACHE_DIR per (shape, variant).
  4. final: per shape, in the warm process, the kernel time of every variant's
     pick and of cuBLAS (torch.matmul), triton.testing.do_bench median
     (warmup 25 ms, rep 100 ms), two rounds one after another, under the lock;
     every pick's output checked against an fp32 torch.matmul of the same
     inputs (random normal, C poisoned with NaN, every element compared).

Shapes: projections of Llama-3-8B (fp16, M = 16, 128, 1000, 4096) and
Llama-3-70B (bf16, M = 128, 4096), as MxNxK:dtype:rr, split over the GPUs.

Planned time on nvidia-h200-x2 (2 GPUs, 32 cores), written before the first
run from data/h200-triton-v5a and -v6 (1.6 s per compile under 16-way load)
and Triton's do_bench (~0.13 s per config), against what the run of
data/h200-autotune-e2e took:
  phase                              planned               measured
  setup (pip install)                ~20 s                 12 s
  smoke (small shape, every path)    ~30 s                 15 s
  compile_all, 3 classes x 216       ~45 s, 24 workers     30 s
  direct cold full, 3 shapes         ~300 s each           153-158 s each (0.6 s
                                                           per compile, serial)
  warm full, 12 shapes per GPU       ~25-45 s each         20-38 s each, 330 s per GPU
  cold top1/3/5/heuristics           ~10 s per shape       1-3.5 s of tuning each,
                                                           all 96 done by 155 s
  final timing                       ~2 s per shape        ~2 s
  whole orchestrator                 under 545 s           380 s
Triton 3.6 benchmarks a config even when the pruner keeps only one (top1), so
top1 pays one do_bench (~0.2 s) besides its compile.
A deadline stops new shapes; everything is appended to e2e.jsonl as it ends.

    python3 bench/gpu/autotune_e2e.py --out DIR [--cases ...] [--gpus 2] [--deadline-s 480]
    python3 bench/gpu/autotune_e2e.py --summarize DIR/e2e.jsonl

Needs torch, triton and the installed tileplan package.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent

LLAMA3_8B = [(6144, 4096, "qkv"), (4096, 4096, "o"), (28672, 4096, "gate_up"), (4096, 14336, "down")]
LLAMA3_70B = [(10240, 8192, "qkv"), (8192, 8192, "o"), (57344, 8192, "gate_up"), (8192, 28672, "down")]
CASES = ([f"{m}x{n}x{k}:float16:rr" for m in (16, 128, 1000, 4096) for n, k, _ in LLAMA3_8B]
         + [f"{m}x{n}x{k}:bfloat16:rr" for m in (128, 4096) for n, k, _ in LLAMA3_70B])
# One shape per class for the direct cold full-grid autotune.
DIRECT = ["128x4096x4096:float16:rr", "1000x4096x4096:float16:rr", "128x8192x8192:bfloat16:rr"]
SMOKE_CASE = "512x512x512:float16:rr"
COLD_VARIANTS = ["top1", "top3", "top5", "heuristics"]
FINAL_WARMUP_MS, FINAL_REP_MS = 25, 100
MAX_REL_ERR = 1e-2


def model_of(case):
    m, n, k = (int(x) for x in case.split(":")[0].split("x"))
    table = LLAMA3_8B if case.split(":")[1] == "float16" else LLAMA3_70B
    name = "Llama-3-8B" if table is LLAMA3_8B else "Llama-3-70B"
    for nn, kk, proj in table:
        if (nn, kk) == (n, k):
            return f"{name} {proj}"
    return "-"


# ---------------------------------------------------------------------------
# GPU lock and the instrumented kernel (child processes)
# ---------------------------------------------------------------------------


def append_jsonl(path, rec):
    """One JSON line, written under an exclusive flock (several processes append)."""
    data = (json.dumps(rec) + "\n").encode()
    with open(path, "ab") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.write(data)
            f.flush()
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def read_jsonl(path):
    try:
        with open(path, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH)
            try:
                data = f.read().decode()
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
    except FileNotFoundError:
        return []
    rows = []
    for line in data.splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    return rows


class GpuLock:
    """An inter-process lock per GPU (flock), re-entrant in-process; sums the wait."""

    def __init__(self, path):
        self.f = open(path, "a+")
        self.depth = 0
        self.wait_s = 0.0

    def __enter__(self):
        if self.depth == 0:
            t0 = time.perf_counter()
            fcntl.flock(self.f, fcntl.LOCK_EX)
            self.wait_s += time.perf_counter() - t0
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth == 0:
            fcntl.flock(self.f, fcntl.LOCK_UN)


class Instrumented:
    """A fresh JITFunction of the harness's kernel whose run() compiles first
    (timed, no lock) and launches under the GPU lock; plus a do_bench for the
    autotuner that benchmarks under the lock."""

    def __init__(self, lock):
        import torch
        import triton
        from triton_gemm_harness import matmul_kernel
        self.torch, self.triton, self.lock = torch, triton, lock
        self.jf = triton.jit(matmul_kernel.fn)
        self.orig_run = self.jf.run
        self.compile_only = False
        self.compile_s = []   # per compile (or cache load) of a config
        self.bench_s = []     # per do_bench call, under the lock
        self.jf.run = self._run

    def _run(self, *args, grid, warmup, **kwargs):
        if warmup or self.compile_only:
            return self.orig_run(*args, grid=grid, warmup=True, **kwargs)
        if self.lock.depth:  # inside a benchmark: plain launch
            return self.orig_run(*args, grid=grid, warmup=False, **kwargs)
        t0 = time.perf_counter()
        self.orig_run(*args, grid=grid, warmup=True, **dict(kwargs))
        self.compile_s.append(time.perf_counter() - t0)
        with self.lock:
            ret = self.orig_run(*args, grid=grid, warmup=False, **kwargs)
            self.torch.cuda.synchronize()
        return ret

    def do_bench(self, kernel_call, quantiles):
        t0 = time.perf_counter()
        self.compile_only = True
        try:
            kernel_call()  # compiles (or loads) only: see _run
        finally:
            self.compile_only = False
            self.compile_s.append(time.perf_counter() - t0)
        with self.lock:
            t1 = time.perf_counter()
            try:
                return self.triton.testing.do_bench(kernel_call, quantiles=quantiles)
            finally:
                self.bench_s.append(time.perf_counter() - t1)


def grid_configs(limit=0):
    import triton
    from triton_gemm_harness import GROUP_M, config_grid
    grid = config_grid()
    if limit:
        grid = [grid[round(i * (len(grid) - 1) / (limit - 1))] for i in range(limit)]
    return [triton.Config({"BLOCK_M": c["BM"], "BLOCK_N": c["BN"], "BLOCK_K": c["BK"], "GROUP_M": GROUP_M},
                          num_warps=c["warps"], num_stages=c["stages"]) for c in grid]


def cfg_key(d):
    return f"{d['BLOCK_M']}x{d['BLOCK_N']}x{d['BLOCK_K']}_s{d['num_stages']}_w{d['num_warps']}"


def config_dict(config):
    return dict(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)


def make_kernel(inst, variant, configs):
    """The decorated kernel for a variant, and a holder for what the pruner did."""
    import triton
    import tileplan.triton
    info = {"prune_s": 0.0, "kept": None}
    if variant == "heuristics":
        t0 = time.perf_counter()
        values = tileplan.triton.heuristics()
        info["setup_s"] = time.perf_counter() - t0
        return triton.heuristics(values)(inst.jf), info, values
    if variant == "full":
        return triton.autotune(configs=configs, key=["M", "N", "K"], do_bench=inst.do_bench)(inst.jf), info, None
    top_k = int(variant[3:])
    t0 = time.perf_counter()
    pruner = tileplan.triton.prune(top_k=top_k)["early_config_prune"]
    info["setup_s"] = time.perf_counter() - t0

    def recording(configs_, nargs, **kwargs):
        t = time.perf_counter()
        kept = pruner(configs_, nargs, **kwargs)
        info["prune_s"] += time.perf_counter() - t
        info["kept"] = [cfg_key(config_dict(c)) for c in kept]
        return kept

    return triton.autotune(configs=configs, key=["M", "N", "K"], do_bench=inst.do_bench,
                           prune_configs_by={"early_config_prune": recording})(inst.jf), info, None


def tensors(case, seed):
    import torch
    from triton_gemm_harness import case_tensors, parse_case
    c = parse_case(case)
    torch.manual_seed(seed)
    return c, case_tensors(c)


def check(launch, a, b, c, ref):
    """Poison C, launch, compare every element; (rel_err, NaN count)."""
    import torch
    c.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    n_nan = int(torch.isnan(c).sum().item())
    rel = float(torch.linalg.vector_norm(c.float() - ref) / torch.linalg.vector_norm(ref))
    return rel, n_nan


def tune_once(inst, case, variant, seed, grid_limit=0):
    """First launch of the variant's decorated kernel on the case: the record."""
    import torch
    import triton
    from triton_gemm_harness import kernel_args
    cs, (a, b, c) = tensors(case, seed)
    kernel, info, values = make_kernel(inst, variant, grid_configs(grid_limit))
    args = kernel_args(a, b, c)
    M, N = cs.M, cs.N

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    inst.compile_s.clear()
    inst.bench_s.clear()
    wait0 = inst.lock.wait_s
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    kernel[grid](*args)
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    wait = inst.lock.wait_s - wait0
    if variant == "heuristics":
        named = dict(zip(inst.jf.arg_names, args))
        chosen = {key: f(named) for key, f in values.items()}
    else:
        chosen = config_dict(kernel.best_config)
    timings = {}
    if variant != "heuristics" and inst.bench_s:
        timings = {cfg_key(config_dict(cf)): (t[0] if isinstance(t, (list, tuple)) else t)
                   for cf, t in kernel.configs_timings.items()}
    with inst.lock:
        ref = torch.matmul(a.float(), b.float())
        rel, n_nan = check(lambda: kernel[grid](*args), a, b, c, ref)
    rec = {"case": case, "variant": variant, "tune_s": wall - wait, "first_launch_wall_s": wall,
           "lock_wait_s": wait, "compile_s": sum(inst.compile_s), "n_compiled": len(inst.compile_s),
           "bench_s": sum(inst.bench_s), "n_bench": len(inst.bench_s), "prune_s": info["prune_s"],
           "prune_setup_s": info.get("setup_s", 0.0), "kept": info["kept"], "chosen": cfg_key(chosen),
           "rel_err": rel, "n_nan": n_nan, "ok": n_nan == 0 and rel <= MAX_REL_ERR,
           "per_config_compile_s": list(inst.compile_s) if variant == "full" else None,
           "per_config_bench_s": list(inst.bench_s) if variant == "full" else None,
           "autotuner_ms": timings if variant == "full" else (timings or None)}
    del a, b, c, ref
    return rec


def final_times(inst, case, seed, picks, rounds=2):
    """Kernel time of each distinct pick and of cuBLAS, two rounds; checks every pick."""
    import torch
    import triton
    from triton_gemm_harness import kernel_args
    cs, (a, b, c) = tensors(case, seed + 1)
    args = kernel_args(a, b, c)
    keys = list(dict.fromkeys(picks))
    launchers = {}
    for key in keys:
        bm, bn, bk = (int(x) for x in key.split("_")[0].split("x"))
        st, w = int(key.split("_s")[1].split("_")[0]), int(key.split("_w")[1])
        g = (triton.cdiv(cs.M, bm) * triton.cdiv(cs.N, bn),)
        meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_stages=st, num_warps=w)
        inst.jf.warmup(*args, grid=g, **meta)  # compile or load, outside the lock
        launchers[key] = (lambda g=g, meta=meta: inst.orig_run(*args, grid=g, warmup=False, **meta))
    out = {"case": case, "variant": "final", "ms": {k: [] for k in keys}, "cublas_ms": [], "checks": {}}
    with inst.lock:
        ref = torch.matmul(a.float(), b.float())
        cub = torch.matmul(a, b)
        out["cublas_rel_err"] = float(torch.linalg.vector_norm(cub.float() - ref) / torch.linalg.vector_norm(ref))
        del cub
        for key in keys:
            rel, n_nan = check(launchers[key], a, b, c, ref)
            out["checks"][key] = {"rel_err": rel, "n_nan": n_nan, "ok": n_nan == 0 and rel <= MAX_REL_ERR}
        for _ in range(rounds):
            out["cublas_ms"].append(triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=FINAL_WARMUP_MS,
                                                            rep=FINAL_REP_MS, return_mode="median"))
            for key in keys:
                out["ms"][key].append(triton.testing.do_bench(launchers[key], warmup=FINAL_WARMUP_MS,
                                                              rep=FINAL_REP_MS, return_mode="median"))
    del a, b, c, ref
    return out


def child_main(spec):
    """One child process: spec['mode'] is 'tune' (one variant, one case) or 'warm' (full on many)."""
    sys.path.insert(0, str(HERE))
    import torch
    import triton
    import tileplan
    lock = GpuLock(spec["lock"])
    t0 = time.perf_counter()
    torch.cuda.init()
    triton.runtime.driver.active.get_current_target()
    triton.runtime.driver.active.get_current_device()
    driver_s = time.perf_counter() - t0
    common = {"gpu_index": spec["gpu"], "gpu": torch.cuda.get_device_name(), "triton": triton.__version__,
              "torch": torch.__version__, "tileplan": getattr(tileplan, "__version__", "?"),
              "cache": spec["cache_kind"], "driver_init_s": driver_s, "t_start_epoch": time.time()}

    def emit(rec):
        rec.update(common)
        rec["t_end_epoch"] = time.time()
        append_jsonl(spec["out"], rec)
        print(f"  [{spec['gpu']}] {rec['case']} {rec['variant']}: "
              + (f"tune {rec['tune_s']:.2f} s (compile {rec['compile_s']:.1f} s x{rec['n_compiled']}, "
                 f"bench {rec['bench_s']:.1f} s x{rec['n_bench']}, wait {rec['lock_wait_s']:.1f} s) -> "
                 f"{rec['chosen']} rel_err {rec['rel_err']:.1e} NaN {rec['n_nan']}" if "tune_s" in rec else
                 f"cuBLAS {rec['cublas_ms']} picks {rec['ms']} checks ok "
                 f"{all(v['ok'] for v in rec['checks'].values())}"), flush=True)

    if spec["mode"] == "tune":
        inst = Instrumented(lock)
        emit(tune_once(inst, spec["case"], spec["variant"], spec["seed"], spec.get("grid_limit", 0)))
        return
    # warm: full autotune per case from a filled cache, then the final timings
    for i, case in enumerate(spec["cases"]):
        if time.time() > spec["deadline_epoch"]:
            print(f"  [{spec['gpu']}] deadline: skipping {spec['cases'][i:]}", flush=True)
            break
        inst = Instrumented(lock)  # fresh JITFunction: kernels come from the disk cache
        rec = tune_once(inst, case, "full", spec["seed"] + i, spec.get("grid_limit", 0))
        emit(rec)
        picks = {"full": rec["chosen"]}
        wait_until = time.time() + spec.get("wait_picks_s", 90)
        while time.time() < wait_until:
            found = {}
            for r in read_jsonl(spec["out"]):
                if r.get("case") == case and r.get("variant") in COLD_VARIANTS and r.get("cache") == "cold":
                    found[r["variant"]] = r["chosen"]
            if len(found) == len(COLD_VARIANTS):
                break
            time.sleep(1)
        picks.update(found)
        fin = final_times(Instrumented(lock), case, spec["seed"] + i, list(picks.values()))
        fin["picks"] = picks
        emit(fin)


# ---------------------------------------------------------------------------
# Orchestrator
# ---------------------------------------------------------------------------


def run_child(spec, env_extra, log, timeout):
    """A child process; its output is passed on line by line; killed after timeout s."""
    env = dict(os.environ, **env_extra)
    p = subprocess.Popen([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    for line in p.stdout:
        with log:
            sys.stdout.write(line)
            sys.stdout.flush()
    p.wait()
    timer.cancel()
    if p.returncode != 0:
        with log:
            print(f"  child {spec.get('mode')} {spec.get('case', '')} {spec.get('variant', '')} exited "
                  f"{p.returncode}", flush=True)
    return p.returncode


def smi(gpu):
    try:
        q = "name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate,clocks_event_reasons.active"
        r = subprocess.run(["nvidia-smi", "-i", str(gpu), f"--query-gpu={q}", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip()
    except Exception as e:
        return f"nvidia-smi failed: {e}"


def orchestrate(args):
    t_start = time.time()
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "e2e.jsonl"
    work = pathlib.Path(tempfile.mkdtemp(prefix="tileplan-e2e-"))
    log = threading.Lock()
    cases = args.cases.split(",")
    gpus = list(range(args.gpus))
    locks = {g: str(work / f"gpu{g}.lock") for g in gpus}
    deadline = t_start + args.deadline_s
    hard = t_start + args.hard_deadline_s
    sys.path.insert(0, str(HERE))
    import triton_gemm_harness as H
    meta = {"date_utc_start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t_start)), "cases": cases,
            "direct": args.direct.split(",") if args.direct else [], "gpus": gpus,
            "nvidia_smi_before": {g: smi(g) for g in gpus}, "python": sys.version.split()[0],
            "argv": sys.argv, "phases": {}}

    def write_meta():
        with open(out_dir / "meta.json", "w") as f:
            json.dump(meta, f, indent=2)

    def say(msg):
        with log:
            print(f"[{time.time() - t_start:6.1f} s] {msg}", flush=True)

    def cold_env(gpu):
        d = tempfile.mkdtemp(prefix="cold-", dir=work)
        return d, {"TRITON_CACHE_DIR": d, "CUDA_VISIBLE_DEVICES": str(gpu)}

    write_meta()
    # -- smoke: every path on a small shape, 12 configs --------------------------
    if not args.no_smoke:
        say(f"smoke on {SMOKE_CASE}: 6 configs, every variant at once on GPU 0, then the warm path")
        smoke_out = str(work / "smoke.jsonl")
        rcs, dirs, ths = {}, {}, []
        for variant in ["full"] + COLD_VARIANTS:
            dirs[variant], env = cold_env(0)
            spec = {"mode": "tune", "case": SMOKE_CASE, "variant": variant, "seed": 1, "gpu": 0,
                    "lock": locks[0], "out": smoke_out, "cache_kind": "cold", "grid_limit": 6}
            ths.append(threading.Thread(target=lambda v=variant, s=spec, e=env: rcs.__setitem__(
                v, run_child(s, e, log, 120))))
            ths[-1].start()
        for th in ths:
            th.join()
        if any(rcs.values()):
            say(f"SMOKE FAILED {rcs}; stopping")
            sys.exit(1)
        spec = {"mode": "warm", "cases": [SMOKE_CASE], "seed": 1, "gpu": 0, "lock": locks[0], "out": smoke_out,
                "cache_kind": "warm-smoke", "grid_limit": 6, "deadline_epoch": hard, "wait_picks_s": 5}
        if run_child(spec, {"TRITON_CACHE_DIR": dirs["full"], "CUDA_VISIBLE_DEVICES": "0"}, log, 120) != 0:
            say("SMOKE FAILED (warm); stopping")
            sys.exit(1)
        rows = [json.loads(x) for x in open(smoke_out)]
        bad = [r for r in rows if not r.get("ok", all(v["ok"] for v in r.get("checks", {}).values()))]
        if len(rows) != 7 or bad or len({r["case"] for r in rows}) != 1:
            say(f"SMOKE FAILED: {len(rows)} rows, bad {bad}; stopping")
            sys.exit(1)
        shutil.copy(smoke_out, out_dir / "smoke.jsonl")
        meta["phases"]["smoke_s"] = round(time.time() - t_start, 1)
        say("smoke OK")

    # -- assignment of cases to GPUs (greedy on an estimated GPU cost) -----------
    def cost(case):
        m, n, k = (int(x) for x in case.split(":")[0].split("x"))
        return 25 + 6 * (2 * m * n * k / 1e12)
    load = {g: 0.0 for g in gpus}
    direct = meta["direct"]
    direct_gpu = {}
    for i, case in enumerate(direct):
        g = gpus[i % len(gpus)] if "bfloat16" not in case else gpus[-1]
        direct_gpu[case] = g
        load[g] += 30
    per_gpu = {g: [] for g in gpus}
    for case in sorted(cases, key=cost, reverse=True):
        g = min(gpus, key=lambda x: load[x])
        per_gpu[g].append(case)
        load[g] += cost(case)
    # run the cheap ones first so a deadline cuts the costly ones
    for g in gpus:
        per_gpu[g].sort(key=cost)
    meta["assignment"] = {g: per_gpu[g] for g in gpus}
    meta["direct_gpu"] = direct_gpu
    write_meta()
    say(f"assignment: {json.dumps(meta['assignment'])}")

    # -- direct cold full autotunes (start now: the long pole) --------------------
    threads = []

    def direct_run(case):
        d, env = cold_env(direct_gpu[case])
        spec = {"mode": "tune", "case": case, "variant": "full", "seed": 7, "gpu": direct_gpu[case],
                "lock": locks[direct_gpu[case]], "out": str(results), "cache_kind": "cold-direct"}
        say(f"direct cold full {case} on GPU {direct_gpu[case]}")
        rc = run_child(spec, env, log, max(10, hard - time.time()))
        say(f"direct cold full {case} done (rc {rc})")
    for case in direct:
        th = threading.Thread(target=direct_run, args=(case,))
        th.start()
        threads.append(th)

    # -- compile every class's 216 configs into the shared cache -----------------
    klasses = sorted({H.parse_case(c).klass() for c in cases})
    shared = str(work / "warm-cache")
    os.makedirs(shared, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = shared
    import triton
    triton.runtime.driver.active.get_current_target()  # driver helpers built once, into the shared cache
    t0 = time.time()
    say(f"compile_all: {len(klasses)} classes x 216 with {args.workers} workers")
    compiled = H.compile_all(klasses, H.config_grid(), args.workers)
    meta["phases"]["compile_all_s"] = round(time.time() - t0, 1)
    meta["compile_all_workers"] = args.workers
    with open(out_dir / "compile_all.jsonl", "w") as f:
        for (k, key), (secs, err) in compiled.items():
            f.write(json.dumps({"class": k, "key": key, "compile_s": secs, "error": err}) + "\n")
    sums = {k: round(sum(s for (kk, _), (s, _) in compiled.items() if kk == k), 1) for k in klasses}
    meta["compile_all_sum_s"] = sums
    write_meta()
    say(f"compile_all done in {meta['phases']['compile_all_s']} s; per-class sum of compile times {sums}")

    # -- per GPU: the warm worker, and the cold variants alongside ----------------
    def warm_run(g):
        spec = {"mode": "warm", "cases": per_gpu[g], "seed": 100 * (g + 1), "gpu": g, "lock": locks[g],
                "out": str(results), "cache_kind": "warm", "deadline_epoch": deadline, "wait_picks_s": 90}
        rc = run_child(spec, {"TRITON_CACHE_DIR": shared, "CUDA_VISIBLE_DEVICES": str(g)}, log,
                       max(10, hard - time.time()))
        say(f"warm worker GPU {g} done (rc {rc})")

    def cold_runs(g):
        import concurrent.futures as cf
        jobs = [(case, v) for case in per_gpu[g] for v in COLD_VARIANTS]

        def one(job):
            case, v = job
            if time.time() > deadline:
                return
            d, env = cold_env(g)
            spec = {"mode": "tune", "case": case, "variant": v, "seed": 100 * (g + 1) + per_gpu[g].index(case),
                    "gpu": g, "lock": locks[g], "out": str(results), "cache_kind": "cold"}
            run_child(spec, env, log, max(10, hard - time.time()))
            shutil.rmtree(d, ignore_errors=True)
        with cf.ThreadPoolExecutor(max_workers=args.cold_parallel) as pool:
            list(pool.map(one, jobs))
        say(f"cold variants GPU {g} done")

    for g in gpus:
        for target in (warm_run, cold_runs):
            th = threading.Thread(target=target, args=(g,))
            th.start()
            threads.append(th)
    for th in threads:
        th.join()
    meta["phases"]["total_s"] = round(time.time() - t_start, 1)
    meta["nvidia_smi_after"] = {g: smi(g) for g in gpus}
    meta["date_utc_end"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_meta()
    shutil.rmtree(work, ignore_errors=True)
    print(summarize(str(results), meta), flush=True)


# ---------------------------------------------------------------------------
# Summary (also runs without a GPU, on a copied e2e.jsonl)
# ---------------------------------------------------------------------------


def gmean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def klass_of(case):
    m, n, k = (int(x) for x in case.split(":")[0].split("x"))
    flags = "".join(c if d % 16 == 0 else c.lower() for c, d in zip("MNK", (m, n, k)))
    return f"{case.split(':')[1]}:rr:{flags}"


def analyse(path, meta=None):
    rows = read_jsonl(path)
    direct = {r["case"]: r for r in rows if r.get("cache") == "cold-direct" and r["variant"] == "full"}
    warm = {r["case"]: r for r in rows if r.get("cache") == "warm" and r["variant"] == "full"}
    cold = {(r["case"], r["variant"]): r for r in rows if r.get("cache") == "cold"}
    final = {r["case"]: r for r in rows if r.get("variant") == "final"}
    class_compile = {klass_of(c): r["compile_s"] for c, r in direct.items()}
    # a class without a direct run: the sum of compile_all's per-config times
    for k, v in ((meta or {}).get("compile_all_sum_s") or {}).items():
        class_compile.setdefault(k, v)
    shapes = []
    for case in dict.fromkeys(r["case"] for r in rows if r.get("case") in warm):
        w, fin = warm[case], final.get(case)
        load_s = w["compile_s"]  # warm: cache loads
        cc = class_compile.get(klass_of(case))
        est = cc + w["tune_s"] - load_s if cc is not None else None
        s = {"case": case, "model": model_of(case), "full_warm_s": w["tune_s"], "full_warm_load_s": load_s,
             "full_warm_bench_s": w["bench_s"], "class_compile_s": cc, "full_cold_est_s": est,
             "full_cold_direct_s": direct[case]["tune_s"] if case in direct else None,
             "full_pick": w["chosen"], "ok": w["ok"]}
        s["full_cold_s"] = s["full_cold_direct_s"] or est
        for v in COLD_VARIANTS:
            r = cold.get((case, v))
            s[f"{v}_s"] = r["tune_s"] if r else None
            s[f"{v}_pick"] = r["chosen"] if r else None
            s[f"{v}_compiles"] = r["n_compiled"] if r else None
            s["ok"] = s["ok"] and (r is None or r["ok"])
            s[f"{v}_speedup"] = s["full_cold_s"] / r["tune_s"] if r and s["full_cold_s"] else None
        if fin:
            ms = {k: sum(v) / len(v) for k, v in fin["ms"].items()}
            s["cublas_ms"] = sum(fin["cublas_ms"]) / len(fin["cublas_ms"])
            s["full_ms"] = ms[w["chosen"]]
            s["ok"] = s["ok"] and all(c["ok"] for c in fin["checks"].values())
            # spread of the two rounds of the full pick, a noise gauge
            fm = fin["ms"][w["chosen"]]
            s["full_round_spread"] = (max(fm) - min(fm)) / min(fm) if len(fm) > 1 else None
            for v in COLD_VARIANTS:
                p = fin["picks"].get(v)
                s[f"{v}_ms"] = ms.get(p) if p else None
                s[f"{v}_ratio"] = ms[p] / s["full_ms"] if p in ms else None
            if case in direct and direct[case]["chosen"] in ms:
                s["direct_pick"] = direct[case]["chosen"]
        shapes.append(s)
    return shapes, direct, warm


def fmt(x, spec, none="-"):
    return none if x is None else format(x, spec)


def summarize(path, meta=None):
    shapes, direct, warm = analyse(path, meta)
    lines = []
    lines.append("| shape (MxNxK:type) | model | full s | top1 s | top3 s | top5 s | heur. s | top3 x | "
                 "full pick | full ms | top1/full | top3/full | top5/full | heur./full | cuBLAS ms | full/cuBLAS | top3 pick |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for s in shapes:
        mark = "" if s["full_cold_direct_s"] else "*"
        lines.append(
            f"| {s['case'].replace(':rr', '')} | {s['model']} | {fmt(s['full_cold_s'], '.0f')}{mark} | "
            f"{fmt(s['top1_s'], '.2f')} | {fmt(s['top3_s'], '.2f')} | {fmt(s['top5_s'], '.2f')} | "
            f"{fmt(s['heuristics_s'], '.2f')} | {fmt(s['top3_speedup'], '.0f')} | {s['full_pick']} | "
            f"{fmt(s.get('full_ms'), '.4f')} | {fmt(s.get('top1_ratio'), '.3f')} | {fmt(s.get('top3_ratio'), '.3f')} | "
            f"{fmt(s.get('top5_ratio'), '.3f')} | {fmt(s.get('heuristics_ratio'), '.3f')} | "
            f"{fmt(s.get('cublas_ms'), '.4f')} | "
            f"{fmt(s['full_ms'] / s['cublas_ms'] if s.get('full_ms') and s.get('cublas_ms') else None, '.2f')} | "
            f"{s['top3_pick']}{'' if s['ok'] else ' CHECK FAILED'} |")
    done = [s for s in shapes if s.get("full_ms")]
    lines.append("")
    lines.append(f"shapes complete: {len(done)} of {len(shapes)} with a full autotune; "
                 f"checks all ok: {all(s['ok'] for s in shapes)}")
    lines.append(f"geomean full cold tuning s: {gmean([s['full_cold_s'] for s in done]):.1f}")
    for v in COLD_VARIANTS:
        sp = [s[f'{v}_speedup'] for s in done]
        rt = [s[f'{v}_ratio'] for s in done if s.get(f'{v}_ratio')]
        worst = max(rt) if rt else float("nan")
        wcase = max(done, key=lambda s: s.get(f'{v}_ratio') or 0)["case"] if rt else "-"
        lines.append(f"{v:<10}: tuning s geomean {gmean([s[f'{v}_s'] for s in done]):.2f}, speed-up over full geomean "
                     f"{gmean(sp):.1f} (min {min([x for x in sp if x] or [float('nan')]):.1f}); kernel time / full's: "
                     f"geomean {gmean(rt):.4f}, worst {worst:.4f} ({wcase}); picks == full's: "
                     f"{sum(1 for s in done if s[f'{v}_pick'] == s['full_pick'])}/{len(done)}")
    # The same question from the full autotune's own timings of all 168 configs (one do_bench each):
    # how much slower is the best config a pruned variant kept than the grid's best?
    rows = read_jsonl(path)
    kept = {(r["case"], r["variant"]): r["kept"] for r in rows if r.get("cache") == "cold" and r.get("kept")}
    for v in ("top1", "top3", "top5"):
        reg = []
        for s in done:
            t = warm[s["case"]].get("autotuner_ms") or {}
            k = kept.get((s["case"], v))
            if t and k:
                reg.append((min(t[c] for c in k) / min(t.values()), s["case"]))
        if reg:
            worst = max(reg)
            lines.append(f"{v:<10}: best kept config / grid's best, by the full autotune's own timings: geomean "
                         f"{gmean([r for r, _ in reg]):.4f}, worst {worst[0]:.4f} ({worst[1]}); the grid's best kept "
                         f"on {sum(1 for r, _ in reg if r == 1.0)}/{len(reg)}")
    lines.append(f"full / cuBLAS geomean {gmean([s['full_ms'] / s['cublas_ms'] for s in done]):.3f}; "
                 f"top3 / cuBLAS geomean {gmean([s['top3_ms'] / s['cublas_ms'] for s in done if s.get('top3_ms')]):.3f}")
    spreads = [s["full_round_spread"] for s in done if s.get("full_round_spread") is not None]
    if spreads:
        lines.append(f"round-to-round spread of the full pick's time: median {sorted(spreads)[len(spreads) // 2]:.4f}, "
                     f"max {max(spreads):.4f}")
    for case, r in direct.items():
        w = warm.get(case)
        cc = r["compile_s"]
        lines.append(f"direct cold full {case}: tune {r['tune_s']:.1f} s = compile {cc:.1f} s ({r['n_compiled']} "
                     f"configs) + bench {r['bench_s']:.1f} s ({r['n_bench']}) + other "
                     f"{r['tune_s'] - cc - r['bench_s']:.1f} s; lock wait {r['lock_wait_s']:.1f} s; pick {r['chosen']}"
                     + (f"; warm run of the same shape: tune {w['tune_s']:.1f} s (load {w['compile_s']:.1f} s, "
                        f"bench {w['bench_s']:.1f} s), pick {w['chosen']}; estimate {cc + w['tune_s'] - w['compile_s']:.1f} s "
                        f"vs direct {r['tune_s']:.1f} s" if w else ""))
    if meta and "compile_all_sum_s" in meta:
        lines.append(f"compile_all per-class sum of compile times ({meta.get('compile_all_workers')} workers): "
                     f"{meta['compile_all_sum_s']}")
    lines.append("* full s not measured directly: class compile (direct run of the class) + warm tuning - warm load")
    return "\n".join(lines)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child_main(json.loads(sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder: e2e.jsonl, compile_all.jsonl, meta.json, smoke.jsonl")
    ap.add_argument("--cases", default=",".join(CASES), help="comma list of MxNxK:dtype:rr")
    ap.add_argument("--direct", default=",".join(DIRECT), help="cases for a direct cold full autotune")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 4) - 8))
    ap.add_argument("--cold-parallel", type=int, default=3, help="cold child processes at a time per GPU")
    ap.add_argument("--deadline-s", type=float, default=470, help="start no new shape after this")
    ap.add_argument("--hard-deadline-s", type=float, default=545, help="kill children after this")
    ap.add_argument("--no-smoke", action="store_true")
    ap.add_argument("--summarize", help="print the summary of an e2e.jsonl and exit")
    args = ap.parse_args()
    if args.summarize:
        meta_path = pathlib.Path(args.summarize).with_name("meta.json")
        meta = json.load(open(meta_path)) if meta_path.exists() else None
        print(summarize(args.summarize, meta))
        return
    if not args.out:
        ap.error("--out is required")
    orchestrate(args)


if __name__ == "__main__":
    main()
