"""scripts/validation_record.py: the shipped family's "validation" section is
its output over the datasets the section names (what `tileplan tile` reports
beside a plan), and its bad input is one line, exit 2."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/validation_record.py"
FAMILY = ROOT / "data/families/triton.json"
TILEPLAN = ROOT / "build/release/tileplan"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--tileplan", str(TILEPLAN), *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_shipped_record_is_the_script_s_output():
    p = run(FAMILY)
    assert p.returncode == 0, p.stderr
    shipped = json.loads(FAMILY.read_text())["validation"]
    assert json.loads(p.stdout) == shipped
    # What it holds: the H200 gate's datasets with the first fp16 ones, every
    # class of their held-out cases, the gated ones within the thresholds.
    assert shipped["device"] == "h200"
    assert {"data/h200-triton-v2", "data/h200-triton-v4", "data/h200-triton-v47"} <= set(shipped["datasets"])
    classes = shipped["classes"]
    assert sum(c["cases"] for c in classes.values()) == 585 and len(classes) == 39
    assert classes["float16:rr:MNK"]["top1_worst"] <= 1.10
    assert classes["float16:rr:mNK"]["worst_shape"] == "555x14336x12288"
    for c in classes.values():
        assert 1 <= c["top5_geomean"] <= c["top1_geomean"] <= c["top1_worst"]


def test_write_puts_the_section_into_a_copy_and_nothing_else(tmp_path):
    copy = tmp_path / "triton.json"
    family = json.loads(FAMILY.read_text())
    del family["validation"]
    copy.write_text(json.dumps(family, indent=2, ensure_ascii=False) + "\n")
    datasets = json.loads(FAMILY.read_text())["validation"]["datasets"][:3]
    p = run("--write", copy, *datasets)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"{copy}: validation of ")
    written = json.loads(copy.read_text())
    section = written.pop("validation")
    assert written == family and section["datasets"] == datasets
    # The file as the tool reads it: the scores appear beside a plan.
    t = subprocess.run([str(TILEPLAN), "tile", "--topk", "1", "--family-file", str(copy), "--format", "json"],
                       capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    v = json.loads(t.stdout)["validation"]
    assert v["class"] == "float16:rr:MNK" and v["cases"] == section["classes"]["float16:rr:MNK"]["cases"]


@pytest.mark.parametrize("args, says", [
    ((), "validation_record.py: the following arguments are required"),
    (("/nonexistent.json",), "validation_record.py: /nonexistent.json: cannot be read"),
    ((FAMILY, "/nonexistent"), "validation_record.py: /nonexistent: no timings.jsonl"),
])
def test_bad_input_is_one_line(args, says):
    script_error(run(*args), says)


def test_bad_files_are_one_line(tmp_path):
    f = tmp_path / "f.json"
    f.write_text("{x")
    script_error(run(f), f"validation_record.py: {f}: not a JSON object")
    f.write_text("[1]")
    script_error(run(f), f"validation_record.py: {f}: not a JSON object")
    f.write_bytes(b"\xff\xfe")
    script_error(run(f), f"validation_record.py: {f}: cannot be read")
    f.write_text(json.dumps({"name": "x"}))
    script_error(run(f), f"validation_record.py: {f}: no datasets given and none named in its validation section")
    # A family the tool refuses: its message, on one line.
    p = run(f, "data/h200-triton-v4")
    script_error(p, "validation_record.py: tileplan validate: ")
    # Datasets without a held-out case: the tool says so.
    shutil.copytree(ROOT / "data/h200-triton-v3", tmp_path / "v3")
    script_error(run(FAMILY, tmp_path / "v3"),
                 "validation_record.py: tileplan validate: tileplan: --split heldout: no shape of the given datasets")


def test_a_missing_program_is_one_line():
    p = subprocess.run([sys.executable, str(SCRIPT), "--tileplan", "/nonexistent/tileplan", str(FAMILY)],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    script_error(p, "validation_record.py: --tileplan /nonexistent/tileplan: not an executable")
