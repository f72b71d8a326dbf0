#!/usr/bin/env python3
"""The BFC reproduction's tables and figures from the sweeps of scripts/reproduce_bfc.sh:
    python3 scripts/bfc_report.py [runs/bfc [OUT]] > runs/bfc/results.md
Every figure is the mean over the sweep's seeds ± the half-width of its 95% confidence
interval (Student's t, as rocelab's sweep.csv). Slowdowns are of the background traffic
(the paper reports only the non-incast flows), per size bucket from each run's flows.csv.
Figures (PNG) go to OUT (default: the runs directory) when matplotlib is there."""
import csv
import json
import math
import os
import sys

from rocelab.results import provenance  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/bfc"
OUT = sys.argv[2] if len(sys.argv) > 2 else ROOT
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
try:
    from rocelab.stats import mean_ci as _mean_ci, percentile
except ImportError:
    sys.exit("bfc_report.py: needs the rocelab Python package on the path: PYTHONPATH=python")
from flb_report import table  # noqa: E402  (markdown table; the module only defines)

csv.field_size_limit(1 << 24)
BDP = 100_000  # T1's end-to-end BDP: 8 us at 100 Gb/s (§4.1)
# Fig. 5's size axis by BDP: one packet, up to 0.1, 1 and 10 BDPs, and beyond.
BUCKETS = [(0, 1000, "≤ 1 KB"), (1000, BDP // 10, "1-10 KB"), (BDP // 10, BDP, "10-100 KB"),
           (BDP, 10 * BDP, "100 KB-1 MB"), (10 * BDP, float("inf"), "> 1 MB")]
NAMES = {"ecmp+win+bfc": "BFC", "ecmp+dcqcn+pfc": "DCQCN", "ecmp+dcqcn_win+pfc": "DCQCN+Win",
         "ecmp+dcqcn_win+sfq": "DCQCN+Win+SFQ", "ecmp+hpcc+pfc": "HPCC", "ideal-fq": "Ideal-FQ",
         "bfc": "BFC", "bfc-vfid": "BFC-VFID", "sfq-infbuffer": "SFQ+InfBuffer",
         "bfc-highpriorityq": "BFC-HighPriorityQ", "bfc-first-reading": "BFC, first reading",
         "bfc-recheck-only": "BFC, recheck_threshold only", "bfc-keep-only": "BFC, keep_queue only",
         "bfc-bufferopt": "BFC-BufferOpt"}


def mean_ci(xs):
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    if not xs:
        return None, None
    return _mean_ci(xs)


def fmt(xs, digits=1, scale=1.0):
    m, c = mean_ci(xs)
    if m is None:
        return "-"
    text = f"{m * scale:,.{digits}f}"
    return text + (f" ± {c * scale:,.{digits}f}" if c else "")


class Run:
    def __init__(self, d):
        self.dir = d
        with open(os.path.join(d, "summary.json")) as f:
            self.s = json.load(f)
        self._buckets = None

    def get(self, path):
        v = self.s
        for k in path.split("/"):
            if not isinstance(v, dict) or k not in v:
                return None
            v = v[k]
        return v

    def fct_range(self):
        """(shortest, longest) FCT in µs over the run's finished flows."""
        with open(os.path.join(self.dir, "flows.csv"), newline="") as f:
            fcts = [float(r["fct_ns"]) / 1e3 for r in csv.DictReader(f) if r["fct_ns"]]
        return min(fcts), max(fcts)

    def buckets(self, tags=("background",)):
        """p99 slowdown per size bucket of the flows with these tags (finished ones)."""
        if self._buckets is None:
            per = [[] for _ in BUCKETS]
            with open(os.path.join(self.dir, "flows.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    if r["tag"] not in tags or not r["slowdown"]:
                        continue
                    size = int(r["size_bytes"])
                    for i, (lo, hi, _) in enumerate(BUCKETS):
                        if lo < size <= hi:
                            per[i].append(float(r["slowdown"]))
                            break
            self._buckets = [percentile(sorted(b), 99) if b else None for b in per]
        return self._buckets


def sweep(name):
    """{(point, scheme): [Run]} in the order of runs.csv, or None if not run."""
    path = os.path.join(ROOT, name, "runs.csv")
    if not os.path.exists(path):
        return None
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] not in ("done", "reused"):
                continue
            out.setdefault((r["point"], r["scheme"]), []).append(Run(os.path.join(ROOT, name, r["dir"])))
    return out


def header(title, name, note=None):
    print(f"\n### {title}\n\n`rocelab sweep scenarios/bfc/sweeps/{name}.yaml`"
          + (f". {note}" if note else "") + "\n")


def missing(name):
    print(f"_not run yet: `rocelab sweep scenarios/bfc/sweeps/{name}.yaml`_\n")


def label(scheme):
    return NAMES.get(scheme, scheme)


def point_value(point):
    return point.split("=", 1)[1] if "=" in point else point


def bg(key):
    return lambda r: r.get(f"by_tag/background/{key}")


def fc(key):
    return lambda r: r.get(f"fc_stats/bfc.{key}")


def fig5(name, title):
    """Background p99 slowdown per size bucket, AFCT, PAUSE frames, per scheme."""
    header(title, name)
    sw = sweep(name)
    if not sw:
        missing(name)
        return None
    body, curves = [], {}
    multi = len({p for p, _ in sw}) > 1
    for (point, scheme), runs in sw.items():
        per_bucket = [[r.buckets()[i] for r in runs] for i in range(len(BUCKETS))]
        name = label(scheme) + (f" ({point_value(point)})" if multi else "")
        curves[name] = [mean_ci(b) for b in per_bucket]
        body.append([name, fmt([bg("afct_us")(r) for r in runs]),
                     fmt([bg("p99_slowdown")(r) for r in runs])]
                    + [fmt(b) for b in per_bucket]
                    + [fmt([r.get("pfc_pause_frames") for r in runs], 0), str(len(runs))])
    table(["scheme", "AFCT (µs)", "p99 slowdown"] + [f"p99, {b[2]}" for b in BUCKETS]
          + ["PAUSE frames", "seeds"], body)
    return curves


def by_scheme(name, title, cols, note=None):
    """One row per (point, scheme): cols = [(label, getter, digits, scale)]."""
    header(title, name, note)
    sw = sweep(name)
    if not sw:
        missing(name)
        return None
    multi = len({p for p, _ in sw}) > 1
    body, series = [], {}
    for (point, scheme), runs in sw.items():
        vals = [[g(r) for r in runs] for _, g, _, _ in cols]
        series.setdefault(label(scheme), []).append((point_value(point), [mean_ci(v) for v in vals]))
        body.append(([point_value(point)] if multi else []) + [label(scheme)]
                    + [fmt(v, d, s) for v, (_, _, d, s) in zip(vals, cols)] + [str(len(runs))])
    key = next(iter(sw))[0].split("=")[0] if multi else None
    table(([key] if multi else []) + ["scheme"] + [c[0] for c in cols] + ["seeds"], body)
    return series


def ratio(a, b):
    return lambda r: (r.get(a) / r.get(b)) if r.get(a) is not None and r.get(b) else None


def main():
    print("# BFC reproduction: results\n")
    print("Generated by `scripts/bfc_report.py` from the sweeps of `scripts/reproduce_bfc.sh` (figures: `bfc_*.png` beside this file). "
          "Mean ± 95% interval over seeds; slowdowns of the background (non-incast) flows; "
          "size buckets by the end-to-end BDP (100 KB).")
    print("\n" + provenance(ROOT))
    figs = {}
    figs["5a"] = fig5("t1_google_incast", "Fig. 5a: T1, Google 60% + 5% 100-to-1 incast")
    figs["5b"] = fig5("fig5b_hadoop_incast", "Fig. 5b: T1, FB_Hadoop 60% + 5% 100-to-1 incast")
    figs["5c"] = fig5("t1_google", "Fig. 5c: T1, Google without incast")
    fig5("t1_schemes", "Fig. 5's shape without incast: T1, FB_Hadoop and WebSearch at 60%")
    figs["6"] = by_scheme(
        "fig6_buffers", "Fig. 6: switch buffer occupancy and PFC pause time (Fig. 5a's setting)",
        [("buffer p50 (KB)", lambda r: r.get("switch_buffer/p50_kb"), 0, 1),
         ("p99 (KB)", lambda r: r.get("switch_buffer/p99_kb"), 0, 1),
         ("max (KB)", lambda r: r.get("switch_buffer/max_kb"), 0, 1),
         ("links' time paused (%)", lambda r: r.get("mean_paused_time_fraction"), 3, 100),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)],
        "Buffer: every switch sampled each 1 µs; pause time: mean over all directed links.")
    cdf = sweep("fig6_buffers")
    if cdf:
        figs["6cdf"] = {label(s): [mean_ci([r.get("switch_buffer/cdf_kb")[i] for r in runs])
                                   for i in range(21)] for (_, s), runs in cdf.items()}
    figs["7"] = by_scheme(
        "fig7_static_queues", "Fig. 7: static queue assignment (Fig. 5a's setting)",
        [("p99 slowdown", bg("p99_slowdown"), 2, 1),
         ("p99, flows ≤ 1 KB", lambda r: r.buckets()[0], 2, 1),
         ("p99, 1-100 KB", lambda r: max(x for x in r.buckets()[1:3] if x is not None), 2, 1),
         ("queue collisions (% of assignments)",
          ratio("fc_stats/bfc.queue_collisions", "fc_stats/bfc.queue_assignments"), 2, 100),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)],
        "SFQ+InfBuffer has no VFID table: no collision figure.")
    figs["8"] = by_scheme(
        "fig8_incast_fanin", "Fig. 8: incast fan-in against utilisation (T2)",
        [("host-link utilisation (%)", lambda r: r.get("host_link_utilization"), 1, 100),
         ("fabric utilisation (%)", lambda r: r.get("fabric_utilization"), 1, 100),
         ("p99 switch buffer (KB)", lambda r: r.get("switch_buffer/p99_kb"), 0, 1),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)])
    figs["8ref"] = by_scheme(
        "fig8_no_incast", "Fig. 8's reference: the long-lived flows alone",
        [("host-link utilisation (%)", lambda r: r.get("host_link_utilization"), 1, 100),
         ("p99 switch buffer (KB)", lambda r: r.get("switch_buffer/p99_kb"), 0, 1)])
    tag = lambda t, k: lambda r: r.get(f"by_tag/{t}/{k}")  # noqa: E731
    both = lambda t1, t2, k: lambda r: max(  # noqa: E731
        x for x in (tag(t1, k)(r), tag(t2, k)(r)) if x is not None)
    figs["9"] = by_scheme(
        "fig9_two_dc", "Fig. 9: two data centers over a 200 µs link",
        [("intra-DC p99 slowdown", both("intra_a", "intra_b", "p99_slowdown"), 2, 1),
         ("inter-DC p99 slowdown", both("inter_ab", "inter_ba", "p99_slowdown"), 2, 1),
         ("inter-DC p99 FCT (µs)", both("inter_ab", "inter_ba", "p99_fct_us"), 0, 1),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)],
        "The worse of the two DCs' (or directions') p99 per run.")
    figs["10"] = by_scheme(
        "fig10_fanin", "Fig. 10: physical-queue occupancy against concurrent flows",
        [("p99 physical queue at arrival (KB)", fc("p99_physical_queue_kb_at_arrival"), 0, 1),
         ("deepest physical queue (KB)", fc("max_physical_queue_bytes"), 1, 1e-3),
         ("deepest queue a resume's burst landed on (KB)",
          fc("max_physical_queue_bytes_at_burst"), 1, 1e-3),
         ("resume bursts", fc("resume_bursts"), 0, 1),
         ("bursts within tau of the last in their queue", fc("stacked_resume_bursts"), 0, 1),
         ("queue collisions", fc("queue_collisions"), 0, 1),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)],
        "flows_per_sender 1 / 4 / 16 = 16 / 64 / 256 flows. The paper plots the p99 per "
        "physical queue at the switch; ours is the p99 of the depth each arrival finds (1 KB bins, "
        "every queue of every switch).")
    by_scheme(
        "t1_fanin", "Fig. 10's T1 check: 254 flows of 1 MB into one host (ideal 20.3 ms)",
        [("shortest FCT (ms)", lambda r: r.fct_range()[0], 1, 1e-3),
         ("longest FCT (ms)", lambda r: r.fct_range()[1], 1, 1e-3),
         ("receiver-link utilisation (%)", lambda r: 20.3e3 / r.fct_range()[1], 1, 100),
         ("deepest physical queue (KB)", fc("max_physical_queue_bytes"), 0, 1e-3),
         ("mean BFC pause (µs)", ratio("fc_stats/bfc.paused_time_us", "fc_stats/bfc.pauses"), 0, 1),
         ("timeouts", lambda r: r.get("timeouts"), 0, 1),
         ("resent (MB)", lambda r: r.get("retransmitted_bytes"), 1, 1e-6),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)],
        "Utilisation: the ideal 20.3 ms over the last flow's finish. Timeouts resend data that "
        "was still queued: nothing is lost.")
    readings_cols = [
        ("p99 slowdown", bg("p99_slowdown"), 2, 1),
        ("host-link utilisation (%)", lambda r: r.get("host_link_utilization"), 1, 100),
        ("deepest physical queue (KB)", fc("max_physical_queue_bytes"), 0, 1e-3),
        ("p99 queue at arrival (KB)", fc("p99_physical_queue_kb_at_arrival"), 0, 1),
        ("queue collisions", fc("queue_collisions"), 0, 1),
        ("timeouts", lambda r: r.get("timeouts"), 0, 1),
        ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)]
    by_scheme("readings", "The readings of §3.3 on Fig. 5a's setting", readings_cols)
    by_scheme("readings_fig8", "The readings of §3.3 on Fig. 8's fan-in", readings_cols)
    figs["11"] = by_scheme(
        "fig11_high_priority_queue", "Fig. 11: the high-priority queue (Google 85% + 5% incast)",
        [("p99 slowdown", bg("p99_slowdown"), 2, 1),
         ("p99, flows ≤ 1 KB", lambda r: r.buckets()[0], 2, 1),
         ("p99, 1-100 KB", lambda r: max(x for x in r.buckets()[1:3] if x is not None), 2, 1),
         ("queues in use, p50", fc("p50_queues_in_use_at_assignment"), 1, 1),
         ("p99", fc("p99_queues_in_use_at_assignment"), 1, 1),
         ("collisions (%)",
          ratio("fc_stats/bfc.queue_collisions", "fc_stats/bfc.queue_assignments"), 2, 100)],
        "Queues in use: physical queues a port already used when a flow needed one (the worst "
        "switch's percentile).")
    common = [("p99 slowdown", bg("p99_slowdown"), 2, 1),
              ("p99, flows ≤ 1 KB", lambda r: r.buckets()[0], 2, 1),
              ("AFCT (µs)", bg("afct_us"), 1, 1)]
    figs["12"] = by_scheme(
        "fig12_queues", "Fig. 12: physical queues per port", common +
        [("queue collisions (%)",
          ratio("fc_stats/bfc.queue_collisions", "fc_stats/bfc.queue_assignments"), 2, 100),
         ("PAUSE frames", lambda r: r.get("pfc_pause_frames"), 0, 1)])
    figs["13"] = by_scheme(
        "fig13_vfids", "Fig. 13: VFIDs (hash-table buckets)", common +
        [("VFID collisions per 1k assignments",
          ratio("fc_stats/bfc.vfid_collisions", "fc_stats/bfc.queue_assignments"), 3, 1000),
         ("overflow-queue packets", fc("overflow_queue_packets"), 0, 1),
         ("TCAM inserts", fc("tcam_inserts"), 0, 1)])
    figs["14"] = by_scheme("fig14_filter", "Fig. 14: pause bloom filter size (bytes)", common +
                           [("pauses", fc("pauses"), 0, 1)])
    plots(figs)


