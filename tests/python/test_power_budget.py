"""power_budget: the Python keyword of --power-budget (docs/model.md §3, "The power cap").

The same report as the CLI at every budget, in plan, diagnose and the autotuner hooks; the
pick follows the budget; bad values raise as the CLI refuses them."""

import pytest

import tileplan
import tileplan.tilelang as tl
import tileplan.triton as tt
from conftest import as_keywords, cli_error, cli_json
from test_parity import same

# A many-wave fp16 GEMM of the H100 preset whose SMs bind: the cap's floor decides it.
SIZE = (768, 8192, 8192)
SIZE_FLAGS = ["--m", SIZE[0], "--n", SIZE[1], "--k", SIZE[2]]


@pytest.mark.parametrize("budget", [None, 0, 500, 636.5, 900])
def test_plan_matches_the_cli(budget):
    flags = ["tile", *SIZE_FLAGS, "--device", "h100-sxm", "--topk", 8]
    if budget is not None:
        flags += ["--power-budget", budget]
    same(cli_json(*flags), tileplan.plan(*SIZE, device="h100-sxm", top_k=8, power_budget=budget).to_dict())


def test_diagnose_matches_the_cli_and_prices_the_floor():
    cfg = {"block_m": 128, "block_n": 256, "block_k": 64, "stages": 4, "threads": 256}
    flags = ["tile", "--diagnose", *SIZE_FLAGS, "--device", "h100-sxm", "--instr", "auto"]
    flags += [x for key, value in cfg.items() for x in ("--" + key.replace("_", "-"), value)]
    for budget in (None, 0):
        extra = [] if budget is None else ["--power-budget", budget]
        want = cli_json(*flags, *extra)["candidates"][0]
        got = tileplan.diagnose(*SIZE, device="h100-sxm", power_budget=budget, **cfg)
        same(want, got.to_dict())
    capped = tileplan.diagnose(*SIZE, device="h100-sxm", **cfg)
    free = tileplan.diagnose(*SIZE, device="h100-sxm", power_budget=0, **cfg)
    assert capped.time_bound == "power" and capped.time_terms.power_us > capped.time_terms.cycles_us
    assert free.time_bound != "power" and free.time_terms.power_us == 0
    assert free.predicted_us < capped.predicted_us


def test_a_higher_budget_never_slows_a_prediction():
    times = [tileplan.plan(*SIZE, device="h100-sxm", top_k=1, power_budget=w)[0].predicted_us
             for w in (400, 500, 636, 800)]
    assert times == sorted(times, reverse=True) and times[0] > times[-1]
    assert tileplan.plan(*SIZE, device="h100-sxm", top_k=1, power_budget=1e6)[0].predicted_us == \
        tileplan.plan(*SIZE, device="h100-sxm", top_k=1, power_budget=0)[0].predicted_us


@pytest.mark.parametrize("budget", [None, 0])
def test_hooks_pick_the_plan_at_the_budget(budget):
    best = tileplan.plan(*SIZE, device="h100-sxm", top_k=1, power_budget=budget)[0]
    values = tt.heuristics(device="h100-sxm", power_budget=budget)
    args = {"M": SIZE[0], "N": SIZE[1], "K": SIZE[2]}
    assert (values["BLOCK_M"](args), values["BLOCK_N"](args), values["num_warps"](args)) == \
        (best.block_m, best.block_n, best.threads // 32)
    first = tl.configs(*SIZE, device="h100-sxm", top_k=1, power_budget=budget)[0]
    assert (first["block_M"], first["block_N"], first["threads"]) == (best.block_m, best.block_n, best.threads)
    shapes = tl.configs_for_shapes([SIZE], device="h100-sxm", top_k=1, power_budget=budget)
    assert shapes == [first]


def test_the_pick_moves_with_the_budget():
    # Under the cap the tile that copies fewer L2 bytes a flop is priced ahead; without it, the
    # SMs' time decides. Either way the two budgets must not agree on every time.
    capped = tileplan.plan(*SIZE, device="h100-sxm", top_k=5)
    free = tileplan.plan(*SIZE, device="h100-sxm", top_k=5, power_budget=0)
    assert all(c.time_bound == "power" for c in capped)
    assert all(c.time_bound != "power" for c in free)


@pytest.mark.parametrize("budget,flags", [
    (-1, ["--power-budget=-1", "--device", "h100-sxm"]),
    (2e6, ["--power-budget", "2000000", "--device", "h100-sxm"]),
    (700, ["--power-budget", "700"]),  # the default h200 has no energy fields
])
def test_errors_have_the_cli_message(budget, flags):
    device = "h100-sxm" if "h100-sxm" in flags else "h200"
    expected = as_keywords(cli_error("tile", *SIZE_FLAGS, *flags))
    with pytest.raises(tileplan.Error) as info:
        tileplan.plan(*SIZE, device=device, power_budget=budget)
    assert str(info.value) == expected and info.value.param == "power_budget"
    with pytest.raises(tileplan.Error) as info:
        tt.prune(device=device, power_budget=budget)
    assert str(info.value) == expected


def test_bad_types_and_values():
    for bad in (True, "636", [636]):
        with pytest.raises(TypeError, match="^power_budget must be an int or a float"):
            tileplan.plan(*SIZE, device="h100-sxm", power_budget=bad)
    for bad in (float("nan"), float("inf"), -0.5, 10**400):
        with pytest.raises(tileplan.Error) as info:
            tileplan.diagnose(*SIZE, device="h100-sxm", power_budget=bad)
        assert info.value.param == "power_budget" and info.value.kind == "out_of_range"
    # 0 is no term on any preset, and is accepted where there are no energy fields.
    assert tileplan.plan(*SIZE, top_k=1, power_budget=0)[0].predicted_us == tileplan.plan(*SIZE, top_k=1)[0].predicted_us
