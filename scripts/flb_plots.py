#!/usr/bin/python3
"""The FLB paper's own figures from the sweeps of scripts/reproduce_flb.sh: the burst's flows
and paths over time (Fig. 2, 3; first seed), links paused in the Clos incast (Fig. 4; first
seed), AFCT against load (Fig. 15) and incast completion (Fig. 16) with 95% intervals over
seeds. `rocelab report` draws the generic figures of each sweep. Needs python3-matplotlib.
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


def sweep_rows(sweep):
    path = os.path.join(ROOT, sweep, "sweep.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def first_seed_dir(sweep, scheme, point="base"):
    """The run directory of the sweep's first finished seed for a scheme at a point."""
    path = os.path.join(ROOT, sweep, "runs.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["point"] == point and r["scheme"] == scheme and r["status"] in ("done", "reused"):
                return os.path.join(ROOT, sweep, r["dir"])
    return None


def band(ax, xs, rows, key, scale, **kw):
    m = [float(r[key + ".mean"]) * scale for r in rows]
    c = [float(r[key + ".ci95"] or 0) * scale for r in rows]
    line, = ax.plot(xs, m, marker="o", markersize=3, **kw)
    if any(c):
        ax.fill_between(xs, [a - b for a, b in zip(m, c)], [a + b for a, b in zip(m, c)],
                        alpha=0.2, color=line.get_color())


def fig15():
    """AFCT against load, one panel per workload, one row per reading of the setup."""
    cdfs = ["fb_webserver", "fb_cachefollower", "fb_hadoop_homa", "datamining_xpass"]
    readings = [("fig15_gbn_hostload", "go-back-N, load per host link"),
                ("fig15_sr_hostload", "selective repeat, load per host link"),
                ("fig15_sr_fabricload", "selective repeat, load on the leaf uplinks")]
    readings = [(s, label) for s, label in readings if sweep_rows(s)]
    if not readings:
        return
    fig, axes = plt.subplots(len(readings), len(cdfs), figsize=(15, 3.4 * len(readings)),
                             squeeze=False)
    for row, (sweep, label) in enumerate(readings):
        rs = sweep_rows(sweep)
        for col, cdf in enumerate(cdfs):
            ax = axes[row][col]
            by_scheme = defaultdict(list)
            for r in rs:
                if r["workloads.0.cdf"] == cdf and r["afct_us.mean"]:
                    by_scheme[r["scheme"].replace("+pfc", "")].append(r)
            for scheme, srs in sorted(by_scheme.items()):
                srs.sort(key=lambda r: float(r["workloads.0.load"]))
                # A variant of a scheme (flb+rc-literal) takes its colour, dashed.
                variant = scheme not in COLORS
                band(ax, [float(r["workloads.0.load"]) for r in srs], srs, "afct_us", 1e-3,
                     label=scheme, linewidth=1, color=COLORS.get(scheme.split("-")[0]),
                     linestyle="--" if variant else "-")
            ax.set_title(f"{cdf} ({label})", fontsize=8)
            ax.set_xlabel("load")
            ax.set_ylabel("AFCT (ms)")
            ax.legend(fontsize=6)
    fig.suptitle("Fig. 15: average FCT on the 10 x 10 leaf-spine (mean, 95% CI over seeds)")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "flb_fig15_afct.png"), dpi=80)
    print("wrote", os.path.join(OUT, "flb_fig15_afct.png"))


def fig16():
    """Incast completion time (the last flow's end) against the number of senders."""
    rs = sweep_rows("fig16_incast")
    if not rs:
        return
    def senders(r):
        lo, hi = r["workloads.0.senders"].replace("h", "").split("..")
        return int(hi) - int(lo) + 1
    plt.figure(figsize=(6.5, 4))
    by_scheme = defaultdict(list)
    for r in rs:
        by_scheme[r["scheme"].replace("+pfc", "")].append(r)
    for scheme, srs in by_scheme.items():
        srs.sort(key=senders)
        band(plt.gca(), [senders(r) for r in srs], srs, "sim_time_ns", 1e-6, label=scheme,
             color=COLORS.get(scheme.split("-")[0]),
             linestyle="--" if "recovery" in scheme else "-")
    plt.axhline(100e6 * 8 / 40e9 * 1082 / 1000 * 1000, color="grey", linestyle=":",
                label="line rate")
    plt.xlabel("senders N")
    plt.ylabel("completion of 100 MB (ms)")
    plt.title("Fig. 16: incast of 100 MB from N servers (95% CI over seeds)")
    plt.legend(fontsize=7)
    plt.tight_layout()
    plt.savefig(os.path.join(OUT, "flb_fig16_incast.png"), dpi=90)
    print("wrote", os.path.join(OUT, "flb_fig16_incast.png"))


def run_dir_of(scheme):
    return first_seed_dir("fig2_burst", scheme) or ""


def main():
    os.makedirs(OUT, exist_ok=True)
    fig15()
    fig16()
    if os.path.exists(os.path.join(ROOT, "fig2_burst", "runs.csv")):
        grid("Fig. 2: goodput of f0, f1, f2 (burst to R2 from 40 ms; seed 1)", "flb_fig2_flows.png",
             lambda s: {f"f{k}": v for k, v in series(
                 os.path.join(run_dir_of(s), "ts_flow_throughput.csv"), "flow", "goodput_gbps",
                 lambda k, r: int(k) < 3).items()})
        grid("Fig. 3: throughput of the paths P0-P2 (S0 -> S1, S2, S3; seed 1)",
             "flb_fig3_paths.png",
             lambda s: {f"P{int(k[1]) - 1}": v for k, v in series(
                 os.path.join(run_dir_of(s), "ts_path_throughput.csv"), "next_hop",
                 "throughput_gbps", lambda k, r: r["edge"] == "S0").items()})
    # Fig. 4: links paused at least once in each 500 us window.
    if not os.path.exists(os.path.join(ROOT, "fig4_clos_incast", "runs.csv")):
        return
    plt.figure(figsize=(7, 4))
    for scheme in ["ecmp+none+pfc", "rps+none+pfc", "rps+dcqcn+pfc", "flb+rc+pfc"]:
        run = first_seed_dir("fig4_clos_incast", scheme)
        path = os.path.join(run or "", "pfc_events.csv")
        if not run or not os.path.exists(path):
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
    plt.title("Fig. 4: 31-to-1 incast on a 16 x 32 Clos (seed 1)")
    plt.legend()
    plt.tight_layout()
    plt.savefig(os.path.join(OUT, "flb_fig4_paused_links.png"), dpi=90)
    print("wrote", os.path.join(OUT, "flb_fig4_paused_links.png"))


if __name__ == "__main__":
    main()
