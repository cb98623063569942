"""scripts/fit_split_overrun.py: the least-squares fit of the split GEMM's
overrun terms (partial_store_share, split_dram_share) on split GEMMs timed
alone reproduces the figures docs/model.md §6 and the splitk-partial README
cite, next to the candidate's values beside that data; bad input is one
line and exit 2."""

import json
import pathlib
import re
import subprocess
import sys

from conftest import CLI, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRAPH = [ROOT / "data/h200-triton-splitk-graph" / d for d in ("one", "m", "big", "big2")]
# The family of the fit's day (data/archive/README.md): B's reuse in L2 and
# sm_overlap_power came after it.
OF_ITS_DAY = ROOT / "data/archive/triton-before-l2-reuse.json"


def script(*args):
    return subprocess.run([sys.executable, str(ROOT / "scripts/fit_split_overrun.py"), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True)


def test_the_fit_gives_what_the_docs_cite():
    p = script("--family-file", OF_ITS_DAY, *GRAPH)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("667 kernels of 15 shapes"), p.stdout
    joint = re.search(r"jointly: partial_store_share ([\d.]+), split_dram_share ([\d.]+)", p.stdout)
    store, dram = float(joint.group(1)), float(joint.group(2))
    assert abs(store - 1.113) < 0.002 and abs(dram - 0.116) < 0.001, p.stdout
    for text in ((ROOT / "docs/model.md").read_text(), (ROOT / "data/h100-triton-splitk-partial/README.md").read_text()):
        assert "1.11 and 0.116" in " ".join(text.split())
    # The next form: the DRAM share grows with the split factor, and 2 * share * (1 - 1/s) follows it.
    line = next(l for l in p.stdout.splitlines() if l.startswith("residual sum of squares"))
    got = re.search(r"flat share ([\d.]+); by split 2: ([\d.]+), 4: ([\d.]+), 8: ([\d.]+), 16: ([\d.]+) with "
                    r"partial_store_share ([\d.]+), ([\d.]+); 2 \* share \* \(1 - 1/s\): share ([\d.]+) with "
                    r"partial_store_share ([\d.]+), ([\d.]+)", line)
    assert got, line
    flat, s2, s4, s8, s16, _, by_split, share, _, grows = map(float, got.groups())
    assert s2 < s4 < s8 and by_split < grows < flat, line
    docs = " ".join((ROOT / "docs/model.md").read_text().split())
    assert f"2: {s2:.3f}, 4: {s4:.3f}, 8: {s8:.3f}, 16: {s16:.3f}" in docs
    assert f"share {share:.4f}" in docs
    # The candidate's values lie next to the fit's.
    c = json.loads((ROOT / "data/h100-triton-splitk-partial/candidate.json").read_text())["split_k"]["constants"]
    assert abs(c["partial_store_share"]["value"] - store) < 0.15 and abs(c["split_dram_share"]["value"] - dram) < 0.02


def test_refusals(tmp_path):
    prefix = "fit_split_overrun.py: "
    for bad in ("x", "0.5", "11", "nan", ""):
        script_error(script("--near", bad, GRAPH[0]), prefix + "--near")
    script_error(script(tmp_path), prefix + str(tmp_path))
    (tmp_path / "timings.jsonl").write_text('{"M": 1, "N": 2, "K": 3, "tile": "16x64x64_s3_w4", "split_k": 2, '
                                            '"variant": "workspace", "ms": -1}\n')
    script_error(script(tmp_path), prefix + f"{tmp_path / 'timings.jsonl'}:1: ms")
    (tmp_path / "timings.jsonl").write_text('{"M": 1, "variant": "none"}\n')
    script_error(script(tmp_path), prefix + f"{tmp_path / 'timings.jsonl'}:1:")
    (tmp_path / "timings.jsonl").write_text("not json\n")
    script_error(script(tmp_path), prefix + f"{tmp_path / 'timings.jsonl'}:1")
    # Unsplit kernels alone (no split GEMM timed alone) cannot separate the terms.
    script_error(script(ROOT / "data/h200-triton-v24"), prefix)
    bad = tmp_path / "family.json"
    bad.write_text('{"time": {}}')
    script_error(script("--family-file", bad, GRAPH[0]), prefix + "--family-file")
    script_error(script("--tileplan", tmp_path / "no-such-program", GRAPH[0]), prefix + "--tileplan")
