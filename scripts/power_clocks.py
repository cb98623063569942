#!/usr/bin/env python3
"""Sustained GEMMs against the power cap: data/h100-profile-power.

Reads the files of `bench/gpu/stage_depth_probe.py --power` (one JSON object
per line: case "MxNxK[:dtype:LL]", key BMxBNxBK_sS_wW[_gG], ms, sm_clock_mhz,
and clock_reasons: NVML's reason names, or the hex mask nvidia-smi prints)
and prints, per file and case, each variant's time, the SM clock it ran at,
its SM cycles (time x clock) and whether the software power cap held the
clock down; then, for every tile measured at two stage counts S - 1 and S,
the deeper one's time, clock and cycles over the shallower one's: where
the time ratio and the cycle ratio part, the clock made the difference.

    python3 scripts/power_clocks.py [POWER.jsonl ...]

Default: every data/h100-profile-power/power-*.jsonl. Standard library only.
"""
import json
import math
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import json_lines, refusal  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
KEY = re.compile(r"^(\d+x\d+x\d+)_s(\d+)_(w\d+(?:_g\d+)?)$")
SW_POWER_CAP = 0x4


def capped(reasons):
    """Whether the reasons seen include the software power cap (names or hex masks)."""
    for r in reasons:
        if r == "sw_power_cap":
            return True
        if isinstance(r, str) and r.startswith("0x"):
            try:
                if int(r, 16) & SW_POWER_CAP:
                    return True
            except ValueError:
                pass
    return False


def load(path, fail):
    """[(case, key, us, mhz, capped)] of one power file, in its order."""
    out = []
    for where, r in json_lines(path, fail):
        if not isinstance(r, dict):
            fail(f"{where}: a row is a JSON object")
        case, key, ms, mhz = r.get("case"), r.get("key"), r.get("ms"), r.get("sm_clock_mhz")
        if not isinstance(case, str) or not isinstance(key, str) or not KEY.match(key):
            fail(f"{where}: a row needs a string case and a key BMxBNxBK_sS_wW[_gG]")
        for name, v in (("ms", ms), ("sm_clock_mhz", mhz)):
            if type(v) not in (int, float) or not 0 < v < math.inf:
                fail(f"{where}: {name} must be a positive finite number, got {v!r}")
        reasons = r.get("clock_reasons", r.get("reasons", []))
        if not isinstance(reasons, list):
            fail(f"{where}: clock_reasons must be a list")
        out.append((case, key, ms * 1e3, float(mhz), capped(reasons)))
    if not out:
        fail(f"{path}: no rows")
    return out


def main():
    fail, Parser = refusal("power_clocks.py")
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="power files (default: data/h100-profile-power/power-*.jsonl)")
    args = ap.parse_args()
    paths = args.files or sorted(str(p) for p in (ROOT / "data/h100-profile-power").glob("power-*.jsonl"))
    if not paths:
        fail("no power files given and none in data/h100-profile-power")
    loaded = [(path, load(path, fail)) for path in paths]
    for path, rows in loaded:
        print(f"{path}:")
        print("| case | configuration | µs | SM MHz | k cycles | power-capped |")
        print("|---|---|---:|---:|---:|---|")
        by = {}
        for case, key, us, mhz, cap in rows:
            by[(case, key)] = (us, mhz)
            print(f"| {case} | {key} | {us:.1f} | {mhz:.0f} | {us * mhz / 1e3:.1f} | {'yes' if cap else 'no'} |")
        print()
        print("| case | tile | stages | time ratio | clock ratio | cycle ratio |")
        print("|---|---|---|---:|---:|---:|")
        for (case, key), (us, mhz) in by.items():
            k = KEY.match(key)
            s = int(k.group(2))
            low = f"{k.group(1)}_s{s - 1}_{k.group(3)}"
            if (case, low) in by:
                us0, mhz0 = by[(case, low)]
                print(f"| {case} | {k.group(1)}_{k.group(3)} | {s} over {s - 1} | {us / us0:.3f} | "
                      f"{mhz / mhz0:.3f} | {us * mhz / (us0 * mhz0):.3f} |")
        print()


if __name__ == "__main__":
    main()
