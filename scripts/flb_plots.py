#!/usr/bin/python3
"""Plots of the FLB burst experiment (Fig. 2, 3) and the Clos incast (Fig. 4) from the runs
of scripts/reproduce_flb.sh. Needs Debian's python3-matplotlib.
    /usr/bin/python3 scripts/flb_plots.py [runs/flb] [docs/reproduction]"""
import csv
import os
import sys
from collections import defaultdict

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("flb_plots.py: needs matplotlib (apt-get install python3-matplotlib)")

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/flb"
OUT = sys.argv[2] if len(sys.argv) > 2 else "docs/reproduction"
SCHEMES = ["flb+rc+pfc", "flb+dcqcn+pfc", "ecmp+dcqcn+pfc", "letflow+dcqcn+pfc", "letflow+none+pfc",
           "rps+none+pfc"]


def series(path, key_col, value_col, keep):
    out = defaultdict(lambda: ([], []))
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for row in csv.DictReader(f):
            key = row[key_col]
            if not keep(key, row):
                continue
            out[key][0].append(float(row["time_ns"]) / 1e6)
            out[key][1].append(float(row[value_col]))
    return out


def grid(title, fname, per_scheme):
    fig, axes = plt.subplots(2, 3, figsize=(13, 6), sharex=True, sharey=True)
    for ax, scheme in zip(axes.flat, SCHEMES):
        for label, (t, v) in sorted(per_scheme(scheme).items()):
            ax.plot(t, v, label=label, linewidth=0.8)
        ax.set_title(scheme.replace("+pfc", ""))
        ax.set_xlim(30, 60)
        ax.axvline(40, color="grey", linestyle=":", linewidth=0.8)
        ax.legend(fontsize=7, loc="upper right")
    for ax in axes[1]:
        ax.set_xlabel("time (ms)")
    for ax in axes[:, 0]:
        ax.set_ylabel("Gb/s")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, fname), dpi=90)
    print("wrote", os.path.join(OUT, fname))


COLORS = {"flb+rc": "tab:red", "flb+dcqcn": "tab:orange", "flb+none": "tab:pink",
          "ecmp+none": "tab:gray", "ecmp+dcqcn": "tab:blue", "letflow+none": "tab:olive",
          "letflow+dcqcn": "tab:green", "rps+none": "tab:brown", "rps+dcqcn": "tab:purple"}


def compare_rows(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r["scheme"].replace("+pfc", ""): r for r in csv.DictReader(f)}


def fig15():
    """AFCT against load, one panel per workload, for each transport / load variant."""
    cdfs = ["fb_webserver", "fb_cachefollower", "fb_hadoop_homa", "datamining_vl2"]
    variants = [("", "go-back-N, load per host link"), ("sr", "selective repeat, load per host link"),
                ("fabric", "selective repeat, load on the leaf uplinks")]
    fig, axes = plt.subplots(len(variants), len(cdfs), figsize=(15, 10))
    for row, (sub, label) in enumerate(variants):
        for col, cdf in enumerate(cdfs):
            ax = axes[row][col]
            base = os.path.join(ROOT, "fig15", sub, cdf) if sub else os.path.join(ROOT, "fig15", cdf)
            loads = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d))) \
                if os.path.isdir(base) else []
            by_scheme = defaultdict(lambda: ([], []))
            for load in loads:
                for scheme, r in compare_rows(os.path.join(base, load, "compare.csv")).items():
                    by_scheme[scheme][0].append(float(load))
                    by_scheme[scheme][1].append(float(r["afct_us"]) / 1000)
            for scheme, (x, y) in sorted(by_scheme.items()):
                ax.plot(x, y, marker="o", label=scheme, linewidth=1, color=COLORS.get(scheme))
            ax.set_title(f"{cdf} ({label})", fontsize=8)
            ax.set_xlabel("load")
            ax.set_ylabel("AFCT (ms)")
            ax.legend(fontsize=6)
    fig.suptitle("Fig. 15: average FCT on the 10 x 10 leaf-spine")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "flb_fig15_afct.png"), dpi=80)
    print("wrote", os.path.join(OUT, "flb_fig15_afct.png"))


