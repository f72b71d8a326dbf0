#!/usr/bin/env python3
"""What changed between two builds' runs of the same sweeps: compare every run's summary.json
under BEFORE and AFTER (the same sweep directories, e.g. two builds' quick modes of the
reproductions), per sweep: runs, runs whose results changed, and the largest AFCT change.

  PYTHONPATH=python scripts/compare_run_dirs.py runs_before/ runs_after/ [--markdown]

A sweep is a directory holding runs/ (rocelab sweep --out). Keys that say how a run ran,
not what it simulated (the schema's machine-dependent keys, version, events) are left out.
"""
import argparse
import os
import sys

from rocelab import results, schema

IGNORED = {"version", "events", "scheme", "seed", "parallel"}


def sweeps(root):
    """Sweep directories under root (those with runs/), relative to it."""
    found = []
    for here, dirs, _ in os.walk(root):
        if "runs" in dirs and os.path.isfile(os.path.join(here, "sweep.csv")):
            found.append(os.path.relpath(here, root))
            dirs.clear()
    return sorted(found)


def run_summaries(sweep_dir):
    """{run path relative to the sweep: flattened summary}."""
    out = {}
    for run_dir in results.run_dirs(os.path.join(sweep_dir, "runs")):
        rel = os.path.relpath(run_dir, sweep_dir)
        out[rel] = results.flatten(results.read_summary(run_dir))
    return out


def simulated(key):
    """A key that says what a run simulated (not how it ran)."""
    if key.split(".")[0] in IGNORED:
        return False
    return not schema.machine_dependent(key)


def compare(before_root, after_root):
    rows = []
    for sweep in sweeps(after_root):
        before_dir = os.path.join(before_root, sweep)
        if not os.path.isdir(before_dir):
            rows.append((sweep, None))
            continue
        before, after = run_summaries(before_dir), run_summaries(os.path.join(after_root, sweep))
        changed, largest, keys_changed = 0, (0.0, ""), {}
        for run, a in sorted(after.items()):
            b = before.get(run)
            if b is None:
                continue
            moved = [k for k in set(a) | set(b) if simulated(k) and a.get(k) != b.get(k)]
            changed += bool(moved)
            for k in moved:
                keys_changed[k] = keys_changed.get(k, 0) + 1
            fa, fb = a.get("afct_us"), b.get("afct_us")
            if isinstance(fa, (int, float)) and isinstance(fb, (int, float)) and fb:
                rel = (fa - fb) / fb
                if abs(rel) > abs(largest[0]):
                    largest = (rel, f"{run.rsplit('/seed-', 1)[0]} afct {fb:.0f}->{fa:.0f} us")
        common = sorted(keys_changed, key=lambda k: (-keys_changed[k], k))[:4]
        rows.append((sweep, (len(after), changed, largest, common)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args()
    print("| sweep | runs | results changed | largest AFCT change | keys changed most often |")
    print("|---|---|---|---|---|")
    for sweep, row in compare(args.before, args.after):
        if row is None:
            print(f"| {sweep} | - | not in {args.before} | - | - |")
            continue
        runs, changed, (rel, where), common = row
        largest = f"{rel * 100:+.1f}% ({where})" if where else "-"
        print(f"| {sweep} | {runs} | {changed} | {largest} | {', '.join(common) or '-'} |")


if __name__ == "__main__":
    sys.exit(main())
