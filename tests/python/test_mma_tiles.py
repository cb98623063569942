"""The tiles that compile to mma.sync: their stages in flight (stages - 1) and
mma_rate_share, as docs/model.md §3 and data/h100-triton-splitk-bm16-mid's
README state them; scripts/mma_stage_pairs.py and scripts/fit_mma_rate.py,
and their refusals."""

import json
import pathlib
import re
import subprocess
import sys

from conftest import CLI, cli_json, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
MID = ROOT / "data/h100-triton-splitk-bm16-mid"
SETS = (MID / "mid", MID / "odd")


def script(name, *args):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def pairs(*args):
    p = script("mma_stage_pairs.py", *args)
    assert p.returncode == 0, p.stderr
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+(\d/\d)\s+(split|unsplit)\s+(M=1|M>1)\s+(bk\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m:
            rows[m.groups()[:4]] = (int(m[5]), float(m[6]), float(m[7]))
    return rows


def test_one_stage_more_of_an_mma_tile_is_priced_as_measured_on_the_h200_sets():
    rows = pairs()  # every folder of data/h200-triton-splitk-bm16*
    assert len(rows) == 16
    for key, (n, measured, predicted) in rows.items():
        assert n >= 30, key
        # With stages - 2 in flight, 4 stages over 3 were priced 0.64-0.71
        # unsplit against 0.86-0.99 measured; now within 0.055 everywhere
        # (0.05 before B's reuse in L2 and sm_overlap_power: unsplit block_K
        # 64 at M > 1 is 0.053 off since).
        assert abs(measured - predicted) < 0.055, (key, measured, predicted)


def test_the_fresh_h100_set_prices_one_stage_more_as_measured_and_its_readme_says_so():
    rows = pairs("--device", "h100-sxm", *SETS)
    assert len(rows) == 8
    for key, (n, measured, predicted) in rows.items():
        # Within 0.06: the bytes-in-flight term (fitted on the H200) prices a
        # fifth stage of block_K 128 unsplit 0.995 where this H100 measured
        # 0.943; stages - 2 in flight was off by 0.2 and more.
        assert abs(measured - predicted) < 0.06, (key, measured, predicted)
    readme = (MID / "README.md").read_text()
    for stages, split, label in (("4/3", "unsplit", "4 stages over 3, unsplit"), ("5/4", "unsplit", "5 over 4, unsplit"),
                                 ("4/3", "split", "4 over 3, split"), ("5/4", "split", "5 over 4, split")):
        got = [rows[k] for k in rows if k[0] == stages and k[1] == split]
        plo, phi = min(p for _, _, p in got), max(p for _, _, p in got)
        line = next((l for l in readme.splitlines() if l.strip().startswith(f"| {label} |")), "")
        assert line.rstrip().endswith(f"| {plo:.2f}–{phi:.2f} |"), (line, plo, phi)
    four_three = [rows[k] for k in rows if k[0] == "4/3" and k[1] == "unsplit"]
    lo, hi = min(m for _, m, _ in four_three), max(m for _, m, _ in four_three)
    assert f"| 4 stages over 3, unsplit | {lo:.2f}–{hi:.2f} | 0.64–0.71 | 0.89–0.95 |" in readme


def test_the_fresh_h100_set_scores_as_its_readme_says():
    # The family of its day (data/archive/README.md) on the preset of its day
    # (no power term), then today's.
    d = cli_json("validate", *SETS, "--family-file", ROOT / "data/archive/triton-before-split-overrun.json",
                 "--power-budget", 0)
    assert d["device"] == "h100-sxm"
    s = d["summary"]["calibrated"]
    assert s["shapes"] == 11
    readme = (MID / "README.md").read_text()
    row = (f"| 11 shapes, with the term and `mma_copy_warp_power` (later still) | {s['top1_geomean']:.3f} / {s['top1_worst']:.3f} "
           f"(1.023 / 1.110) | {s['top5_geomean']:.3f} (1.009) | **{s['spearman_mean']:.3f}** (0.759) |")
    assert row in readme, row
    t = cli_json("validate", *SETS)["summary"]["calibrated"]
    row = (f"| 11 shapes, today's family (the split-K overrun terms, later again) | {t['top1_geomean']:.3f} / "
           f"{t['top1_worst']:.3f} (1.023 / 1.110) | {t['top5_geomean']:.3f} (1.009) | **{t['spearman_mean']:.3f}** (0.759) |")
    assert row in readme, row
    split = [json.loads((x / "split.json").read_text()) for x in SETS]
    assert all(x["calibration"] == [] for x in split)
    assert sum(len(x["held_out"]) for x in split) == 11


def test_the_fit_reproduces_the_family_s_share():
    # Fitted on the family of its day (data/archive/README.md).
    p = script("fit_mma_rate.py", "--family-file", ROOT / "data/archive/triton-before-split-overrun.json")
    assert p.returncode == 0, p.stderr
    family = json.loads((ROOT / "data/families/triton.json").read_text())
    share = family["time"]["constants"]["mma_rate_share"]["value"]
    assert f"fitted: mma_rate_share {share:.3f}" in p.stdout
    assert "fit_mma_rate.py" in family["time"]["constants"]["mma_rate_share"]["fitted_on"]
    # At the full rate the mma tiles run slower than predicted next to the wgmma tiles.
    full = [l for l in p.stdout.splitlines() if l.strip().startswith("1.000")]
    assert len(full) == 1 and float(full[0].split()[3]) > 0.05, full


def test_refusals(tmp_path):
    script_error(script("fit_mma_rate.py", "--shares", "0,0.5"), "fit_mma_rate.py: --shares")
    script_error(script("fit_mma_rate.py", "--shares", "abc"), "fit_mma_rate.py: --shares")
    script_error(script("fit_mma_rate.py", "--min-m", "0"), "fit_mma_rate.py: --min-m 0")
    script_error(script("fit_mma_rate.py", tmp_path), "fit_mma_rate.py: ")
    script_error(script("fit_mma_rate.py", "--min-m", "100000", SETS[0]), "fit_mma_rate.py: the datasets hold no")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "timings.jsonl").write_text('{"key": "16x64x64_s3_w4_k1_none", "M": 1, "N": 2, "K": 3, "rel_err": 0, "ms": -1}\n')
    script_error(script("fit_mma_rate.py", bad), "fit_mma_rate.py: ")
    script_error(script("mma_stage_pairs.py", bad), "mma_stage_pairs.py: ")
    (bad / "timings.jsonl").write_text("not json\n")
    script_error(script("mma_stage_pairs.py", bad), "mma_stage_pairs.py: ")
    script_error(script("mma_stage_pairs.py", "--near", "0.5"), "mma_stage_pairs.py: --near 0.5")
    script_error(script("mma_stage_pairs.py", "--near", "x"), "mma_stage_pairs.py: ")
    script_error(script("mma_stage_pairs.py", tmp_path / "none"), "mma_stage_pairs.py: ")
