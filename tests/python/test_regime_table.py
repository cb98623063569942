"""scripts/regime_table.py: the README's per-class table, its columns taken from `tileplan validate`."""

import pathlib
import re
import subprocess
import sys

from conftest import CLI, cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATASET = str(ROOT / "data/h200-triton-v6")


def table(*args):
    assert CLI.exists(), f"{CLI}: build tileplan first"
    p = subprocess.run([sys.executable, str(ROOT / "scripts/regime_table.py"), "--tileplan", str(CLI), *args],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_every_class_row_and_the_all_row_agree_with_validate():
    rc, out, err = table(DATASET)
    assert rc == 0, err
    lines = [l for l in out.splitlines() if l.startswith("|")]
    header = cells(lines[0])
    assert header[:5] == ["class", "cases", "calibrated top-1 (geomean / worst)", "best of top 5",
                          "pick's time / predicted"]
    report = cli_json("validate", DATASET, "--split", "heldout")
    rows = {cells(l)[0].strip("`*"): cells(l) for l in lines[2:]}
    assert set(rows) == {g["group"] for g in report["groups"]} | {"all"}
    for g in report["groups"]:
        row = rows[g["group"]]
        assert int(row[1]) == g["calibrated"]["shapes"]
        assert row[2] == f"{g['calibrated']['top1_geomean']:.3f} / {g['calibrated']['top1_worst']:.3f}"
        assert row[4] == f"{g['calibrated']['time_ratio']['geomean']:.2f}"
    everything = rows["all"]
    assert int(everything[1]) == report["summary"]["calibrated"]["shapes"]
    assert everything[4] == f"{report['summary']['calibrated']['time_ratio']['geomean']:.2f}"


def test_a_dataset_that_is_not_there_is_one_line_and_not_a_table():
    rc, out, err = table("/nonexistent/dataset")
    assert rc != 0
    assert out == ""
    assert len([l for l in err.splitlines() if l.strip()]) == 1, err
    assert re.search(r"regime_table: tileplan validate failed", err)
