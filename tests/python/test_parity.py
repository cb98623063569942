"""The binding against the CLI: the same arguments give the same JSON, field by field.

Random problems, search spaces, types, layouts, devices and models (fixed
seeds, so a failure reproduces); every field of every candidate compared,
integers and strings exactly, numbers to 1e-9 relative (they are rendered by
the same code, so exact in practice).
"""

import math
import random

import pytest

import tileplan
from conftest import cli_json, run_cli

INPUT_TYPES = ["float16", "bfloat16", "float8_e4m3", "float8_e5m2", "tfloat32"]
OUTPUT_TYPES = ["float16", "bfloat16", "float32"]
DEVICES = ["h200", "h100-sxm", "h100-pcie", "a100-sxm", "l40s", "rtx-4090"]


def same(expected, got, path="report"):
    """Assert `got` (the binding's, as plain data) equals `expected` (the CLI's JSON)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), path
        assert list(got) == list(expected), f"{path}: keys differ"
        for key in expected:
            same(expected[key], got[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{path}: lengths differ"
        for i, (e, g) in enumerate(zip(expected, got)):
            same(e, g, f"{path}[{i}]")
    elif isinstance(expected, float) or isinstance(got, float):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), path
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=0.0), f"{path}: {got} != {expected}"
    else:
        assert type(got) is type(expected) and got == expected, f"{path}: {got!r} != {expected!r}"


def random_size(rng):
    return rng.choice([
        rng.choice([64, 128, 512, 1024, 4096, 8192]),
        rng.randint(1, 300),
        rng.randint(1, 20000),
        16 * rng.randint(1, 1000),
    ])


def random_space_values(rng, choices, most=4):
    return sorted(rng.sample(choices, rng.randint(1, min(most, len(choices)))))


def random_case(seed):
    """(keyword arguments, the same as CLI flags) for one random plan."""
    rng = random.Random(seed)
    m, n, k = (random_size(rng) for _ in range(3))
    kw = {"dtype": rng.choice(INPUT_TYPES), "a_layout": rng.choice(["row", "col"]),
          "b_layout": rng.choice(["row", "col"]), "device": rng.choice(DEVICES),
          "model": rng.choice(["calibrated", "calibrated", "seed"]), "instr": rng.choice(["wgmma", "wgmma", "mma", "simt"]),
          "top_k": rng.choice([0, 1, 5, 15, 40])}
    if rng.random() < 0.4:
        kw["out_dtype"] = rng.choice(OUTPUT_TYPES)
    # Leading dimensions: packed, or padded past the extent they stride over.
    extent = {"lda": k if kw["a_layout"] == "row" else m, "ldb": n if kw["b_layout"] == "row" else k, "ldc": n}
    for ld, e in extent.items():
        if rng.random() < 0.3:
            kw[ld] = e + rng.choice([0, 1, 8, 16, 100])
    if rng.random() < 0.2:
        kw["sm_count"] = rng.randint(1, 200)
    if rng.random() < 0.2:
        kw["smem_kb"] = rng.choice([48, 100, 164, 228])
    if kw["model"] == "calibrated" and rng.random() < 0.2:
        kw["family"] = "seed"
    if rng.random() < 0.6:
        kw["block_m"] = random_space_values(rng, [16, 32, 48, 64, 96, 128, 192, 256])
        kw["block_n"] = random_space_values(rng, [8, 16, 32, 64, 96, 128, 256])
        kw["block_k"] = random_space_values(rng, [8, 16, 32, 64, 128])
        kw["stages"] = random_space_values(rng, [1, 2, 3, 4, 5])
        kw["threads"] = random_space_values(rng, [32, 64, 128, 256, 384, 512])
    # Split factors need the calibrated model and a family with a split-K model (triton's).
    if kw["model"] == "calibrated" and kw.get("family") != "seed" and rng.random() < 0.3:
        kw["split_k"] = random_space_values(rng, [1, 2, 4, 8, 16])
    # The power cap's budget, where the preset has energy fields (h100-sxm).
    if kw["device"] == "h100-sxm" and rng.random() < 0.5:
        kw["power_budget"] = rng.choice([0, 450, 636, 700.5])
    flags = ["tile", "--m", m, "--n", n, "--k", k]
    for key, value in kw.items():
        flag = "--topk" if key == "top_k" else "--" + key.replace("_", "-")
        flags += [flag, ",".join(map(str, value)) if isinstance(value, list) else value]
    return (m, n, k), kw, flags


@pytest.mark.parametrize("seed", range(40))
def test_plan_matches_cli(seed):
    (m, n, k), kw, flags = random_case(seed)
    expected = cli_json(*flags)
    got = tileplan.plan(m, n, k, **kw)
    same(expected, got.to_dict())
    # Candidates' attributes are the JSON fields, by name.
    assert len(got) == len(expected["candidates"])
    for cand, want in zip(got, expected["candidates"]):
        assert isinstance(cand, tileplan.Candidate)
        for key, value in want.items():
            attr = getattr(cand, key)  # a nested object (time_terms) is a record of its own
            same(value, attr.to_dict() if isinstance(attr, tileplan.Record) else attr, f"candidate.{key}")
        assert cand.feasible
    assert got.problem.m == m and got.device.name == kw["device"]


@pytest.mark.parametrize("seed", range(12))
def test_diagnose_matches_cli(seed):
    (m, n, k), kw, flags = random_case(1000 + seed)
    rng = random.Random(seed)
    del kw["top_k"]
    flags = flags[:flags.index("--topk")] + flags[flags.index("--topk") + 2:]
    for key in ["block_m", "block_n", "block_k", "stages", "threads", "split_k"]:
        kw.pop(key, None)
        if "--" + key.replace("_", "-") in flags:
            i = flags.index("--" + key.replace("_", "-"))
            del flags[i:i + 2]
    config = {"block_m": rng.choice([16, 64, 128, 256, 512]), "block_n": rng.choice([8, 64, 128, 256]),
              "block_k": rng.choice([16, 32, 64, 128]), "stages": rng.choice([1, 2, 3, 4, 8]),
              "threads": rng.choice([64, 128, 256, 512, 1024])}
    for key, value in config.items():
        flags += ["--" + key.replace("_", "-"), value]
    expected = cli_json(*flags, "--diagnose")
    got = tileplan.diagnose(m, n, k, **kw, **config)
    assert isinstance(got, tileplan.Candidate)
    same(expected["candidates"][0], got.to_dict())
    assert got.feasible == (expected["feasible"] == 1)


def test_plan_defaults_match_cli():
    same(cli_json("tile"), tileplan.plan(4096, 4096, 4096).to_dict())


def test_plan_reads_a_family_file(tmp_path):
    text = run_cli("families", "--family", "triton", "--format", "json")[1]
    import json
    family = json.loads(text)[0]
    del family["file"]
    family["name"] = "mine"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(family))
    expected = cli_json("tile", "--m", 777, "--family-file", path)
    same(expected, tileplan.plan(777, 4096, 4096, family_file=path).to_dict())


@pytest.mark.parametrize("threads,regs,smem,smem_static,carveout,device", [
    (256, 168, 72 * 1024, 0, None, "h200"),
    (128, 32, 0, 0, None, "a100-sxm"),
    (1024, 64, 48 * 1024, 1024, 50, "h100-sxm"),
    (96, 255, 90 * 1024, 0, 0, "l40s"),
    (512, 128, 0, 0, None, "rtx-4090"),      # 64K registers: registers limit
    (32, 16, 0, 0, 100, "h200"),             # tiny blocks: the block limit, no next step
    (1024, 64, 0, 0, None, "h200"),          # 1024 threads of 64 registers: one block, registers limit
])
def test_occupancy_matches_cli(threads, regs, smem, smem_static, carveout, device):
    flags = ["occupancy", "--threads", threads, "--regs", regs, "--smem", smem, "--smem-static", smem_static,
             "--device", device]
    if carveout is not None:
        flags += ["--carveout", carveout]
    got = tileplan.occupancy(threads, regs, smem=smem, smem_static=smem_static, carveout=carveout, device=device)
    assert isinstance(got, tileplan.Occupancy)
    same(cli_json(*flags), got.to_dict())


@pytest.mark.parametrize("extents,kw,flags", [
    ([128, 32], {}, []),
    ([128, 32], {"vector": 8, "buffer_shape": [4096, 4096], "access": [1, 0]},
     ["--vector", 8, "--buffer-shape", "4096,4096", "--access", "1,0"]),
    ([32, 32], {"vector": 1, "dtype": "float32", "scope": "shared", "access": [1, 0]},
     ["--vector", 1, "--dtype", "float32", "--scope", "shared", "--access", "1,0"]),
    ([64, 64], {"vector": "auto", "threads": 96}, ["--vector", "auto", "--threads", 96]),
    ([4, 8], {"threads": 128, "vector": 2, "replicate": True}, ["--threads", 128, "--vector", 2, "--replicate"]),
    ([1024, 1024, 64], {"threads": 256, "vector": 4}, ["--threads", 256, "--vector", 4]),
    ([16, 16], {"points": True, "origin": [3, 5], "vector": 4}, ["--points", "--origin", "3,5", "--vector", 4]),
])
def test_loop_matches_cli(extents, kw, flags):
    got = tileplan.loop(extents, **kw)
    assert isinstance(got, tileplan.LoopReport)
    same(cli_json("loop", "--extents", *extents, *flags), got.to_dict())


def test_devices_match_cli():
    expected = cli_json("devices")
    got = tileplan.devices()
    same(expected, [d.to_dict() for d in got])
    for want in expected:
        same(want, tileplan.device(want["name"]).to_dict())
        assert tileplan.device(want["name"]).sm_count == want["sm_count"]


def test_families_match_cli():
    same(cli_json("families"), tileplan.families())
    same(cli_json("families", "--family", "seed"), tileplan.families(family="seed"))


def test_package_docstring_example_holds():
    import doctest
    result = doctest.testmod(tileplan)
    assert result.attempted == 3 and result.failed == 0


def test_diagnose_time_terms_are_a_record():
    """A diagnosis carries what its predicted time is made of, as a record of its own."""
    c = tileplan.diagnose(4096, 4096, 4096, block_m=128, block_n=256, block_k=64, stages=4, threads=256)
    t = c.time_terms
    assert isinstance(t, tileplan.Record)
    assert (t.k_steps, t.programs_per_sm, t.round_programs) == (64, 4, 1)
    # The SMs bind in four waves: joined at the order overlap_order (> 2, sm_overlap_power).
    q = t.overlap_order
    assert q > 2
    # (the join is tabulated: within 1e-6)
    assert math.isclose(c.predicted_us, t.launch_us + (t.sm_us ** q + t.dram_us ** q) ** (1 / q), rel_tol=1e-6)
    assert t.iteration_us >= max(t.busiest_us, t.round_trip_us)
    # A sweep's candidates leave the terms out.
    assert not hasattr(tileplan.plan(4096, 4096, 4096, top_k=1)[0], "time_terms")
