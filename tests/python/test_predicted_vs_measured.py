"""scripts/predicted_vs_measured.py: each case planned in its own type and
layouts, the groups of --by, the docs' counts, and its bad input."""

import json
import pathlib
import re
import subprocess
import sys

from conftest import CLI, cli_json, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "predicted_vs_measured.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def lines(out):
    """{label: (n, median, geomean)} of the script's output."""
    rows = {}
    for line in out.splitlines():
        label, rest = line.split(" n=", 1)
        fields = rest.split()
        rows[label.strip()] = (int(fields[0]), float(fields[2]), float(fields[-1]))
    return rows


def test_docs_table_of_the_fp16_grid():
    # docs/model.md, "How close the predicted times are": its four rows are
    # the script's output with the shipped constants.
    doc = (ROOT / "docs/model.md").read_text()
    for split, sets, name in (("calibration", ("v2", "v3"), "calibration (v2 + v3)"),
                              ("heldout", ("v2", "v4"), "held-out (v2 + v4)")):
        p = run("--split", split, *(ROOT / f"data/h200-triton-{v}" for v in sets))
        assert p.returncode == 0, p.stderr
        for line in p.stdout.splitlines():
            m = re.search(r"n= *(\d+)  median (\S+)  p10-p90 (\S+)-(\S+)  mean \|log\| (\S+)", line)
            assert m, line
            n, median, low, high, mal = m.groups()
            if line.startswith("all"):
                label = f"{name}, all"
            else:
                label = "calibration, within 1.2× of the best" if split == "calibration" else \
                    "held-out, within 1.2× of the best"
            row = f"| {label} | {n} | {median} | {low} – {high} | {mal} |"
            assert row in doc, (row, p.stdout)


