"""scripts/power_clocks.py and scripts/stage_waves.py: data/h100-profile-power's
README tables are the first one's output, the claims docs/model.md §6 draws
from both hold, and their bad input is one line, exit 2."""

import json
import pathlib
import subprocess
import sys

import pytest

from conftest import CLI, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
POWER = ROOT / "scripts/power_clocks.py"
WAVES = ROOT / "scripts/stage_waves.py"
DATA = ROOT / "data/h100-profile-power"


def run(script, *args):
    extra = ["--tileplan", str(CLI)] if script == WAVES else []
    return subprocess.run([sys.executable, str(script), *extra, *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def pairs(out):
    """{(case, tile, stages): (time, clock, cycles)} from the pair rows."""
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and " over " in cells[2]:
            rows[(cells[0], cells[1], cells[2])] = tuple(float(c) for c in cells[3:])
    return rows


def test_readme_rows_are_the_script_s_output():
    p = run(POWER)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    readme = [l for l in (DATA / "README.md").read_text().splitlines()
              if l.startswith("| ") and l[2].isdigit() and "x" in l.split("|")[1]]
    assert len(readme) >= 16
    for line in readme:
        assert line in out, line


def test_the_cap_takes_back_part_of_a_saving_in_cycles():
    rows = pairs(run(POWER, DATA / "power-1.jsonl").stdout)
    for case in ("555x14336x12288", "1024x14336x4096", "4096x4096x4096"):
        time, clock, cycles = rows[(case, "64x256x64_w4", "4 over 3")]
        # Capped: the fourth stage saves over a fifth of the cycles, gets
        # less clock, and so saves less of the time.
        assert cycles < 0.8 and clock < 0.95 and time > cycles + 0.05, case
        # The fifth stage saves at most 2% of the cycles on these grids.
        assert rows[(case, "64x256x64_w4", "5 over 4")][2] > 0.98, case
    time, clock, cycles = rows[("384x4096x16384", "64x256x64_w4", "4 over 3")]
    assert clock == 1.0 and time == cycles  # one wave: not capped, the saving in full
    capped = {}
    for line in (DATA / "power-1.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["nans"] == 0 and r["rel_err"] < 1e-3
        capped.setdefault(r["case"], []).append(int(r["reasons"][-1], 16) & 4 != 0)
    assert all(all(v) for c, v in capped.items() if c != "384x4096x16384")
    assert not all(capped["384x4096x16384"])


@pytest.mark.parametrize("tile, stages, layouts", [("64x256x64_w4", "5,4", "rr"), ("64x256x64_w4", "5,4", "rc"),
                                                   ("128x128x64_w4", "5,4", "rr")])
def test_stage_waves_grow_with_the_grid(tile, stages, layouts):
    """docs/model.md §6: the measured ratio over the predicted one grows from
    grids of one wave to grids of more than four."""
    p = run(WAVES, "--tile", tile, "--stages", stages, "--layouts", layouts)
    assert p.returncode == 0, p.stderr
    med = {}
    for line in p.stdout.splitlines():
        if "shape(s), median" in line:
            med[line.split(":")[0]] = float(line.split("median ")[1].split(",")[0])
    assert med["1 wave or less"] < 1.011 and med["more than 4 waves"] > 1.04
    assert med["1 wave or less"] < med["up to 4 waves"] < med["more than 4 waves"]
    docs = " ".join((ROOT / "docs/model.md").read_text().split())
    if (tile, layouts) == ("64x256x64_w4", "rr"):
        assert (f"median {med['1 wave or less']:.3f} over 70 grids of at most one wave of programs, "
                f"{med['up to 2 waves']:.3f} up to two waves") in docs


@pytest.mark.parametrize("body, says", [
    ("not json\n", "power_clocks.py: {p}:1: not a JSON object"),
    ('[1]\n', "power_clocks.py: {p}:1: a row is a JSON object"),
    ('{"case": "1x2x3", "key": "64x256", "ms": 0.3, "sm_clock_mhz": 1980}\n', "power_clocks.py: {p}:1: a row needs"),
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": -1, "sm_clock_mhz": 1980}\n',
     "power_clocks.py: {p}:1: ms must be a positive finite number"),
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": null}\n',
     "power_clocks.py: {p}:1: sm_clock_mhz must be a positive finite number"),
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1980, "clock_reasons": 4}\n',
     "power_clocks.py: {p}:1: clock_reasons must be a list"),
    ("", "power_clocks.py: {p}: no rows"),
])
def test_power_clocks_bad_rows_are_one_line(tmp_path, body, says):
    p = tmp_path / "power.jsonl"
    p.write_text(body)
    script_error(run(POWER, DATA / "power-2.jsonl", p), says.format(p=p))