def fig16():
    """Incast completion time (the last flow's end) against the number of senders."""
    base = os.path.join(ROOT, "fig16")
    if not os.path.isdir(base):
        return
    ns = sorted((int(d) for d in os.listdir(base) if d.isdigit()))
    plt.figure(figsize=(6, 4))
    by_scheme = defaultdict(lambda: ([], []))
    for sub, suffix in [("", ""), ("recovery1ms", " (1 ms recovery)")]:
        for n in ns:
            path = os.path.join(base, sub, str(n), "compare.csv") if sub else os.path.join(base, str(n), "compare.csv")
            for scheme, r in compare_rows(path).items():
                by_scheme[scheme + suffix][0].append(n)
                by_scheme[scheme + suffix][1].append(float(r["sim_time_ns"]) / 1e6)
    for scheme, (x, y) in sorted(by_scheme.items()):
        plt.plot(x, y, marker="o", label=scheme, color=COLORS.get(scheme.split(" ")[0]),
                 linestyle="--" if "recovery" in scheme else "-")
    plt.axhline(100e6 * 8 / 40e9 * 1082 / 1000 * 1000, color="grey", linestyle=":", label="line rate")
    plt.xlabel("senders N")
    plt.ylabel("completion of 100 MB (ms)")
    plt.title("Fig. 16: incast of 100 MB from N servers")
    plt.legend(fontsize=7)
    plt.tight_layout()
    plt.savefig(os.path.join(OUT, "flb_fig16_incast.png"), dpi=90)
    print("wrote", os.path.join(OUT, "flb_fig16_incast.png"))


def main():
    os.makedirs(OUT, exist_ok=True)
    fig15()
    fig16()
    fig2 = os.path.join(ROOT, "fig2")
    grid("Fig. 2: goodput of f0, f1, f2 (burst to R2 from 40 ms)", "flb_fig2_flows.png",
         lambda s: {f"f{k}": v for k, v in series(os.path.join(fig2, s, "ts_flow_throughput.csv"),
                                                   "flow", "goodput_gbps",
                                                   lambda k, r: int(k) < 3).items()})
    grid("Fig. 3: throughput of the paths P0-P2 (S0 -> S1, S2, S3)", "flb_fig3_paths.png",
         lambda s: {f"P{int(k[1]) - 1}": v for k, v in series(
             os.path.join(fig2, s, "ts_path_throughput.csv"), "next_hop", "throughput_gbps",
             lambda k, r: r["edge"] == "S0").items()})
    # Fig. 4: links paused at least once in each 500 us window.
    fig4 = os.path.join(ROOT, "fig4")
    plt.figure(figsize=(7, 4))
    for scheme in ["ecmp+none+pfc", "rps+none+pfc", "rps+dcqcn+pfc", "flb+rc+pfc"]:
        path = os.path.join(fig4, scheme, "pfc_events.csv")
        if not os.path.exists(path):
            continue
        windows = defaultdict(set)
        with open(path) as f:
            for row in csv.DictReader(f):
                if row["event"] == "XOFF":
                    windows[int(float(row["time_ns"]) // 500000)].add((row["switch"], row["port"]))
        xs = [w * 0.5 for w in range(0, 40)]
        plt.plot(xs, [len(windows.get(w, ())) for w in range(0, 40)], label=scheme.replace("+pfc", ""))
    plt.xlabel("time (ms)")
    plt.ylabel("links paused in the last 0.5 ms")
    plt.title("Fig. 4: 31-to-1 incast on a 16 x 32 Clos")
    plt.legend()
    plt.tight_layout()
    plt.savefig(os.path.join(OUT, "flb_fig4_paused_links.png"), dpi=90)
    print("wrote", os.path.join(OUT, "flb_fig4_paused_links.png"))


if __name__ == "__main__":
    main()
