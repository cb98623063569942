"""data/h100-triton-v47 and data/h100-triton-pad1: the H100 checks across
devices, as their READMEs and docs/model.md state them (the shipped family,
planned with the h100-sxm and the h200 presets), and scripts/padding_pairs.py's
refusals."""

import json
import math
import pathlib
import subprocess
import sys

import pytest

from conftest import CLI, cli_json, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-v47"
PAD1 = ROOT / "data/h100-triton-pad1"


def gate_tests():
    """The text of the CI gate's tests (the held-out thresholds and the known misses)."""
    text = (ROOT / "tests/cli/model_cli_test.cpp").read_text()
    out = []
    for name in ("Validate_TypesAndClasses_HeldOutMeetCommittedThresholds", "Validate_KnownMisses_StayBounded"):
        start = text.index(f"TEST(ModelCli, {name})")
        out.append(text[start:text.index("\nTEST(", start + 1)])
    return "".join(out)


def summary(device):
    d = cli_json("validate", DATA, "--device", device)
    assert d["device"] == device
    return d["summary"]["calibrated"]


def test_readme_rows_are_the_tool_s_output():
    readme = (DATA / "README.md").read_text()
    for device, bold in (("h100-sxm", True), ("h200", False)):
        s = summary(device)
        assert s["shapes"] == 17
        score = f"{s['top1_geomean']:.3f} / {s['top1_worst']:.3f}"
        if bold:
            score = f"**{score}**"
        row = f"| as shipped | `{device}` | {score} | {s['top5_geomean']:.3f} | {s['spearman_mean']:.3f} |"
        assert row in readme, row


