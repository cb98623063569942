"""scripts/power_judge.py: the power term's judge sets scored with and without
it. Its tables are data/h100-triton-power1's README's, its verdicts are
what validate says, and bad input is one line, exit 2."""

import math
import pathlib
import subprocess
import sys

import pytest

from conftest import CLI, cli_json, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/power_judge.py"
POWER1 = ROOT / "data/h100-triton-power1"
CONTROLS = "4096x14336x4096:bfloat16:rc,8192x4096x4096"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_power1_readme_tables_are_its_output():
    p = run(POWER1, "--controls", CONTROLS)
    assert p.returncode == 0, p.stderr
    readme = (POWER1 / "README.md").read_text()
    rows = [l for l in p.stdout.splitlines() if l.startswith("| ") and not l.startswith(("| |", "| case"))]
    assert len(rows) == 2 + 15
    for row in rows:
        assert row in readme, row


def test_the_verdicts_are_validate_s():
    p = run(POWER1, "--controls", CONTROLS)
    on, off = cli_json("validate", POWER1), cli_json("validate", POWER1, "--power-budget", 0)
    a = {x["shape"]: x["calibrated"]["top1_regret"] for x in on["shapes"]}
    b = {x["shape"]: x["calibrated"]["top1_regret"] for x in off["shapes"]}
    kmajor = [s for s in a if s.endswith(":rc") and s not in CONTROLS.split(",")]
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    line = next(l for l in p.stdout.splitlines() if l.startswith("- B K-major"))
    assert line.startswith(f"- B K-major ({len(kmajor)}): {geo([b[s] for s in kmajor]):.3f} → "
                           f"{geo([a[s] for s in kmajor]):.3f} geomean")
    assert f"{sum(a[s] < b[s] for s in kmajor)} better, {sum(a[s] > b[s] for s in kmajor)} worse" in line
    assert "- the controls (2): " in p.stdout and "0 better, 0 worse" in p.stdout.split("- the controls")[1]


@pytest.mark.parametrize("args,prefix", [
    (["data/nowhere"], "power_judge.py: data/nowhere: not a dataset directory"),
    ([], "power_judge.py: the following arguments are required: dataset"),
    (["data/h200-triton-v47"], "power_judge.py: data/h200-triton-v47: its preset h200 has no power term"),
    ([POWER1, "--controls", "1x1x1"], "power_judge.py: --controls: not a case of"),
    ([POWER1, "--bogus"], "power_judge.py: unrecognized arguments: --bogus"),
])
def test_bad_input_is_one_line_exit_two(args, prefix):
    script_error(run(*args), prefix)


def test_a_missing_tileplan_is_refused():
    p = subprocess.run([sys.executable, str(SCRIPT), str(POWER1), "--tileplan", "/nonexistent/tileplan"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    script_error(p, "power_judge.py: --tileplan /nonexistent/tileplan: No such file or directory")


def test_clocks_say_what_docs_model_says():
    # docs/model.md §3, "What the clocks say": the term holds short kernels too low and long ones'
    # cycles too high; its table is the script's output.
    p = run(POWER1, "--clocks")
    assert p.returncode == 0, p.stderr
    rows = {}
    for line in p.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0].endswith(("µs", "more")) and cells[1].isdigit():
            rows[cells[0]] = (int(cells[1]), float(cells[2]), float(cells[3]))
            assert line in (ROOT / "docs/model.md").read_text(), line
    assert list(rows) == ["0–150 µs", "150–300 µs", "300–600 µs", "600 µs or more"]
    assert rows["0–150 µs"][1] > 1.10  # short kernels ran faster clocks than the term's
    assert all(rows[b][2] < 0.95 for b in ("150–300 µs", "300–600 µs", "600 µs or more"))
    assert sum(n for n, _, _ in rows.values()) > 150
    p = run(ROOT / "data/h100-triton-v47", "--clocks")
    assert p.returncode == 0 and p.stdout.rstrip().endswith("carries an SM clock")
