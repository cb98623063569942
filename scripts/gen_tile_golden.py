#!/usr/bin/env python3
"""Generate tests/golden/tile_seed.json from the reference tile_decision.py.

The reference script (../shared/reference/tile_decision.py) is the oracle for
`tileplan tile --model seed`. This script imports it, runs its `sweep` and its
`evaluate` + `finish_parallelism` over many argument sets, and records every
number of every configuration, in ranked order. The device values come from the
built tool (`tileplan devices --format json`), so a preset change shows up as a
golden diff.

    python3 scripts/gen_tile_golden.py [--reference DIR] [--tileplan build/release/tileplan]

DIR is the folder that holds tile_decision.py (default: ../shared/reference/
beside the repository).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference"


def load_reference(directory: pathlib.Path):
    path = directory / "tile_decision.py"
    if not path.is_file():
        raise SystemExit(f"{path}: not found; give the folder that holds tile_decision.py with --reference")
    spec = importlib.util.spec_from_file_location("tile_decision", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tile_decision"] = mod  # dataclasses resolve their module by name
    spec.loader.exec_module(mod)
    return mod


def ref_device(ref, preset, sm_count=None, smem_kb=None):
    d = ref.Device(
        smem_per_sm=preset["smem_per_sm_bytes"],
        smem_per_block_max=preset["smem_per_block_max_bytes"],
        regs_per_sm=preset["regs_per_sm"],
        max_threads_per_sm=preset["max_threads_per_sm"],
        max_threads_per_block=preset["max_threads_per_block"],
        max_blocks_per_sm=preset["max_blocks_per_sm"],
        regs_per_thread_max=preset["regs_per_thread_max"],
        reg_granularity_per_warp=preset["reg_alloc_unit"],
        warp_size=preset["warp_size"],
        sm_count=preset["sm_count"],
    )
    if sm_count is not None:
        d.sm_count = sm_count
    if smem_kb is not None:  # exactly what the reference's main() does
        d.smem_per_sm = smem_kb * 1024
        d.smem_per_block_max = smem_kb * 1024 - 1024
    return d


COLUMNS = ["block_m", "block_n", "block_k", "stages", "threads", "smem_per_stage_bytes", "smem_bytes",
           "accum_per_thread", "regs_per_thread", "regs_per_block", "blocks_by_regs", "blocks_by_smem",
           "blocks_by_threads", "blocks_per_sm", "binding", "grid", "waves", "last_wave_fill", "dram_bytes",
           "failures", "warnings"]


def row(v):
    """One configuration as a list in COLUMNS order (keeps the golden file small)."""
    c = v.config
    return [c.block_m, c.block_n, c.block_k, c.stages, c.threads, v.smem_per_stage, v.smem_total,
            v.accum_elems_per_thread, v.regs_per_thread, v.regs_per_block, v.blocks_by_regs,
            v.blocks_by_smem, v.blocks_by_threads, v.blocks_per_sm, v.binding, v.grid, v.waves,
            v.last_wave_fill, v.dram_traffic,
            # Constraint ids only: the wording is ours, the verdict is the reference's.
            [f.split(" ")[0] for f in v.failures], [w.split(" ")[0] for w in v.warnings]]


SHAPES = [(4096, 4096, 4096), (128, 4096, 4096), (16, 4096, 4096), (1024, 1024, 8192),
          (8192, 8192, 8192), (100, 300, 50), (1, 1, 1), (4096, 11008, 4096), (3000, 5000, 64),
          (65536, 65536, 24)]
DEVICE_CASES = [("h200", None, None), ("h100-pcie", None, None), ("a100-sxm", None, None),
                ("l40s", None, None), ("rtx-4090", None, None), ("h200", 108, None),
                ("h200", None, 100), ("h200", 1, 64), ("h100-sxm", 66, 164), ("h200", None, 17)]
CONFIGS = [(128, 128, 32, 3, 256), (256, 256, 128, 4, 128), (256, 256, 64, 3, 512), (64, 64, 16, 2, 128),
           (16, 16, 16, 2, 32), (100, 60, 20, 3, 96), (128, 256, 64, 3, 1024), (128, 256, 64, 3, 2048),
           (256, 128, 64, 5, 128), (64, 8, 16, 1, 128), (512, 512, 64, 2, 1024), (1, 1, 1, 1, 1),
           (32, 32, 16, 8, 64), (256, 256, 16, 2, 128), (128, 128, 128, 7, 256), (64, 256, 32, 4, 384)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", type=pathlib.Path, default=DEFAULT_REFERENCE,
                    help="folder holding tile_decision.py (default: %(default)s)")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    ap.add_argument("--out", default=str(ROOT / "tests" / "golden" / "tile_seed.json"))
    args = ap.parse_args()
    ref = load_reference(args.reference)
    presets = {d["name"]: d for d in json.loads(
        subprocess.run([args.tileplan, "devices", "--format", "json"], check=True, capture_output=True,
                       text=True).stdout)}

    sweeps = []
    for instr in ("wgmma", "mma", "simt"):
        for (m, n, k) in SHAPES:
            cases = DEVICE_CASES if (m, n, k) == SHAPES[0] else DEVICE_CASES[:1]
            for (name, sms, kb) in cases:
                dev = ref_device(ref, presets[name], sms, kb)
                with contextlib.redirect_stdout(io.StringIO()):
                    results = ref.sweep(m, n, k, dev, ref.Config(16, 16, 16, 3, 128, instr), 15)
                sweeps.append({"m": m, "n": n, "k": k, "instr": instr, "device": name, "sm_count": sms,
                               "smem_kb": kb, "candidates": [row(v) for v in results]})

    diagnoses = []
    for instr in ("wgmma", "mma", "simt"):
        for (bm, bn, bk, st, th) in CONFIGS:
            for (m, n, k) in SHAPES[:4] + SHAPES[5:7]:
                for (name, sms, kb) in (DEVICE_CASES[0], DEVICE_CASES[4], DEVICE_CASES[7]):
                    dev = ref_device(ref, presets[name], sms, kb)
                    cfg = ref.Config(bm, bn, bk, st, th, instr)
                    v = ref.evaluate(cfg, dev)
                    ref.finish_parallelism(v, m, n, dev)
                    v.dram_traffic = ref.dram_traffic(m, n, k, cfg)
                    diagnoses.append({"m": m, "n": n, "k": k, "instr": instr, "device": name, "sm_count": sms,
                                      "smem_kb": kb, "candidate": row(v)})

    out = {"generator": "scripts/gen_tile_golden.py", "reference": "shared/reference/tile_decision.py",
           "columns": COLUMNS,
           "sweeps": sweeps, "diagnoses": diagnoses}
    pathlib.Path(args.out).write_text(json.dumps(out, separators=(",", ":")) + "\n")
    n_rows = sum(len(s["candidates"]) for s in sweeps)
    print(f"wrote {args.out}: {len(sweeps)} sweeps ({n_rows} ranked configurations), {len(diagnoses)} diagnoses")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