def test_bad_arguments_are_one_line(tmp_path):
    script_error(run(POWER, tmp_path / "missing.jsonl"), f"power_clocks.py: {tmp_path / 'missing.jsonl'}: cannot be read")
    script_error(run(POWER, "--nope"), "power_clocks.py: unrecognized arguments")
    for args, says in [
        (("--tile", "64x256", "--stages", "5,4", "--layouts", "rr"), "stage_waves.py: --tile '64x256'"),
        (("--tile", "64x256x64_w4", "--stages", "5,5", "--layouts", "rr"), "stage_waves.py: --stages '5,5'"),
        (("--tile", "64x256x64_w4", "--stages", "5,4", "--layouts", "rx"), "stage_waves.py: --layouts 'rx'"),
        (("--tile", "64x256x64_w4", "--stages", "5,4", "--layouts", "rr", "--dtypes", "int8"),
         "stage_waves.py: --dtypes 'int8'"),
        (("--tile", "64x256x64_w4", "--stages", "5,4", "--layouts", "rr", "--near", "nan"),
         "stage_waves.py: --near nan"),
        (("--tile", "64x256x64_w4", "--stages", "5,4", "--layouts", "rr", tmp_path), f"stage_waves.py: {tmp_path}: no"),
        (("--tile", "64x256x64_w4", "--stages", "5,4", "--layouts", "cc"), "stage_waves.py: no shape measured"),
        (("--stages", "5,4", "--layouts", "rr"), "stage_waves.py: the following arguments are required: --tile"),
    ]:
        script_error(run(WAVES, *args), says)


def test_energy_fit_of_the_capped_rows():
    """docs/model.md §6, "The power cap": the energy of the grids the cap held
    down follows their flops, L2 bytes and cycles within a few percent."""
    p = run(POWER, "--energy", DATA / "power-1.jsonl")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "27 power-capped rows of the grouped order" in out
    head = next(l for l in out.splitlines() if l.startswith("e_flop"))
    words = head.replace(",", "").split()
    e_flop, e_byte, e_cycle = float(words[1]), float(words[6]), float(words[12])
    assert 0.05 < e_flop < 0.3 and 20 < e_byte < 30 and 150 < e_cycle < 260, head
    assert "median power 636 W" in head
    # One-wave grids are not held down and do not enter the fit.
    assert "| 384x4096x16384 |" not in out and "_g1" not in out
    ratios = [float(l.split("|")[-2]) for l in out.splitlines() if l.startswith("| ") and l[2].isdigit()]
    assert len(ratios) == 27 and all(0.92 < r < 1.08 for r in ratios)
    tail = out.strip().splitlines()[-1]
    assert float(tail.split("| ")[1].split(",")[0]) < 0.035, tail
    docs = " ".join((ROOT / "docs/model.md").read_text().split())
    assert f"{e_flop:.3f} pJ a flop, {e_byte:.1f} pJ a byte" in docs


@pytest.mark.parametrize("body, says", [
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "clock_reasons": ["sw_power_cap"]}\n',
     "power_clocks.py: {p}:1: power_w must be a positive finite number with --energy"),
    ('{"case": "1x2x3:float8_e4m3:rc", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "power_w": 600}\n',
     "power_clocks.py: {p}:1: case '1x2x3:float8_e4m3:rc': --energy fits fp16 cases"),
    ('{"case": "0x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "power_w": 600}\n',
     "power_clocks.py: {p}:1: case '0x2x3' and key '64x256x64_s4_w4': M, N, K and the tile's sides must be positive"),
    ('{"case": "1x2x3", "key": "0x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "power_w": 600}\n',
     "power_clocks.py: {p}:1: case '1x2x3' and key '0x256x64_s4_w4': M, N, K and the tile's sides must be positive"),
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "power_w": 1e400}\n',
     "power_clocks.py: {p}:1: power_w must be a positive finite number with --energy"),
    ('{"case": "1x2x3", "key": "64x256x64_s4_w4", "ms": 0.3, "sm_clock_mhz": 1500, "power_w": 600,'
     ' "clock_reasons": ["sw_power_cap"]}\n',
     "power_clocks.py: --energy: {p}: 0 power-capped rows of the grouped order; the fit needs at least 4"),
])
def test_energy_bad_rows_are_one_line(tmp_path, body, says):
    p = tmp_path / "power.jsonl"
    p.write_text(body)
    script_error(run(POWER, "--energy", p), says.format(p=p))
