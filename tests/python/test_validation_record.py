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
    # What it holds: the H200 gate's datasets with the first fp16 ones, and
    # the H100's unsplit sets, every class of their held-out cases.
    assert sorted(shipped) == ["h100-sxm", "h200"]
    h200, h100 = shipped["h200"], shipped["h100-sxm"]
    assert {"data/h200-triton-v2", "data/h200-triton-v4", "data/h200-triton-v47"} <= set(h200["datasets"])
    assert all(d.startswith("data/h100-triton-") for d in h100["datasets"])
    cases = lambda rec: sum(c["cases"] for c in rec["classes"].values())
    assert (cases(h200), len(h200["classes"])) == (585, 39)
    assert (cases(h100), len(h100["classes"])) == (102, 24)
    assert h200["classes"]["float16:rr:MNK"]["top1_worst"] <= 1.10
    assert h200["classes"]["float16:rr:mNK"]["worst_shape"] == "555x14336x12288"
    for rec in shipped.values():
        for c in rec["classes"].values():
            assert 1 <= c["top5_geomean"] <= c["top1_geomean"] <= c["top1_worst"]


def test_write_puts_one_device_s_record_into_a_copy_and_nothing_else(tmp_path):
    copy = tmp_path / "triton.json"
    family = json.loads(FAMILY.read_text())
    h100 = family["validation"].pop("h100-sxm")
    copy.write_text(json.dumps(family, indent=2, ensure_ascii=False) + "\n")
    datasets = h100["datasets"][:3]
    p = run("--write", copy, *datasets)
    assert p.returncode == 0, p.stderr
    assert f"{copy}: h100-sxm: " in p.stdout and f"{copy}: h200: " in p.stdout
    written = json.loads(copy.read_text())
    record = written["validation"].pop("h100-sxm")
    assert written == family and record["datasets"] == datasets
    # The file as the tool reads it: the scores appear beside a plan on that preset.
    t = subprocess.run([str(TILEPLAN), "tile", "--topk", "1", "--device", "h100-sxm", "--family-file", str(copy),
                        "--format", "json"], capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    v = json.loads(t.stdout)["validation"]
    assert v["device"] == "h100-sxm" and v["class"] == "float16:rr:MNK"
    assert v["cases"] == record["classes"].get("float16:rr:MNK", {}).get("cases", 0)


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
    f.write_text(json.dumps({"name": "x", "validation": [1]}))
    script_error(run(f), f"validation_record.py: {f}: its validation section is not an object of device records")
    f.write_text(json.dumps({"name": "x"}))
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


def test_the_python_plan_carries_the_scores():
    import tileplan
    shipped = json.loads(FAMILY.read_text())["validation"]
    v = tileplan.plan(555, 14336, 12288, top_k=1).validation
    rec = shipped["h200"]["classes"]["float16:rr:mNK"]
    assert (v.device, v.cases, v.top1_worst, v.worst_shape) == ("h200", rec["cases"], rec["top1_worst"],
                                                                 rec["worst_shape"])
    assert tileplan.plan(4096, 4096, 4096, top_k=1, device="h100-sxm").validation.device == "h100-sxm"
    assert tileplan.plan(4096, 4096, 4096, top_k=1, device="a100-sxm").validation is None
    assert tileplan.plan(4096, 4096, 4096, top_k=1, sm_count=100).validation is None
