#!/usr/bin/env python3
"""Why does a fifth stage of 64x256x64 lose where the grid runs many waves?

Over the H200 datasets, with one block per SM, 64x256x64 with 4 warps and 5
stages runs as the model predicts against 4 stages (about 5% faster) where
the grid is one wave, and 5-18% slower where it runs four to seven waves
(A and B row-major: the measured ratio over the predicted one, median per
grid size, 1.00 up to 132 programs, 1.10 past 528; B K-major 1.01 -> 1.06).
The model has those grids L2-bound. This probe times the tile at 3, 4 and 5
stages beside neighbours (64x256x32 at two blocks per SM, 128x128x64,
128x256x64 with 8 warps) on one-wave and many-wave shapes, and the same tile
with GROUP_M = 1 (no grouped program order) to see whether the programs'
sharing of B's panels in L2 is what a deeper pipeline disturbs. Every
element of C is checked against the fp32 product; each variant is timed
with do_bench (median) in interleaved rounds. With --ncu it profiles
NCU_VARIANTS once each on NCU_CASES (one ncu process per case): DRAM bytes,
the L2's read sectors and hits, its throughput, and the warps' stall reasons.

    python3 bench/gpu/stage_depth_probe.py --out DIR [--rounds 3] [--ncu] [--cases C,...] [--ncu-cases C,...]

Writes DIR/probe.jsonl (one line per case, variant and round), prints a
table of medians, and with --ncu DIR/ncu/<case>.csv (ncu's --csv output).

--power runs each variant back to back for --power-s seconds (the L2
flushed between launches, as do_bench does) while NVML is read every 10 ms
(the harness's ClockSampler), and writes DIR/power.jsonl (one line per case
and variant: launches, the mean time per launch from CUDA events, the median
SM clock and power of the samples after the first quarter, and the
clock-event reasons seen). Under Nsight Compute (one launch,
idle GPU) the fifth stage is no slower; under do_bench it is.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_util as pu  # noqa: E402

CASES = ["1024x14336x4096:float16:rr", "555x14336x12288:float16:rr", "4096x4096x4096:float16:rr",
         "384x4096x4096:float16:rr", "1024x14336x4096:float16:rc"]
VARIANTS = ["64x256x64_s3_w4", "64x256x64_s4_w4", "64x256x64_s5_w4", "64x256x32_s4_w4", "64x256x32_s5_w4",
            "128x128x64_s4_w4", "128x128x64_s5_w4", "128x256x64_s3_w8", "128x256x64_s4_w8",
            "64x256x64_s4_w4_g1", "64x256x64_s5_w4_g1"]
NCU_CASES = ["1024x14336x4096:float16:rr", "384x4096x4096:float16:rr"]
NCU_VARIANTS = ["64x256x64_s4_w4", "64x256x64_s5_w4", "64x256x64_s4_w4_g1", "64x256x64_s5_w4_g1"]
NCU_METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__cycles_active.avg",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio",
]


def config(h, key):
    """A configuration key of the harness, with an optional _gG suffix: GROUP_M = G."""
    base, _, group = key.partition("_g") if key.count("_") == 3 else (key, "", "")
    cfg = h.parse_config_key(base)
    if group:
        cfg["group_m"] = int(group)
        cfg["key"] = key
    return cfg


def variant(h, case, key):
    """pu.tutorial_variant with the _gG suffix of the key read as GROUP_M."""
    return pu.tutorial_variant(h, case, key, config(h, key))


def power_runs(h, parsed, out_dir, seconds):
    """Each (case, variant) back to back for `seconds`, the L2 flushed between
    launches as do_bench does, sampled by the harness's ClockSampler (NVML)."""
    import torch

    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    sampler = h.ClockSampler()
    if not sampler.ok:
        raise SystemExit("stage_depth_probe.py: --power needs NVML (libnvidia-ml.so.1)")
    with open(os.path.join(out_dir, "power.jsonl"), "w") as f:
        for case in parsed:
            for key in VARIANTS:
                row, launch = variant(h, case, key)
                assert row["nans"] == 0 and row["rel_err"] < 1e-2, row
                torch.cuda.synchronize()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                ms, n = 0.0, 0
                t0 = time.monotonic()
                while time.monotonic() - t0 < seconds:
                    for _ in range(20):
                        flush.zero_()
                        start.record()
                        launch()
                        end.record()
                        end.synchronize()
                        ms += start.elapsed_time(end)
                        n += 1
                # The first quarter is the clock settling from the pause before.
                rec = dict(row, launches=n, ms=ms / n, **sampler.window(t0 + 0.25 * seconds, time.monotonic()))
                f.write(json.dumps(rec) + "\n")
                print(f"{row['case']:28s} {key:20s} {rec['ms'] * 1e3:9.1f} us  clock {rec.get('sm_clock_mhz')}  "
                      f"power {rec.get('power_w')}  {rec.get('clock_reasons')}", flush=True)
                time.sleep(0.5)
    sampler.close()


def main():
    import torch
    import triton_gemm_harness as h

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--cases", default=",".join(CASES), help="cases to time (default CASES)")
    ap.add_argument("--ncu-cases", default=",".join(NCU_CASES), help="cases to profile (default NCU_CASES)")
    ap.add_argument("--power", action="store_true", help="sustained runs sampled through NVML instead of do_bench")
    ap.add_argument("--power-s", type=float, default=1.5, help="seconds of each sustained run (default 1.5)")
    ap.add_argument("--one", help="(internal) launch each NCU_VARIANTS once on this case, for ncu")
    args = ap.parse_args()
    if not 1 <= args.rounds <= 100:
        ap.error(f"--rounds {args.rounds}: from 1 to 100")
    if not 0.1 <= args.power_s <= 60:  # NaN fails too
        ap.error(f"--power-s {args.power_s}: seconds from 0.1 to 60")
    try:
        parsed = [h.parse_case(c) for c in args.cases.split(",")]
        [h.parse_case(c) for c in args.ncu_cases.split(",")]
    except argparse.ArgumentTypeError as e:
        ap.error(f"--cases or --ncu-cases: {e}")
    torch.manual_seed(20261205)
    if args.one:
        case = h.parse_case(args.one)
        for key in NCU_VARIANTS:
            _, launch = variant(h, case, key)
            launch()
            torch.cuda.synchronize()
        return
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    h.compile_all(sorted({c.klass() for c in parsed}), [config(h, k) for k in VARIANTS], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    if args.power:
        power_runs(h, parsed, args.out, args.power_s)
        return
    t0 = time.perf_counter()
    launches, rows = {}, {}
    for case in parsed:
        for key in VARIANTS:
            row, launch = variant(h, case, key)
            launches[(case, key)] = launch
            rows[(case, key)] = row
            assert row["nans"] == 0 and row["rel_err"] < 1e-2, row
    times = pu.timing_rounds(launches, rows, args.rounds, os.path.join(args.out, "probe.jsonl"))
    print(f"# timing {time.perf_counter() - t0:.1f} s", flush=True)
    pu.print_medians(parsed, VARIANTS, times, lambda case: case.name())
    if args.ncu:
        me = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one"]
        pu.ncu_each([(c.replace(":", "_"), me + [c]) for c in args.ncu_cases.split(",")], NCU_METRICS,
                    os.path.join(args.out, "ncu"))


if __name__ == "__main__":
    main()