def plots(figs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("_matplotlib missing: no figures_", file=sys.stderr)
        return
    os.makedirs(OUT, exist_ok=True)

    def save(fig, name):
        fig.savefig(os.path.join(OUT, f"bfc_{name}.png"), dpi=110, bbox_inches="tight")
        plt.close(fig)

    panels = [(k, t) for k, t in (("5a", "Google + incast"), ("5b", "FB_Hadoop + incast"),
                                  ("5c", "Google, no incast")) if figs.get(k)]
    if panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8), squeeze=False)
        for ax, (k, title) in zip(axes[0], panels):
            for name, stats in figs[k].items():
                xs = [i for i, (m, _) in enumerate(stats) if m is not None]
                ms = [stats[i][0] for i in xs]
                cs = [stats[i][1] or 0 for i in xs]
                # Log axis: the lower bar stops above zero.
                ax.errorbar(xs, ms, yerr=[[min(c, 0.9 * m) for m, c in zip(ms, cs)], cs],
                            marker="o", markersize=3, capsize=2, label=name)
            ax.set_xticks(range(len(BUCKETS)), [b[2] for b in BUCKETS], rotation=30, fontsize=8)
            ax.set_yscale("log")
            ax.set_ylabel("p99 FCT slowdown")
            ax.set_title(f"Fig. 5{k[1]}: {title}", fontsize=10)
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=7)
        save(fig, "fig5")
    if figs.get("6cdf"):
        fig, ax = plt.subplots(figsize=(5, 3.6))
        for name, stats in figs["6cdf"].items():
            ax.plot([m / 1e3 for m, _ in stats], [i * 5 for i in range(21)], label=name)
        ax.set_xlabel("switch buffer occupancy (MB)")
        ax.set_ylabel("CDF (%)")
        ax.set_title("Fig. 6a: buffer occupancy (mean CDF over seeds)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        save(fig, "fig6_buffer_cdf")

    def against(key, name, title, xlabel, col, ylabel, log_x=False, scale=1.0):
        if not figs.get(key):
            return
        fig, ax = plt.subplots(figsize=(5, 3.6))
        for scheme, pts in figs[key].items():
            xs = [float(p) for p, _ in pts]
            ax.errorbar(xs, [v[col][0] * scale for _, v in pts],
                        yerr=[(v[col][1] or 0) * scale for _, v in pts],
                        marker="o", markersize=3, capsize=2, label=scheme)
        if log_x:
            ax.set_xscale("log", base=2)
            ticks = sorted({float(p) for pts in figs[key].values() for p, _ in pts})
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=8)
            ax.minorticks_off()
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        save(fig, name)

    against("8", "fig8_utilisation", "Fig. 8a: utilisation against incast fan-in", "fan-in", 0,
            "host-link utilisation (%)", True, 100)
    against("8", "fig8_buffer", "Fig. 8b: p99 switch buffer against fan-in", "fan-in", 2,
            "p99 switch buffer (KB)", True)
    against("12", "fig12_queues", "Fig. 12: physical queues per port", "queues", 0,
            "p99 slowdown (background)", True)
    against("13", "fig13_vfids", "Fig. 13: VFIDs", "VFIDs", 0, "p99 slowdown (background)", True)
    against("14", "fig14_filter", "Fig. 14: bloom filter size", "bytes", 0,
            "p99 slowdown (background)", True)


if __name__ == "__main__":
    main()
