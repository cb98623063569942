#!/usr/bin/env python3
"""The family's held-out scores per device and problem class, from `tileplan validate`, for its "validation" section.

Runs `tileplan validate DATASET... --split heldout --format json` with the
family file's constants (datasets of one device preset, which validate
matches from their meta.json) and prints that device's record, or with
--write puts it into the family file beside the other devices' records: for
every problem class of the held-out cases, their count, the first pick's
regret (time over the measured best: geometric mean and worst, with the
worst case) and the best of the first five's geometric mean, each rounded
to 4 digits. `tileplan tile` reports the problem's class from it beside a
plan on the same preset. With no datasets, every record the family holds,
measured again from the datasets it names. Standard library only:

  python3 scripts/validation_record.py data/families/triton.json
  python3 scripts/validation_record.py --write data/families/triton.json data/h100-triton-v47 ...
"""

import json
import os
import pathlib
import subprocess

from harness_io import refusal

ROOT = pathlib.Path(__file__).resolve().parent.parent
fail, Parser = refusal("validation_record.py")


def record(tileplan, family_file, datasets):
    """(device, {"datasets": ..., "classes": ...}) of the datasets' held-out cases."""
    args = [tileplan, "validate", *datasets, "--split", "heldout", "--format", "json", "--family-file", family_file]
    try:
        p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    except OSError as e:
        fail(f"--tileplan {tileplan}: cannot run it ({e.strerror or e})")
    if p.returncode not in (0, 1):
        fail(f"tileplan validate: {' '.join(p.stderr.split())}")
    out = json.loads(p.stdout)
    classes = {}
    for g in out["groups"]:
        c = g["calibrated"]
        if not c or not c.get("shapes"):
            continue
        classes[g["group"]] = {"cases": c["shapes"], "top1_geomean": round(c["top1_geomean"], 4),
                               "top1_worst": round(c["top1_worst"], 4), "top5_geomean": round(c["top5_geomean"], 4),
                               "worst_shape": c["top1_worst_shape"]}
    if not classes:
        fail("no held-out case in the datasets given: nothing to record")
    return out["device"], {"datasets": list(datasets), "classes": dict(sorted(classes.items()))}


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("family", help="the family file, e.g. data/families/triton.json")
    ap.add_argument("datasets", nargs="*", help="dataset folders (default: those the family's section names)")
    ap.add_argument("--write", action="store_true", help="put the section into the family file")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    a = ap.parse_args()
    try:
        text = pathlib.Path(a.family).read_text(encoding="utf-8")
        family = json.loads(text)
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{a.family}: cannot be read ({getattr(e, 'strerror', None) or e})")
    except ValueError:
        fail(f"{a.family}: not a JSON object")
    if not isinstance(family, dict):
        fail(f"{a.family}: not a JSON object")
    recorded = family.get("validation") or {}
    if not isinstance(recorded, dict):
        fail(f"{a.family}: its validation section is not an object of device records")
    runs = [a.datasets] if a.datasets else [r.get("datasets") or [] for r in recorded.values() if isinstance(r, dict)]
    if not runs or not all(runs):
        fail(f"{a.family}: no datasets given and none named in its validation section")
    for d in (d for run in runs for d in run):
        if not os.path.isfile(ROOT / d / "timings.jsonl") and not os.path.isfile(os.path.join(d, "timings.jsonl")):
            fail(f"{d}: no timings.jsonl (a dataset directory of the harness)")
    if not os.access(a.tileplan, os.X_OK):
        fail(f"--tileplan {a.tileplan}: not an executable (build the release preset first)")
    section = dict(recorded)
    for run in runs:
        device, rec = record(a.tileplan, os.path.abspath(a.family), run)
        section[device] = rec
    if not a.write:
        print(json.dumps(section if not a.datasets else {device: section[device]}, indent=2, ensure_ascii=False))
        return
    family["validation"] = dict(sorted(section.items()))
    # Indent 2 and UTF-8 as is, the keys in the file's own order: written back
    # without the section, the shipped file is byte for byte what it was.
    pathlib.Path(a.family).write_text(json.dumps(family, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for device, rec in family["validation"].items():
        worst = max(rec["classes"].items(), key=lambda kv: kv[1]["top1_worst"])
        print(f"{a.family}: {device}: {len(rec['classes'])} classes, "
              f"{sum(c['cases'] for c in rec['classes'].values())} held-out cases "
              f"(worst first pick {worst[1]['top1_worst']:.3f}, {worst[0]})")

if __name__ == "__main__":
    main()