def test_each_case_is_planned_in_its_own_type_and_layouts(tmp_path):
    # One M, N, K measured in two types and layouts, each configuration's
    # "measured" time set to what the tool predicts for that type: every
    # ratio is 1 only if neither case is planned as the other (the script
    # once keyed cases by M, N, K alone and planned everything as fp16 rr).
    grid = ["--block-m", "128", "--block-n", "128,256", "--block-k", "64", "--stages", "3,4", "--threads", "256"]
    rows = []
    for dtype, b_layout, cls in (("float16", "row", "float16:rr:MNK"), ("float8_e4m3", "col", "float8_e4m3:rc:MNK")):
        plan = cli_json("tile", "--m", 2048, "--n", 4096, "--k", 4096, "--dtype", dtype, "--b-layout", b_layout,
                        "--topk", 0, *grid)
        for c in plan["candidates"]:
            key = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
            rows.append({"M": 2048, "N": 4096, "K": 4096, "key": key, "ms": c["predicted_us"] / 1e3, "dtype": dtype,
                         "a_layout": "row", "b_layout": b_layout, "class": cls})
    fp16 = sum(r["dtype"] == "float16" for r in rows)
    assert fp16 >= 2 and len(rows) - fp16 >= 2
    # The two types' predictions differ, so a mixed-up case cannot give 1.
    assert {r["ms"] for r in rows if r["dtype"] == "float16"}.isdisjoint(
        {r["ms"] for r in rows if r["dtype"] != "float16"})
    (tmp_path / "timings.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = run("--by", "class", tmp_path)
    assert p.returncode == 0, p.stderr
    got = lines(p.stdout)
    assert got["float16:rr:MNK all"][0] == fp16, p.stdout
    assert got["float8_e4m3:rc:MNK all"][0] == len(rows) - fp16, p.stdout
    for label, (n, median, geomean) in got.items():
        assert median == 1.0 and geomean == 1.0, (label, p.stdout)


def test_by_spill_separates_held_tile_spills(tmp_path):
    # v24 holds fp16 cases with both operands through registers, whose large
    # tiles spill held operand tiles, beside tiles that spill nothing.
    p = run("--by", "spill", "--near", 1.5, ROOT / "data/h200-triton-v24")
    assert p.returncode == 0, p.stderr
    got = lines(p.stdout)
    for label in ("held tiles spill all", "no spill all", "held tiles spill within 1.5x of the best"):
        assert got.get(label, (0,))[0] > 0, p.stdout
    # The groups partition the configurations.
    total = lines(run("--near", 1.5, ROOT / "data/h200-triton-v24").stdout)["all"][0]
    assert sum(n for label, (n, _, _) in got.items() if label.endswith(" all")) == total


def one_line_error(p):
    script_error(p, "predicted_vs_measured.py: ")


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    one_line_error(run())
    one_line_error(run("--by", "shape", ROOT / "data/h200-triton-v4"))
    one_line_error(run("--near-by", "both", ROOT / "data/h200-triton-v4"))
    one_line_error(run("--near", 0.5, ROOT / "data/h200-triton-v4"))
    one_line_error(run("--near", "nan", ROOT / "data/h200-triton-v4"))
    one_line_error(run("--device", "h900", ROOT / "data/h200-triton-v4"))  # the tool's refusal, in one line
    one_line_error(run("--device", "", ROOT / "data/h200-triton-v4"))
    one_line_error(run(tmp_path))  # no timings.jsonl
    for tool in (tmp_path / "missing", tmp_path, ""):  # no such program, a folder, empty
        p = subprocess.run([sys.executable, str(SCRIPT), "--tileplan", str(tool), ROOT / "data/h200-triton-v4"],
                           capture_output=True, text=True, timeout=60)
        one_line_error(p)
    one_line_error(run("--split", "heldout", ROOT / "data/h200-triton-v20"))  # every case calibration
    good = {"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01}
    for bad in ('{"M": 64, "N":', "[1]", json.dumps({**good, "ms": 0}), json.dumps({**good, "ms": -1}),
                json.dumps({**good, "ms": "nan"}), json.dumps({**good, "ms": 1e400}), json.dumps({**good, "M": "x"}),
                json.dumps({k: v for k, v in good.items() if k != "K"}), json.dumps({**good, "a_layout": ""}),
                json.dumps({**good, "b_layout": 7}), json.dumps({**good, "key": "64x64x32_s2_w4_k1_none", "variant": 3})):
        (tmp_path / "timings.jsonl").write_text(bad + "\n")
        one_line_error(run(tmp_path))
    (tmp_path / "timings.jsonl").write_text(json.dumps(good) + "\n")
    for bad in ("{", "[1]", '{"held_out": 5}'):
        (tmp_path / "split.json").write_text(bad)
        one_line_error(run(tmp_path))
    (tmp_path / "split.json").unlink()
    (tmp_path / "timings.jsonl").write_text(json.dumps({**good, "M": -5}) + "\n")
    one_line_error(run(tmp_path))  # the tool's own rule, in one line
    (tmp_path / "timings.jsonl").write_text(json.dumps({**good, "M": 2**40, "N": 2**40}) + "\n")
    one_line_error(run(tmp_path))
    v4 = ROOT / "data/h200-triton-v4"
    for flag in ("--min-n", "--max-m"):
        for bad in ("0", "-1", "x", "", "1.5", "2147483648", "99999999999999999999"):
            one_line_error(run(flag, bad, v4))
    one_line_error(run("--min-n", "2147483647", v4))  # every case filtered out


def test_docs_table_of_spilled_operand_tiles():
    # docs/model.md §6, "Spilled operand tiles with both operands through
    # registers": its fp16 held-out rows are the script's output.
    doc = (ROOT / "docs/model.md").read_text()
    p = run("--split", "heldout", "--by", "class+spill", "--near", 1.5,
            *sorted((ROOT / "data").glob("h200-triton-v*")))
    assert p.returncode == 0, p.stderr
    got = lines(p.stdout)
    for cls in ("rr:mnk", "rr:Mnk"):
        spill = got[f"float16:{cls} held tiles spill within 1.5x of the best"]
        clean = got[f"float16:{cls} no spill within 1.5x of the best"]
        row = f"| fp16 `{cls}`, held out | {spill[2]:.3f} ({spill[0]}) | {clean[2]:.3f} ({clean[0]}) |"
        assert row in doc, (row, p.stdout)
        # What the section says of them: spilling ones predicted slow, the rest not.
        assert spill[2] > 1.15 and clean[2] < 1.05


def test_device_reaches_the_tool():
    # The H100's cases planned as an H100 and as an H200: another DRAM
    # bandwidth and L2, so other predicted times.
    h100, h200 = (run("--device", d, ROOT / "data/h100-triton-v47") for d in ("h100-sxm", "h200"))
    assert h100.returncode == 0 and h200.returncode == 0, h100.stderr + h200.stderr
    assert h100.stdout != h200.stdout


def test_block_k_groups_centred_on_each_shape():
    """--by block_k splits the lines by block_K; --centred divides each
    ratio by its shape's median, so the ungrouped centred line's median is 1;
    --near-by predicted picks the near-best line by the predicted time."""
    data = ROOT / "data/h200-triton-v4"
    plain = lines(run("--near", 1.5, data).stdout)
    by_k = lines(run("--by", "block_k", "--near", 1.5, data).stdout)
    assert {label.split(" ", 2)[1] for label in by_k} <= {"32", "64", "128"}
    assert sum(n for label, (n, _, _) in by_k.items() if label.endswith(" all")) == plain["all"][0]
    centred = lines(run("--centred", "--near", 1.5, data).stdout)
    assert centred["all"][0] == plain["all"][0] and abs(centred["all"][1] - 1) < 0.02
    assert centred["all"][1] != plain["all"][1]
    by_pred = lines(run("--near-by", "predicted", "--near", 1.5, data).stdout)
    assert by_pred["all"] == plain["all"] and by_pred["within 1.5x of the best"] != plain["within 1.5x of the best"]


def test_docs_block_k_figures_of_the_gate_s_k_major_classes():
    """docs/model.md §3, "Short rows of a K-major B": the gate's 16-bit
    classes with B K-major and M > 1, near the predicted best, centred."""
    sets = [ROOT / f"data/h200-triton-{v}" for v in (
        "v5a", "v5b", "v6", "v7", "v8", "v9", "v10", "v12", "v14", "v16", "v17", "v18", "v19", "v21", "v22", "v23",
        "v24", "v25", "v26", "v28", "v29", "v30", "v31", "v32", "v33", "v34", "v35", "v36", "v37", "v38", "v40",
        "v41", "v42", "v44", "v46", "v47", "pad1", "nbits1")]
    p = run("--split", "heldout", "--by", "class+block_k", "--centred", "--near-by", "predicted", *sets)
    assert p.returncode == 0, p.stderr
    medians = {64: [], 128: []}
    for label, (n, median, _) in lines(p.stdout).items():
        m = re.match(r"(?:float16|bfloat16):rc:[mM][nN][kK] block_K (64|128) within", label)
        if m and not label.split(":")[2].startswith("1") and n >= 10:
            medians[int(m.group(1))].append(median)
    doc = " ".join((ROOT / "docs/model.md").read_text().split())
    assert (f"{min(medians[64]):.3f}–{max(medians[64]):.3f} with block_K 64 and "
            f"{min(medians[128]):.3f}–{max(medians[128]):.3f} with block_K 128") in doc


def test_split_datasets_count_their_unsplit_rows_and_stages_group():
    """A split-K dataset's unsplit rows (`_k1_none`) pair with the plan's
    configurations; its split and auxiliary rows do not."""
    fresh = ROOT / "data/h100-triton-splitk-kmajor-fresh/m"
    p = run("--by", "stages", "--device", "h100-sxm", fresh)
    assert p.returncode == 0, p.stderr
    got = lines(p.stdout)
    assert {label.split()[1] for label in got} == {"3", "4", "5"}
    unsplit = [json.loads(x) for x in (fresh / "timings.jsonl").read_text().splitlines()]
    unsplit = [r for r in unsplit if r.get("variant") == "none" and r.get("ms") is not None]
    assert sum(n for label, (n, _, _) in got.items() if label.endswith(" all")) == len(unsplit)
    by_class = lines(run("--by", "class+stages", "--device", "h100-sxm", fresh).stdout)
    assert {label.split()[0] for label in by_class} == {"float16:rc:mNK"}
    # --min-n and --max-m keep the cases they name: N >= 16384 is two of m's three.
    wide = lines(run("--min-n", 16384, "--device", "h100-sxm", fresh).stdout)
    narrow = lines(run("--max-m", 2, "--device", "h100-sxm", fresh).stdout)
    per_shape = len(unsplit) // 3
    assert wide["all"][0] == 2 * per_shape and narrow["all"][0] == per_shape


def test_docs_stage_tilt_of_the_wide_decode_steps():
    """docs/model.md §6, "The decode steps show it too": 16-row tiles at
    M <= 16 near the predicted best, by stages, over all N and N >= 16384."""
    doc = " ".join((ROOT / "docs/model.md").read_text().split())
    h100 = sorted(p for p in (ROOT / "data").glob("h100-triton-splitk-*/*/") if "repeat" not in str(p))
    h200 = sorted(p.parent for pattern in ("h200-triton-splitk-*/timings.jsonl", "h200-triton-splitk-*/*/timings.jsonl")
                  for p in (ROOT / "data").glob(pattern))
    for sets, device, widths in ((h100, "h100-sxm", "1.004, 1.000, 1.000 for 3, 4 and 5 stages over all N, and "
                                  "1.015, 1.004, 0.977 at N ≥ 16384 (119, 105 and 71 configurations)"),
                                 (h200, "h200", "1.005, 1.000, 1.000 and 1.007, 1.000, 0.990")):
        medians = []
        for min_n in (1, 16384):
            p = run("--by", "stages", "--centred", "--near-by", "predicted", "--near", 1.1, "--max-m", 16,
                    "--min-n", min_n, "--device", device, *sets)
            assert p.returncode == 0, p.stderr
            got = lines(p.stdout)
            medians.append([got[f"stages {s} within 1.1x of the best"] for s in (3, 4, 5)])
        text = ", ".join(f"{m[1]:.3f}" for m in medians[0]), ", ".join(f"{m[1]:.3f}" for m in medians[1])
        assert text[0] in widths and text[1] in widths, (text, widths)
        if device == "h100-sxm":
            assert f"({medians[1][0][0]}, {medians[1][1][0]} and {medians[1][2][0]} configurations)" in widths
        assert widths in doc
        # The tilt: 5 stages priced fast against 3 where N is wide, not over all N.
        assert medians[1][0][1] - medians[1][2][1] > 0.015 > abs(medians[0][0][1] - medians[0][2][1])



def test_by_tile_groups_by_block_m_block_n_and_warps():
    """--by tile labels each configuration BMxBN_wW (block_K and stages
    apart), and every configuration of a shape lands in one tile's line."""
    v39 = ROOT / "data/h200-triton-v39"
    got = lines(run("--by", "tile", v39).stdout)
    total = lines(run(v39).stdout)
    assert all(re.fullmatch(r"\d+x\d+_w[48] (all|within 1\.2x of the best)", label) for label in got)
    assert sum(n for label, (n, _, _) in got.items() if label.endswith(" all")) == total["all"][0]
    by_class = lines(run("--by", "class+tile", v39).stdout)
    assert sum(n for label, (n, _, _) in by_class.items() if label.endswith(" all")) == total["all"][0]


def test_docs_tile_bias_of_the_lone_wide_warpgroup():
    """docs/model.md §6, "B's reuse in L2 between program groups": 64x256
    with 4 warps against 128x128 with 8 warps near the best, in the 16-bit
    rc classes of the 50 H200 sets (classes with five or more rows)."""
    sets = sorted(p for p in (ROOT / "data").glob("h200-triton-v[0-9]*")) + \
        [ROOT / "data/h200-triton-pad1", ROOT / "data/h200-triton-nbits1"]
    assert len(sets) == 50
    got = lines(run("--centred", "--near", 1.1, "--by", "class+tile", *sets).stdout)
    pick = lambda tile: [v for label, v in got.items() if re.match(rf"b?f(loat)?16:rc:\S+ {tile} within", label)
                         and label.split(":")[0] in ("float16", "bfloat16") and v[0] >= 5]
    wide, square = pick("64x256_w4"), pick("128x128_w8")
    assert len(wide) == 7 and len(square) == 9
    doc = " ".join((ROOT / "docs/model.md").read_text().split())
    assert (f"median {min(m for _, m, _ in wide):.2f}–{max(m for _, m, _ in wide):.2f}× its measured time in the "
            f"16-bit `rc` classes (geomeans {min(g for _, _, g in wide):.3f}–{max(g for _, _, g in wide):.3f}), "
            f"against {min(m for _, m, _ in square):.2f}–{max(m for _, m, _ in square):.2f}× for 128×128 with 8 warps "
            f"(geomeans {min(g for _, _, g in square):.3f}–{max(g for _, _, g in square):.3f})") in doc


def test_docs_tile_bias_by_waves():
    """docs/model.md §6, "An energy budget": the wide 8-warp tile over-
    and 128x128 with 8 warps under-predicted in grids of more than four waves,
    over the same 50 H200 sets; --by waves and tile+waves bucket every line."""
    sets = sorted(p for p in (ROOT / "data").glob("h200-triton-v[0-9]*")) + \
        [ROOT / "data/h200-triton-pad1", ROOT / "data/h200-triton-nbits1"]
    got = lines(run("--centred", "--near", 1.15, "--by", "tile+waves", *sets).stdout)
    assert all(re.fullmatch(r"\d+x\d+_w[48] waves (<= [124]|> 4) (all|within 1\.15x of the best)", label)
               for label in got)
    near = lambda tile, waves: got[f"{tile} waves {waves} within 1.15x of the best"][1]
    assert near("256x128_w8", "> 4") > 1.01 > near("256x128_w8", "<= 1")
    assert near("128x128_w8", "> 4") < 0.99 < near("128x128_w8", "<= 1") + 0.01
    doc = " ".join((ROOT / "docs/model.md").read_text().split())
    assert (f"256×128 with 8 warps is predicted at a median {near('256x128_w8', '> 4'):.3f} of its measured time "
            f"({near('256x128_w8', '<= 1'):.3f} in one wave or less) and 128×128 with 8 warps at "
            f"{near('128x128_w8', '> 4'):.3f} ({near('128x128_w8', '<= 1'):.3f})") in doc
    assert f"64×256 with 4 warps at {near('64x256_w4', '> 4'):.3f} ({near('64x256_w4', '<= 1'):.3f})" in doc
    v39 = ROOT / "data/h200-triton-v39"
    by_waves = lines(run("--by", "waves", v39).stdout)
    assert sum(n for label, (n, _, _) in by_waves.items() if label.endswith(" all")) == lines(run(v39).stdout)["all"][0]