def test_the_set_is_held_out_and_off_the_h200_gate():
    # Every case held out; the H200 gate's dataset list does not name it.
    split = json.loads((DATA / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 17
    assert "h100" not in gate_tests()


def padding_pairs(*args):
    return subprocess.run([sys.executable, str(ROOT / "scripts/padding_pairs.py"), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_pad1_readme_table_is_the_script_s_output_on_the_h100_preset():
    p = padding_pairs("--device", "h100-sxm", PAD1)
    assert p.returncode == 0, p.stderr
    readme = (PAD1 / "README.md").read_text()
    rows = [l for l in p.stdout.splitlines() if l.startswith("|")]
    assert len(rows) == 2 + 8, p.stdout
    for row in rows:
        assert row in readme, row
    assert "agrees with the measurement on 8 of 8 pairs" in p.stdout
    # Every word agrees since the power term; the pair where only C loses its
    # vectors, "pays" before it, is "even" (its measured gain 1.03).
    cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]
    wrong = [c for c in cells if (c[6] == "pays") != (float(c[3]) >= 1.05)]
    assert wrong == [], wrong
    assert next(c for c in cells if c[0] == "777x32001x4096")[6] == "even"


def test_pad1_picks_and_the_set_is_held_out_and_off_the_h200_gate():
    s = cli_json("validate", PAD1, "--device", "h100-sxm")["summary"]["calibrated"]
    assert s["shapes"] == 16
    line = (f"top-1 geomean {s['top1_geomean']:.3f}, worst {s['top1_worst']:.3f}, best of top 5\n"
            f"  {s['top5_geomean']:.3f}, mean Spearman {s['spearman_mean']:.3f}")
    assert line in (PAD1 / "README.md").read_text(), line
    split = json.loads((PAD1 / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 16
    assert "h100" not in gate_tests()


@pytest.mark.parametrize("args, prefix", [
    (("--device", "h999", PAD1), "padding_pairs.py: 1x8192x8192 bfloat16: tileplan tile: tileplan: --device 'h999'"),
    (("--bogus",), "padding_pairs.py: unrecognized arguments: --bogus"),
    (("/nonexistent",), "padding_pairs.py: no measured pair"),
])
def test_padding_pairs_refuses_in_one_line(args, prefix):
    script_error(padding_pairs(*args), prefix)


def test_padding_pairs_refuses_malformed_rows_and_a_missing_tool(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "scripts/padding_pairs.py"), "--tileplan", str(tmp_path / "none"),
                        PAD1], capture_output=True, text=True, timeout=60, cwd=ROOT)
    script_error(p, "padding_pairs.py: --tileplan")
    good = '{"M": 1000, "N": 4096, "K": 4096, "key": "64x64x32_s3_w4", "ms": 0.1}\n'
    for bad, says in (("{not json", "not a JSON object"), ("[1, 2]", "a row is a JSON object"),
                      ('{"M": -1, "N": 4096, "K": 4096, "key": "64x64x32_s3_w4", "ms": 0.1}', "M, N and K must be"),
                      ('{"M": 1000, "N": 4096, "K": 4096, "key": "64x64x32_s3_w4", "ms": "fast"}', "ms must be"),
                      ('{"M": 1000, "N": 4096, "K": 4096, "key": "64x64x32_s3_w4", "ms": -0.5}', "ms must be")):
        (tmp_path / "timings.jsonl").write_text(good + bad + "\n")
        script_error(padding_pairs(tmp_path), f"padding_pairs.py: {tmp_path}/timings.jsonl:2: {says}")


SPLITK = ROOT / "data/h100-triton-splitk-any"


BEFORE = ROOT / "data/archive/triton-before-split-overrun.json"


def splitk_row(dataset, device, label, bold=False, family=()):
    d = cli_json("validate", dataset, "--device", device, *family)
    s = d["summary"]["calibrated"]
    assert s["shapes"] == 16
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    cublas = geo([r["cublas_ms"] / r["pick_ms"] for r in d["shapes"]])
    unsplit = geo([r["best_unsplit_ms"] / r["pick_ms"] for r in d["shapes"]])
    cells = [f"{s['top1_geomean']:.3f} / {s['top1_worst']:.3f} / {s['top5_geomean']:.3f}", f"{cublas:.3f}",
             f"{unsplit:.3f}"]
    if bold:
        cells = [f"**{c}**" for c in cells]
    return f"| {label} | " + " | ".join(cells) + " |", d


def test_splitk_readme_rows_are_the_tool_s_output():
    readme = (SPLITK / "README.md").read_text()
    # The family of its day (data/archive/README.md) on the preset of its day
    # (no power term), then today's.
    row, d = splitk_row(SPLITK, "h100-sxm", "H100 (`h100-sxm`)", bold=True,
                        family=("--family-file", BEFORE, "--power-budget", 0))
    assert row in readme, row
    for dataset, device, label in ((SPLITK, "h100-sxm", "H100 (`h100-sxm`)"), (SPLITK, "h200", "H100 (`h200`)"),
                                   (ROOT / "data/h200-triton-splitk-any", "h200", "H200 (`h200`)")):
        if device == "h200":
            row, _ = splitk_row(dataset, device, label, family=("--family-file", BEFORE))
            assert row in readme, row
        row, _ = splitk_row(dataset, device, label + ", today's family")
        assert row in readme, row
    # The README's claim: ten of the eleven shapes chosen for a split of 3 or
    # 5 measured best with 3 or 5 on this device as well.
    chosen = {"128x5120x13824", "256x5120x13824", "512x5120x13824", "192x3584x18944", "384x3584x18944",
              "192x3072x8192", "384x3072x8192", "256x2560x10240", "512x2560x10240", "768x1024x16384",
              "1024x768x12288"}
    best = {r["shape"]: r["best_key"] for r in d["shapes"] if r["shape"] in chosen}
    assert len(best) == 11
    assert sum(k.split("_k")[1].split("_")[0] in ("3", "5") for k in best.values()) == 10, best
    split = json.loads((SPLITK / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 16


def test_docs_h100_time_ratios_are_the_tool_s():
    """docs/model.md §5, "h100-pad1 and h100-splitk-any": the picks' measured
    over predicted time on the H100 sets (their presets matched from
    meta.json) beside the H200's own."""
    docs = (ROOT / "docs/model.md").read_text()
    start = docs.index("### h100-pad1 and h100-splitk-any")
    section = " ".join(docs[start:docs.index("\n### ", start + 1)].split())

    def ratio(*args):
        d = cli_json("validate", *args)
        return f"{d['summary']['calibrated']['time_ratio']['geomean']:.3f}"

    want = (f"measured over predicted time is {ratio(DATA)} on h100-v47 (the same cases on the H200: "
            f"{ratio(ROOT / 'data/h200-triton-v47')}) and {ratio(SPLITK)} on "
            f"h100-splitk-any (the same shapes on the H200: {ratio(ROOT / 'data/h200-triton-splitk-any')})")
    assert want in section, want
    assert cli_json("validate", PAD1)["device"] == "h100-sxm"


def test_nbits1_readme_table_is_the_script_s_output():
    nbits = ROOT / "data/h100-triton-nbits1"
    p = subprocess.run([sys.executable, str(ROOT / "scripts/stage_pairs.py"), "--class", "float16:rr:MnK", "--tile",
                        "256x64x64_w4", "--stages", "3,2", nbits], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    readme = (nbits / "README.md").read_text()
    cases = [l.split() for l in p.stdout.splitlines() if "N aligned to" in l and "x" in l.split()[0]]
    assert len(cases) == 4, p.stdout
    for shape, _, _, _, bits, ratio, _ in cases:
        row = f"| {shape} | {bits} | {ratio} |"
        assert row in readme, row
    s = cli_json("validate", nbits)
    assert s["device"] == "h100-sxm"
    c = s["summary"]["calibrated"]
    assert f"{c['top1_geomean']:.3f} / {c['top1_worst']:.3f}, best of top 5 {c['top5_geomean']:.3f}" in \
        " ".join(readme.split())
    split = json.loads((nbits / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 11 and len(split["measured"]) == 4


def test_nbits2_readme_figures_are_the_tool_s(tmp_path):
    """data/h100-triton-nbits2: the README's two rows are what validate
    prints with the shipped family and with it less aligned_b_stage_share,
    and the term's case is the one the README makes: better overall, the
    controls untouched."""
    nbits = ROOT / "data/h100-triton-nbits2"
    readme = " ".join((nbits / "README.md").read_text().split())
    family = json.loads((ROOT / "data/families/triton.json").read_text())
    family["time"]["constants"].pop("aligned_b_stage_share")
    without_path = tmp_path / "without.json"
    without_path.write_text(json.dumps(family))
    rows = []
    for args in ((), ("--family-file", without_path)):
        s = cli_json("validate", nbits, *args)
        assert s["device"] == "h100-sxm"
        c = s["summary"]["calibrated"]
        rows.append((c["top1_geomean"], c["top1_worst"]))
        assert f"{c['top1_geomean']:.3f} / {c['top1_worst']:.3f}" in readme
        if not args:
            controls = {x["shape"]: x["calibrated"]["top1_regret"] for x in s["shapes"]
                        if x["shape"].split(":")[0] in ("6144x2057x2048", "2048x7001x2048", "4096x2601x4096")}
            assert len(controls) == 3 and all(r == 1.0 for r in controls.values()), controls
    assert rows[0][0] < rows[1][0] and rows[0][1] < rows[1][1]
    split = json.loads((nbits / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 13 and len(split["measured"]) == 13
    assert "h100" not in gate_tests()


def test_nbits2_again_repeats_the_first_run(tmp_path):
    """data/h100-triton-nbits2-again: its README's figures (this run and the
    first, with the shipped family and with it less aligned_b_stage_share)
    are what validate prints, and its picks are the first run's."""
    again, first = ROOT / "data/h100-triton-nbits2-again", ROOT / "data/h100-triton-nbits2"
    readme = " ".join((again / "README.md").read_text().replace("**", "").split())
    family = json.loads((ROOT / "data/families/triton.json").read_text())
    family["time"]["constants"].pop("aligned_b_stage_share")
    without_path = tmp_path / "without.json"
    without_path.write_text(json.dumps(family))
    for args in ((), ("--family-file", without_path)):
        now, before = cli_json("validate", again, *args), cli_json("validate", first, *args)
        assert now["device"] == "h100-sxm"
        c, b = now["summary"]["calibrated"], before["summary"]["calibrated"]
        assert (f"{c['top1_geomean']:.3f} / {c['top1_worst']:.3f} | {c['top5_geomean']:.3f} | "
                f"{b['top1_geomean']:.3f} / {b['top1_worst']:.3f} |") in readme
        if not args:
            picks = lambda s: {x["shape"]: x["calibrated"]["top1_key"] for x in s["shapes"]}
            assert picks(now) == picks(before)
    split = json.loads((again / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 13
    assert "nbits2-again" not in gate_tests()


def test_batch_emit_check_readme_is_its_results():
    """data/h100-batch-emit: every tuned choice is in its list, the largest
    error and the two decode steps the union improves are the README's."""
    d = ROOT / "data/h100-batch-emit"
    readme = " ".join((d / "README.md").read_text().split())
    meta = json.loads((d / "meta.json").read_text())
    rows = [json.loads(line) for line in (d / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 13 and meta["failures"] == []
    worst = 0.0
    outside = {}
    for r in rows:
        for label, v in r["variants"].items():
            assert v["chosen"] in meta["lists"][label][r["list"]], (r["shape"], label)
            assert v["n_nan"] == 0
            worst = max(worst, v["rel_err"])
        worst = max(worst, r["first_pick_rel_err"])
        chosen = r["variants"]["top3"]["chosen"]
        if chosen not in r["top3"]:
            tuned, first = r["ms_rounds"]["top3"], r["ms_rounds"]["first_pick"]
            assert max(tuned) < min(first), r["shape"]  # faster in every round
            outside[r["shape"]] = (r["ms"]["top3"] * 1e3, r["ms"]["first_pick"] * 1e3)
    mantissa, exponent = f"{worst:.1e}".split("e")
    assert f"largest `rel_err` {mantissa}e{int(exponent)}" in readme
    assert sorted(outside) == ["16x128256x4096", "16x28672x4096"]
    assert f"{outside['16x128256x4096'][0]:.0f} µs against {outside['16x128256x4096'][1]:.0f} µs" in readme
    assert f"{outside['16x28672x4096'][0]:.1f} µs against {outside['16x28672x4096'][1]:.1f} µs" in readme
