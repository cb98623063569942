"""The fresh judge of the reduction at its marginal cost with the split
GEMM's partial stores and DRAM share (data/h100-triton-splitk-partial): its
README's figures are what `tileplan validate` says, for the shipped family
and for the candidate family file beside the data, and the candidate that it
rejects is worse there than the shipped family."""

import math
import pathlib

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-partial"
BEFORE = ("--family-file", ROOT / "data/archive/triton-before-split-overrun.json")  # shipped then
# Shipped after this set, until a split's DRAM share grew with the split
# (data/h100-triton-splitk-growth): the README's "today's family".
JUDGED = ("--family-file", ROOT / "data/archive/triton-before-split-growth.json")
SETS = [DATA / s for s in ("m", "m16", "bf16-one", "bf16-m", "bf16-m16", "fp8-one", "fp8-m", "fp8-m16")]
THEN = ("--power-budget", 0)  # the h100-sxm preset before its power term (docs/model.md §3)


def scored(*family):
    return cli_json("validate", *SETS, *family)


def test_the_readme_s_figures_are_what_validate_says():
    readme = " ".join((DATA / "README.md").read_text().split())
    shipped = scored(*BEFORE, *THEN)
    candidate = scored("--family-file", DATA / "candidate.json", *THEN)
    assert shipped["device"] == candidate["device"] == "h100-sxm"
    a = {s["shape"]: s for s in shipped["shapes"]}
    b = {s["shape"]: s for s in candidate["shapes"]}
    assert len(a) == len(b) == 19
    for shape, s in a.items():
        cells = readme.split(f"| {shape} |")[1].split("|")  # best, pick, regret, candidate's pick, regret, cuBLAS / best
        assert f"{s['calibrated']['top1_regret']:.3f}" == cells[2].strip(), shape
        assert f"{b[shape]['calibrated']['top1_regret']:.3f}" == cells[4].strip(), shape
        assert f"{s['cublas_ms'] / s['best_ms']:.3f}" == cells[5].strip(), shape
    for fam, row in ((shipped, "| all 19 | **1.036 / 1.086** | 1.010 |"), (candidate, "1.040 / 1.243 | 1.008 |")):
        c = fam["summary"]["calibrated"]
        assert row in readme
        assert f"{c['top1_geomean']:.3f} / {c['top1_worst']:.3f}" in row.replace("*", "")
        assert f"{c['top5_geomean']:.3f}" in row
    # Today's family: the candidate and the short rows' term.
    t = scored(*JUDGED, *THEN)["summary"]["calibrated"]
    assert f"| all 19, today's family | {t['top1_geomean']:.3f} / {t['top1_worst']:.3f} | {t['top5_geomean']:.3f} |" in readme
    g = scored(*THEN)["summary"]["calibrated"]
    assert f"| all 19, with the grown share | {g['top1_geomean']:.3f} / {g['top1_worst']:.3f} | {g['top5_geomean']:.3f} |" in readme
    p = scored()["summary"]["calibrated"]
    assert f"| all 19, with the H100 preset's power term | {p['top1_geomean']:.3f} / {p['top1_worst']:.3f} | {p['top5_geomean']:.3f} |" in readme


def test_the_candidate_is_worse_on_the_fresh_set_and_fp8_is_why():
    shipped, candidate = scored(*BEFORE, *THEN), scored("--family-file", DATA / "candidate.json", *THEN)
    s, c = shipped["summary"]["calibrated"], candidate["summary"]["calibrated"]
    assert c["top1_geomean"] > s["top1_geomean"] and c["top1_worst"] > s["top1_worst"]

    def by_type(fam, dtype):
        r = [x["calibrated"]["top1_regret"] for x in fam["shapes"] if x["dtype"] == dtype]
        return math.exp(sum(map(math.log, r)) / len(r))

    assert by_type(candidate, "float16") < by_type(shipped, "float16")  # 1.023 against 1.036
    assert by_type(candidate, "float8_e4m3") > by_type(shipped, "float8_e4m3") + 0.02  # 1.066 against 1.041
    worst = max(candidate["shapes"], key=lambda x: x["calibrated"]["top1_regret"])
    assert worst["shape"] == "1x8192x8192:float8_e4m3:rc"
    assert worst["calibrated"]["top1_key"].startswith("16x256x64_")
    # Today's family prices that tile's half-line rows and picks otherwise there.
    today = {x["shape"]: x for x in scored(*JUDGED)["shapes"]}
    assert not today[worst["shape"]]["calibrated"]["top1_key"].startswith("16x256x64_")
    assert today[worst["shape"]]["calibrated"]["top1_regret"] < 1.05
