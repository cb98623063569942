"""The first 16-bit split-K set in the nn.Linear layout (B K-major),
data/h100-triton-splitk-linear, measured after the grown split share shipped:
its README's per-shape and summary figures are what `tileplan validate` says
for today's family and for the flat share (data/archive), the verdict the
README draws holds, and every case is held out."""

import pathlib

from conftest import cli_json
from fresh_sets import assert_all_held_out, assert_side_by_side, geo, grown_and_flat, joined

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-linear"
PARTS = ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16")
SETS = [DATA / p for p in PARTS]
FLAT = ROOT / "data/archive/triton-before-split-growth.json"


def test_the_readme_s_figures_are_what_validate_says():
    readme = joined(DATA / "README.md")
    grown, flat = grown_and_flat(SETS, FLAT)
    assert all(s["b_layout"] == "col" and s["dtype"] in ("float16", "bfloat16") for s in grown["shapes"])
    o, g = assert_side_by_side(readme, flat, grown, 14)

    def cublas(fam, dtype=None):
        return geo([x["cublas_ms"] / x["pick_ms"] for x in fam["shapes"] if dtype in (None, x["dtype"])])

    best = geo([x["cublas_ms"] / x["best_ms"] for x in grown["shapes"]])
    assert (f"cuBLAS's time over the pick's: {cublas(flat):.3f} with the flat share, {cublas(grown):.3f} with the "
            f"grown one (fp16 {cublas(grown, 'float16'):.3f}, bf16 {cublas(grown, 'bfloat16'):.3f}; the grid's best "
            f"kernel: {best:.3f})") in readme
    unsplit = [geo([x["best_unsplit_ms"] / x[k] for x in grown["shapes"]]) for k in ("pick_ms", "best_ms")]
    flat_unsplit = geo([x["best_unsplit_ms"] / x["pick_ms"] for x in flat["shapes"]])
    assert (f"the best unsplit kernel's over the pick's {flat_unsplit:.3f} and {unsplit[0]:.3f} "
            f"(the grid's best: {unsplit[1]:.3f})") in readme
    # The verdict: better overall, the pick at least as fast as cuBLAS; of
    # the shapes whose pick the share moves, nine better and one worse.
    assert g["top1_geomean"] < o["top1_geomean"] - 0.01 and g["top5_geomean"] < o["top5_geomean"]
    assert cublas(grown) >= 1.0 > cublas(flat)
    f = {s["shape"]: s for s in flat["shapes"]}
    moved = [(f[s["shape"]]["calibrated"]["top1_regret"], s["calibrated"]["top1_regret"]) for s in grown["shapes"]
             if f[s["shape"]]["calibrated"]["top1_key"] != s["calibrated"]["top1_key"]
             or f[s["shape"]]["pick_split_k"] != s["pick_split_k"]]
    assert len(moved) == 10 and sum(b < a for a, b in moved) == 9 and sum(b > a for a, b in moved) == 1
    assert "nine get better" in readme and "one worse" in readme
    faster = sum(s["cublas_ms"] > s["pick_ms"] for s in grown["shapes"])
    assert f"{faster} of 14 picks faster" in readme


def test_four_classes_of_six_meet_the_thresholds():
    grown = cli_json("validate", *SETS)
    meeting = {g["group"] for g in grown["groups"] if g["calibrated"]["top1_geomean"] <= 1.03
               and g["calibrated"]["top1_worst"] <= 1.10 and g["calibrated"]["top5_geomean"] <= 1.01}
    assert len(grown["groups"]) == 6
    assert {g["group"] for g in grown["groups"]} - meeting == {"float16:rc:mNK", "float16:rc:1NK"}


def test_every_case_is_held_out_and_measured_on_an_h100():
    assert_all_held_out(SETS, "NVIDIA H100 80GB HBM3", 14)


def test_the_readme_s_goal_figures_for_the_nn_linear_layout():
    """README, split-K goal: the pick against cuBLAS and the best unsplit tile
    on this set, and the grid's best kernel."""
    d = cli_json("validate", *SETS)
    s = d["shapes"]
    readme = " ".join((ROOT / "README.md").read_text().split())

    def cublas(dtype=None):
        return geo([x["cublas_ms"] / x["pick_ms"] for x in s if dtype in (None, x["dtype"])])

    faster = sum(x["cublas_ms"] > x["pick_ms"] for x in s)
    unsplit = geo([x["best_unsplit_ms"] / x["pick_ms"] for x in s])
    best = geo([x["cublas_ms"] / x["best_ms"] for x in s])
    best_unsplit = geo([x["best_unsplit_ms"] / x["best_ms"] for x in s])
    assert (f"the pick runs at **{cublas():.3f}** of cuBLAS's speed (fp16 {cublas('float16'):.3f}, bf16 "
            f"{cublas('bfloat16'):.3f}; {faster} of 14 picks faster) and {unsplit:.3f}× the best unsplit tile (the "
            f"grid's best kernel: {best:.3f} of cuBLAS, {best_unsplit:.3f}× the best unsplit one)") in readme
