"""scripts/repeat_noise.py: the noise figures the docs quote, and its bad input."""

import pathlib
import subprocess
import sys

from conftest import script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "repeat_noise.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_v4_repeat_gives_the_documented_oracle_regret():
    # docs/model.md, "The noise floor": 1.0048 geomean, 1.018 worst.
    p = run(ROOT / "data/h200-triton-v4", ROOT / "data/h200-triton-v4-repeat")
    assert p.returncode == 0, p.stderr
    assert "top-1 regret geomean 1.0048, worst 1.018" in p.stdout


def test_repeat_of_several_datasets_finds_each_case_in_its_first_run():
    # data/h200-triton-misses-repeat: eight cases drawn from six datasets.
    firsts = [ROOT / f"data/h200-triton-{v}" for v in ("v6", "v17", "v18", "v25", "v28", "v31")]
    p = run(*firsts, ROOT / "data/h200-triton-misses-repeat")
    assert p.returncode == 0, p.stderr
    assert sum(1 for line in p.stdout.splitlines() if "first run's best in the second" in line) == 8
    assert "333x14336x4096:float8_e4m3:rc: best 128x128x128_s5_w4" in p.stdout


def one_line_error(p):
    script_error(p, "repeat_noise: ")


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    one_line_error(run())
    one_line_error(run(ROOT / "data/h200-triton-v4"))
    one_line_error(run(tmp_path / "missing", ROOT / "data/h200-triton-v4"))
    (tmp_path / "timings.jsonl").write_text('{"M": 1}\n')
    one_line_error(run(tmp_path, ROOT / "data/h200-triton-v4"))
    (tmp_path / "timings.jsonl").write_text("not json\n")
    one_line_error(run(tmp_path, ROOT / "data/h200-triton-v4"))
    (tmp_path / "timings.jsonl").write_text("[1, 2]\n")
    one_line_error(run(tmp_path, ROOT / "data/h200-triton-v4"))
    # No case in common.
    one_line_error(run(ROOT / "data/h200-triton-v2", ROOT / "data/h200-triton-v4-repeat"))
