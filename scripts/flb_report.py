#!/usr/bin/env python3
"""Tables (markdown) from the runs of scripts/reproduce_flb.sh: one per compare.csv under
runs/flb, plus the per-flow throughput of f0, f1, f2 around the burst for Fig. 2/9/10."""
import csv
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/flb"
COLS = [("flows_completed", "done", "{:.0f}"), ("afct_us", "AFCT (us)", "{:.1f}"),
        ("p99_fct_us", "p99 FCT (us)", "{:.1f}"), ("by_size.small.p99_slowdown", "p99 sd small", "{:.2f}"),
        ("pfc_pause_frames", "PAUSE frames", "{:.0f}"), ("paused_links", "paused links", "{:.0f}"),
        ("fabric_utilization", "fabric util", "{:.3f}"), ("disordered_ratio", "disordered", "{:.4f}"),
        ("network_reordered_ratio", "net reordered", "{:.4f}"),
        ("ood_p99_packets", "p99 OOD", "{:.0f}"), ("sim_time_ns", "sim time (ms)", None)]


def fmt(key, spec, value):
    if key == "sim_time_ns":
        return "{:.2f}".format(float(value) / 1e6)
    if value is None:
        return "-"
    try:
        return spec.format(float(value))
    except ValueError:
        return value


def burst_throughput(run_dir):
    path = os.path.join(run_dir, "ts_flow_throughput.csv")
    if not os.path.exists(path):
        return None
    pre, during = {0: 0.0, 1: 0.0, 2: 0.0}, {0: 0.0, 1: 0.0, 2: 0.0}
    with open(path) as f:
        for row in csv.DictReader(f):
            flow = int(row["flow"])
            if flow > 2:
                continue
            t = float(row["time_ns"]) / 1e6
            if 30 < t <= 40:
                pre[flow] += float(row["goodput_gbps"]) / 100
            elif 40.2 < t <= 47:
                during[flow] += float(row["goodput_gbps"]) / 68
    return pre, during


def main():
    for dirpath, _, files in sorted(os.walk(ROOT)):
        if "compare.csv" not in files:
            continue
        rel = os.path.relpath(dirpath, ROOT)
        print(f"\n#### {rel}\n")
        with open(os.path.join(dirpath, "compare.csv")) as f:
            rows = list(csv.DictReader(f))
        print("| scheme | " + " | ".join(c[1] for c in COLS) + " |")
        print("|---" * (len(COLS) + 1) + "|")
        for r in rows:
            print(f"| {r['scheme']} | " + " | ".join(fmt(k, s, r.get(k)) for k, _, s in COLS) + " |")
        tp = [(r["scheme"], burst_throughput(os.path.join(dirpath, r["scheme"]))) for r in rows]
        if any(t for _, t in tp):
            print("\nGoodput (Gb/s) of f0, f1, f2 before (30-40 ms) and during (40.2-47 ms) the burst:\n")
            print("| scheme | f0 before | f0 during | f1 before | f1 during | f2 before | f2 during |")
            print("|---|---|---|---|---|---|---|")
            for name, t in tp:
                if t:
                    pre, dur = t
                    print(f"| {name} | " + " | ".join(f"{pre[i]:.1f} | {dur[i]:.1f}" for i in range(3)) + " |")


if __name__ == "__main__":
    main()
