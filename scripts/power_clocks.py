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

--energy instead fits what a kernel held at the cap spends, per file (each
file's power readings come from one sampler), over the rows the cap held
down (its reason seen and the clock at least two 15 MHz steps under the
file's highest; grouped order only: the `_g` variants read more of DRAM,
which the fit has no term for), by least squares on their energy (time x
the power drawn, `power_w`):

    energy = e_flop * F + e_byte * B + e_cycle * cycles

with F the MMAs' flops over the padded tiles (2 * ceil(M/BM)*BM *
ceil(N/BN)*BN * ceil(K/BK)*BK), B the bytes the programs copy from the
L2 into shared memory (ceil(M/BM) * ceil(N/BN) * ceil(K/BK) stages of
(BM + BN) * BK * 2 bytes: fp16) and cycles the kernel's time x its SM
clock. It prints the three constants (pJ a flop, pJ a byte, nJ a cycle of
the whole GPU), the median power of those rows, and each row's energy
against the fit's.

    python3 scripts/power_clocks.py [--energy] [POWER.jsonl ...]

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
CASE = re.compile(r"^(\d+)x(\d+)x(\d+)(?::float16:[rc][rc])?$")


def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting); None if singular."""
    n = len(b)
    m = [list(a[i]) + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        if abs(m[p][i]) < 1e-300:
            return None
        m[i], m[p] = m[p], m[i]
        for r in range(i + 1, n):
            f = m[r][i] / m[i][i]
            m[r] = [m[r][j] - f * m[i][j] for j in range(n + 1)]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def energy_fit(path, entries, fail):
    """Least squares of energy (µJ) on flops, L2 bytes and cycles over one file's capped, grouped rows."""
    rows = []
    top = max(e[3] for e in entries)
    for case, key, us, mhz, cap, watts in entries:
        k = KEY.match(key)
        # Held down: the cap's reason seen and the clock two 15 MHz steps or more under the file's highest.
        if not cap or mhz > top - 30 or "_g" in k.group(3):
            continue
        m, n, kk = (int(v) for v in CASE.match(case).groups())
        bm, bn, bk = (int(v) for v in k.group(1).split("x"))
        tm, tn, kt = -(-m // bm), -(-n // bn), -(-kk // bk)
        flops = 2.0 * tm * bm * tn * bn * kt * bk
        l2 = float(tm * tn * kt * (bm + bn) * bk * 2)
        cycles = us * mhz  # µs x MHz
        rows.append((case, key, us, mhz, watts, [flops, l2, cycles], us * watts))  # µJ
    if len(rows) < 4:
        fail(f"--energy: {path}: {len(rows)} power-capped rows of the grouped order; the fit needs at least 4")
    # Scale the columns to 1 so the normal equations stay well conditioned.
    scale = [max(abs(r[5][j]) for r in rows) for j in range(3)]
    x = [[r[5][j] / scale[j] for j in range(3)] for r in rows]
    a = [[sum(v[i] * v[j] for v in x) for j in range(3)] for i in range(3)]
    b = [sum(v[i] * r[6] for v, r in zip(x, rows)) for i in range(3)]
    c = solve(a, b)
    if c is None:
        fail(f"--energy: {path}: the rows do not determine the three constants (flops, bytes and cycles collinear)")
    c = [c[j] / scale[j] for j in range(3)]
    return rows, c


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


def load(path, fail, energy=False):
    """[(case, key, us, mhz, capped[, power_w])] of one power file, in its order."""
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
        row = (case, key, ms * 1e3, float(mhz), capped(reasons))
        if energy:
            w = r.get("power_w")
            if type(w) not in (int, float) or not 0 < w < math.inf:
                fail(f"{where}: power_w must be a positive finite number with --energy, got {w!r}")
            if not CASE.match(case):
                fail(f"{where}: case {case!r}: --energy fits fp16 cases MxNxK[:float16:LL]")
            dims = [int(v) for v in CASE.match(case).groups()] + [int(v) for v in KEY.match(key).group(1).split("x")]
            if min(dims) < 1:
                fail(f"{where}: case {case!r} and key {key!r}: M, N, K and the tile's sides must be positive")
            row += (float(w),)
        out.append(row)
    if not out:
        fail(f"{path}: no rows")
    return out


def main():
    fail, Parser = refusal("power_clocks.py")
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="power files (default: data/h100-profile-power/power-*.jsonl)")
    ap.add_argument("--energy", action="store_true",
                    help="fit energy = e_flop * F + e_byte * B + e_cycle * cycles over the capped rows")
    args = ap.parse_args()
    paths = args.files or sorted(str(p) for p in (ROOT / "data/h100-profile-power").glob("power-*.jsonl"))
    if not paths:
        fail("no power files given and none in data/h100-profile-power")
    loaded = [(path, load(path, fail, args.energy)) for path in paths]
    if args.energy:
        for path, entries in loaded:
            rows, (ef, eb, ec) = energy_fit(path, entries, fail)
            watts = sorted(r[4] for r in rows)
            print(f"{path}: {len(rows)} power-capped rows of the grouped order")
            print(f"e_flop {ef * 1e6:.4f} pJ a flop, e_byte {eb * 1e6:.2f} pJ an L2 byte, "
                  f"e_cycle {ec * 1e3:.1f} nJ a cycle; median power {watts[len(watts) // 2]:.0f} W")
            print("| case | configuration | µs | SM MHz | W | energy µJ | fitted µJ | fitted / measured |")
            print("|---|---|---:|---:|---:|---:|---:|---:|")
            errors = []
            for case, key, us, mhz, w, (flops, l2, cycles), e in rows:
                fit = ef * flops + eb * l2 + ec * cycles
                errors.append(abs(math.log(fit / e)) if fit > 0 else math.inf)
                print(f"| {case} | {key} | {us:.1f} | {mhz:.0f} | {w:.0f} | {e:.0f} | {fit:.0f} | {fit / e:.3f} |")
            print(f"mean |log(fitted / measured)| {sum(errors) / len(errors):.4f}, worst {max(errors):.4f}")
            print()
        return
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
