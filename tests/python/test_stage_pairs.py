"""scripts/stage_pairs.py: the table of docs/model.md §6 ("A stage count that
follows N's low bits") is its output, and its bad input is one line, exit 2."""

import json
import pathlib
import subprocess
import sys

import pytest

from conftest import script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/stage_pairs.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_docs_table_is_the_script_s_output():
    p = run("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,2")
    assert p.returncode == 0, p.stderr
    docs = (ROOT / "docs/model.md").read_text()
    labels = {1: "1 (odd N)", 4: "4 (1500, 4100)", 8: "8 (1000, 3000, 4200, ...)"}
    groups = [l for l in p.stdout.splitlines() if l.startswith("N aligned to ")]
    assert len(groups) == 3, p.stdout
    for line in groups:
        p2, rest = line[len("N aligned to "):].split(": ")
        count, span, slower = rest.split(", ")
        lo, hi = span.split(" to ")
        row = f"| {labels[int(p2)]} | {count.split()[0]} | {lo}–{hi} | {slower.split()[0]} |"
        assert row in docs, row
    # The claim the table carries: odd N never slower with 3 stages, N a
    # multiple of 8 always (nbits1's fresh pairs among them).
    assert "N aligned to 1: 26 shape(s), 0.90 to 1.00, 0 slower" in p.stdout
    assert "N aligned to 8: 11 shape(s), 1.00 to 1.11, 11 slower" in p.stdout


@pytest.mark.parametrize("args, says", [
    ((), "stage_pairs.py: the following arguments are required"),
    (("--class", "float16:rr:MnX", "--tile", "256x64x64_w4", "--stages", "3,2"), "stage_pairs.py: --class"),
    (("--class", "float16:rr:MnK", "--tile", "256x64", "--stages", "3,2"), "stage_pairs.py: --tile"),
    (("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3"), "stage_pairs.py: --stages"),
    (("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,3"), "stage_pairs.py: --stages"),
    (("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,-2"), "stage_pairs.py: --stages"),
    (("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,2", "--near", "nan"),
     "stage_pairs.py: --near"),
    (("--class", "float16:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,2", "--near", "0.5"),
     "stage_pairs.py: --near"),
    (("--class", "float16:rr:MNK", "--tile", "256x64x64_w4", "--stages", "3,2", "/nonexistent"),
     "stage_pairs.py: /nonexistent: no timings.jsonl"),
    (("--class", "tfloat32:rr:MnK", "--tile", "256x64x64_w4", "--stages", "3,2"), "stage_pairs.py: no shape"),
])
def test_bad_input_is_one_line(args, says):
    script_error(run(*args), says)


def test_malformed_rows_are_one_line(tmp_path):
    good = {"M": 64, "N": 4001, "K": 64, "key": "256x64x64_s3_w4", "ms": 0.1}
    for bad, says in (("{x", "not a JSON object"), ("[1]", "a row is a JSON object"),
                      (json.dumps({**good, "N": 0}), "M, N and K must be"),
                      (json.dumps({**good, "ms": "fast"}), "ms must be"), (json.dumps({**good, "ms": 1e400}), "ms must be")):
        (tmp_path / "timings.jsonl").write_text(json.dumps(good) + "\n" + bad + "\n")
        script_error(run("--class", "float16:rr:mnk", "--tile", "256x64x64_w4", "--stages", "3,2", tmp_path),
                     f"stage_pairs.py: {tmp_path}/timings.jsonl:2: {says}")


def test_an_unreadable_timings_file_is_one_line(tmp_path):
    (tmp_path / "timings.jsonl").write_bytes(b"\xff\xfe not text\n")
    script_error(run("--class", "float16:rr:mnk", "--tile", "256x64x64_w4", "--stages", "3,2", tmp_path),
                 f"stage_pairs.py: {tmp_path}/timings.jsonl: cannot be read as UTF-8 text")
    (tmp_path / "timings.jsonl").unlink()
    (tmp_path / "timings.jsonl").mkdir()  # a folder where the file should be: no timings
    script_error(run("--class", "float16:rr:mnk", "--tile", "256x64x64_w4", "--stages", "3,2", tmp_path),
                 f"stage_pairs.py: {tmp_path}: no timings.jsonl")
