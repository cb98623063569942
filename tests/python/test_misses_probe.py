"""bench/gpu/misses_probe.py: an unknown set is one line and exit 2, before
anything needs a GPU; each set's configurations are keys the harness takes."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PROBE = ROOT / "bench/gpu/misses_probe.py"


@pytest.mark.parametrize("value", ["", "bogus", "FP8", "fp8 ", "mnk,fp8", "x" * 10000])
def test_an_unknown_set_is_one_line_and_exit_2(value, tmp_path):
    env = dict(os.environ, MISS=value)
    p = subprocess.run([sys.executable, str(PROBE), "--out", str(tmp_path)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and "must be one of fp8, mnk, l2bound" in p.stderr


def test_the_sets_are_harness_keys_and_cases():
    spec = {}
    exec(compile(PROBE.read_text().split('\nif __name__ == "__main__":')[0], str(PROBE), "exec"), spec)
    assert set(spec["SETS"]) == {"fp8", "mnk", "l2bound"}
    for cases, variants in spec["SETS"].values():
        assert all(re.fullmatch(r"\d+x\d+x\d+:(float16|float8_e4m3):[rc][rc]", c) for c in cases)
        assert all(re.fullmatch(r"\d+x\d+x\d+_s\d_w[48]", v) for v in variants)
        assert len(set(variants)) == len(variants)


CLOCKS = ROOT / "bench/gpu/runs/misses_clocks.sh"


@pytest.mark.parametrize("value", ["0", "-5", "3601", "00", "09999", "99999999999999999999999", "1e3", "abc", "5 5"])
def test_misses_clocks_refuses_a_bad_deadline_before_touching_the_gpu(value, tmp_path):
    # (unset or empty: the default, 550 s)
    env = dict(os.environ, DEADLINE=value, OUT=str(tmp_path))
    p = subprocess.run(["bash", str(CLOCKS)], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and "DEADLINE" in p.stderr
    assert list(tmp_path.iterdir()) == []
