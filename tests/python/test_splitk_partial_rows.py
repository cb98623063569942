"""The second fresh judge of the reduction at its marginal cost
(data/h100-triton-splitk-partial-rows): its README's per-shape and summary
figures are what `tileplan validate` says for the shipped family and for
the candidate family file of data/h100-triton-splitk-partial, and there
the candidate picks better."""

import pathlib

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-partial-rows"
SETS = [DATA / s for s in ("one", "m", "m16", "bf16-m", "fp8-m", "fp8-m16")]
CANDIDATE = ROOT / "data/h100-triton-splitk-partial/candidate.json"
THEN = ("--power-budget", 0)  # the h100-sxm preset before its power term (docs/model.md §3)


def test_the_readme_s_figures_are_what_validate_says():
    readme = " ".join((DATA / "README.md").read_text().split())
    shipped = cli_json("validate", *SETS, "--family-file", ROOT / "data/archive/triton-before-split-overrun.json", *THEN)
    candidate = cli_json("validate", *SETS, "--family-file", CANDIDATE, *THEN)
    assert shipped["device"] == candidate["device"] == "h100-sxm"
    a = {s["shape"]: s for s in shipped["shapes"]}
    b = {s["shape"]: s for s in candidate["shapes"]}
    assert len(a) == len(b) == 14
    for shape, s in a.items():
        cells = [c.strip() for c in readme.split(f"| {shape} |")[1].split("|")]
        assert cells[2] == f"{s['calibrated']['top1_regret']:.3f}", shape
        assert cells[4] == f"{b[shape]['calibrated']['top1_regret']:.3f}", shape
        assert cells[5] == f"{s['cublas_ms'] / s['best_ms']:.3f}", shape
    s, c = shipped["summary"]["calibrated"], candidate["summary"]["calibrated"]
    assert (f"| all 14 | {s['top1_geomean']:.3f} / {s['top1_worst']:.3f} | {s['top5_geomean']:.3f} | "
            f"**{c['top1_geomean']:.3f} / {c['top1_worst']:.3f}** | {c['top5_geomean']:.3f} |") in readme
    assert c["top1_geomean"] < s["top1_geomean"] - 0.03 and c["top1_worst"] < s["top1_worst"]
    # Today's family (the candidate and the short rows' term) picks as the candidate here.
    # (Shipped until a split's DRAM share grew with the split,
    # data/h100-triton-splitk-growth: data/archive/triton-before-split-growth.json.)
    today = cli_json("validate", *SETS, "--family-file", ROOT / "data/archive/triton-before-split-growth.json", *THEN)
    assert [x["calibrated"]["top1_key"] for x in today["shapes"]] == [x["calibrated"]["top1_key"] for x in candidate["shapes"]]
    t = today["summary"]["calibrated"]
    assert f"| all 14, today's family | {t['top1_geomean']:.3f} / {t['top1_worst']:.3f} | {t['top5_geomean']:.3f} |" in readme
    g = cli_json("validate", *SETS, *THEN)["summary"]["calibrated"]
    assert f"| all 14, with the grown share | {g['top1_geomean']:.3f} / {g['top1_worst']:.3f} | {g['top5_geomean']:.3f} |" in readme
    p = cli_json("validate", *SETS)["summary"]["calibrated"]
    assert (f"| all 14, with the H100 preset's power term | {p['top1_geomean']:.3f} / {p['top1_worst']:.3f} | "
            f"{p['top5_geomean']:.3f} |") in readme
