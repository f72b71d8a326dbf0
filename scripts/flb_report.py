#!/usr/bin/env python3
"""The FLB reproduction's tables (markdown) from the sweeps of scripts/reproduce_flb.sh:
    python3 scripts/flb_report.py [runs/flb] > runs/flb/results.md
Every figure is the mean over the sweep's seeds ± the half-width of its 95% confidence
interval (Student's t), as rocelab's sweep.csv gives it; per-flow goodput (Fig. 2, 10) is
computed here from each run's time series, with the same interval."""
import csv
import os
import sys

from rocelab.results import provenance  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/flb"
# The interval as rocelab computes it (src/stats/confidence.cc), from the plot script.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
try:
    from rocelab.stats import mean_ci as _mean_ci
except ImportError:
    sys.exit("flb_report.py: needs the rocelab Python package on the path: PYTHONPATH=python")


def mean_ci(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None
    return _mean_ci(xs)


def rows(sweep, name="sweep.csv"):
    path = os.path.join(ROOT, sweep, name)
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(m, c, digits=0, scale=1.0):
    if m is None:
        return "-"
    text = f"{m * scale:,.{digits}f}"
    if c:
        text += f" ± {c * scale:,.{digits}f}"
    return text


def cell(r, key, digits=0, scale=1.0):
    return fmt(num(r.get(key + ".mean")), num(r.get(key + ".ci95")), digits, scale)


def short(scheme):
    return scheme.replace("+pfc", "")


def header(title, note=None):
    print(f"\n### {title}\n")
    if note:
        print(note + "\n")


def table(head, body):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for b in body:
        print("| " + " | ".join(b) + " |")
    print()


def missing(sweep):
    print(f"_not run yet: `rocelab sweep scenarios/flb/sweeps/{sweep}.yaml`_\n")


def seeds_of(rs):
    n = sorted({r["runs"] for r in rs})
    return "/".join(n)


def per_scheme(sweep, title, cols, note=None):
    """One row per scheme (single-point sweeps): [(metric key, label, digits, scale)]."""
    header(title, note)
    rs = rows(sweep)
    if not rs:
        return missing(sweep)
    table(["scheme"] + [c[1] for c in cols] + ["seeds"],
          [[short(r["scheme"])] + [cell(r, k, d, s) for k, _, d, s in cols] + [r["runs"]]
           for r in rs])


def per_point_schemes(sweep, point, title, cols, note=None):
    """One row per scheme at one point (case) of a sweep."""
    header(title, note)
    rs = [r for r in rows(sweep) or [] if r["point"] == point]
    if not rs:
        return missing(sweep)
    table(["scheme"] + [c[1] for c in cols] + ["seeds"],
          [[short(r["scheme"])] + [cell(r, k, d, s) for k, _, d, s in cols] + [r["runs"]]
           for r in rs])


def by_point(sweep, title, point_cols, metric, digits=0, scale=1.0, note=None):
    """Points as rows, schemes as columns, one metric."""
    header(title, note)
    rs = rows(sweep)
    if not rs:
        return missing(sweep)
    schemes = list(dict.fromkeys(r["scheme"] for r in rs))
    points = list(dict.fromkeys(tuple(r[c] for c in point_cols) for r in rs))
    by = {(tuple(r[c] for c in point_cols), r["scheme"]): r for r in rs}
    body = []
    for p in points:
        body.append([", ".join(p)] + [cell(by[(p, s)], metric, digits, scale) if (p, s) in by
                                      else "-" for s in schemes])
    table([" / ".join(c.split(".")[-1] for c in point_cols)] + [short(s) for s in schemes], body)
    print(f"(seeds per cell: {seeds_of(rs)})\n")


# ------------------------------------------------------------- per-flow goodput (Fig. 2, 10)
def flow_goodput(run_dir, flows=(0, 1, 2)):
    """f0-f2's mean goodput before (30-40 ms), during (40.2 ms to the burst's last flow) and
    after the burst (the 5 ms after it, while the flow lasts), in Gb/s."""
    ts = os.path.join(run_dir, "ts_flow_throughput.csv")
    fl = os.path.join(run_dir, "flows.csv")
    if not os.path.exists(ts) or not os.path.exists(fl):
        return None
    burst_end, ends = 0.0, {}
    with open(fl, newline="") as f:
        for r in csv.DictReader(f):
            finish = num(r["finish_ns"])
            if finish is None:
                continue
            if r["tag"] == "burst":
                burst_end = max(burst_end, finish / 1e6)
            elif int(r["id"]) in flows:
                ends[int(r["id"])] = finish / 1e6
    windows = {"before": (30.0, 40.0), "during": (40.2, max(40.3, burst_end)),
               "after": (burst_end, burst_end + 5.0)}
    sums = {(k, w): 0.0 for k in flows for w in windows}
    with open(ts, newline="") as f:
        for r in csv.DictReader(f):
            k = int(r["flow"])
            if k not in flows:
                continue
            t = float(r["time_ns"]) / 1e6
            for w, (a, b) in windows.items():
                if a < t <= b:
                    sums[(k, w)] += float(r["goodput_gbps"])
    # Paths P0-P2 of the testbed: S0's uplinks to S1, S2, S3.
    path_sums = {(k, w): 0.0 for k in (0, 1, 2) for w in windows}
    pt = os.path.join(run_dir, "ts_path_throughput.csv")
    if os.path.exists(pt):
        with open(pt, newline="") as f:
            for r in csv.DictReader(f):
                if r["edge"] != "S0" or r["next_hop"] not in ("S1", "S2", "S3"):
                    continue
                t = float(r["time_ns"]) / 1e6
                for w, (a, b) in windows.items():
                    if a < t <= b:
                        path_sums[(int(r["next_hop"][1]) - 1, w)] += float(r["throughput_gbps"])
    out = {}
    for k in (0, 1, 2):
        for w, (a, b) in windows.items():
            out[("P", k, w)] = path_sums[(k, w)] / ((b - a) / 0.1)
    for k in flows:
        for w, (a, b) in windows.items():
            # Time-series rows are 100 us apart; a flow that ended inside the window counts
            # only while it lasted.
            end = min(b, ends.get(k, b))
            span = (end - a) / 0.1
            out[(k, w)] = sums[(k, w)] / span if span >= 1 else None
    return out


def goodput_table(sweep, title, point_col=None, note=None):
    header(title, note)
    rs = rows(sweep, "runs.csv")
    if not rs:
        return missing(sweep)
    groups = {}
    for r in rs:
        if r["status"] not in ("done", "reused"):
            continue
        key = ((r[point_col],) if point_col else ()) + (r["scheme"],)
        g = flow_goodput(os.path.join(ROOT, sweep, r["dir"]))
        if g:
            groups.setdefault(key, []).append(g)
    head = ([point_col.split(".")[-1]] if point_col else []) + ["scheme"]
    head += [f"f{k} {w}" for k in (0, 1, 2) for w in ("before", "during")] + ["f2 after"]
    head += [f"P{k} during" for k in (0, 1, 2)] + ["seeds"]
    body = []
    for key, gs in groups.items():
        cells = [short(x) for x in key]
        for k in (0, 1, 2):
            for w in ("before", "during"):
                cells.append(fmt(*mean_ci([g[(k, w)] for g in gs]), 1))
        cells.append(fmt(*mean_ci([g[(2, "after")] for g in gs]), 1))
        for k in (0, 1, 2):
            cells.append(fmt(*mean_ci([g[("P", k, "during")] for g in gs]), 1))
        cells.append(str(len(gs)))
        body.append(cells)
    table(head, body)


def paired(sweep, a, b, key="afct_us", point="base"):
    """Seed by seed: how often scheme a has a lower `key` than scheme b, and the mean of
    their ratio a/b with its interval (seeds give both schemes the same arrivals)."""
    rs = rows(sweep, "runs.csv")
    if not rs:
        return
    by = {}
    for r in rs:
        if r["point"] == point and r["status"] in ("done", "reused"):
            by[(r["scheme"], r["seed"])] = num(r[key])
    seeds = sorted({sd for (_, sd) in by}, key=int)
    pairs = [(by[(a, sd)], by[(b, sd)]) for sd in seeds if (a, sd) in by and (b, sd) in by]
    if not pairs:
        return
    wins = sum(1 for x, y in pairs if x < y)
    m, c = mean_ci([x / y for x, y in pairs])
    where = "" if point == "base" else f" at {point}"
    print(f"- {short(a)} below {short(b)} ({key}){where} in {wins} of {len(pairs)} seeds; "
          f"ratio {fmt(m, c, 3)}\n")


def main():
    print("# FLB reproduction: results\n")
    print("Generated by `scripts/flb_report.py` from the sweeps of `scripts/reproduce_flb.sh`: "
          "mean ± 95% confidence half-width over the seeds (Student's t). Each sweep's own "
          "`report.md` (runs/flb/<sweep>/) has every headline figure and the plots.")
    print("\n" + provenance(ROOT))
    pause_cols = [("pfc_pause_frames", "PAUSE frames", 0, 1), ("paused_links", "paused links", 1, 1)]
    per_scheme("fig2_burst", "Fig. 2, 3: the burst (40 Gb/s testbed)",
               [("afct_us", "AFCT (us)", 0, 1)] + pause_cols)
    goodput_table("fig2_burst", "Fig. 2: goodput of f0, f1, f2 (Gb/s)",
                  note="before = 30-40 ms; during = 40.2 ms to the last burst flow's end; "
                       "f2 after = the 5 ms after it; P0-P2 = S0's uplinks to S1-S3, all "
                       "traffic (line rate here: 37.0 Gb/s of goodput, 40 Gb/s on a path).")
    by_point("fig9_rates", "Fig. 9: PAUSE frames against link speed", ["topology.rate"],
             "pfc_pause_frames")
    by_point("fig9_rates", "Fig. 9: paused links against link speed", ["topology.rate"],
             "paused_links", 1)
    per_scheme("fig8_websearch", "Fig. 8, 13: Web Search at load 0.6 (testbed)",
               [("afct_us", "AFCT (us)", 0, 1), ("p99_fct_us", "p99 FCT (us)", 0, 1),
                ("pfc_pause_frames", "PAUSE frames", 0, 1)])
    paired("fig8_websearch", "flb+rc+pfc", "flb+none+pfc")
    paired("fig8_websearch", "flb+rc+pfc", "ecmp+dcqcn+pfc")
    paired("fig8_websearch", "flb+rc+pfc", "letflow+dcqcn+pfc")
    paired("fig8_websearch", "flb+rc+pfc", "ecmp+dcqcn+pfc", "p99_fct_us")
    per_scheme("fig8_rc_count", "Fig. 8 sensitivity: how long a flow counts in n (lb.flow_timeout)",
               [("afct_us", "AFCT (us)", 0, 1), ("p99_fct_us", "p99 FCT (us)", 0, 1),
                ("pfc_pause_frames", "PAUSE frames", 0, 1)])
    by_point("fig10_interval", "Fig. 10: AFCT (us) against the burst senders' stagger",
             ["workloads.1.sender_spacing"], "afct_us")
    by_point("fig10_interval", "Fig. 10: PAUSE frames against the stagger",
             ["workloads.1.sender_spacing"], "pfc_pause_frames")
    goodput_table("fig10_interval", "Fig. 10: goodput of f0, f1, f2 (Gb/s)",
                  "workloads.1.sender_spacing")
    for sweep, cols, label in [("fig11_symmetric", ["topology.spines", "transport.recovery"],
                                "symmetric paths"),
                               ("fig11_asymmetric", ["case", "transport.recovery"],
                                "1-4 of 8 paths at 25 Gb/s")]:
        by_point(sweep, f"Fig. 11 ({label}): packets reordered in the network (%)", cols,
                 "network_reordered_ratio", 3, 100)
        by_point(sweep, f"Fig. 11 ({label}): disordered arrivals at the receiver (%)", cols,
                 "disordered_ratio", 3, 100)
        by_point(sweep, f"Fig. 11 ({label}): p99 out-of-order degree (packets)", cols,
                 "ood_p99_packets", 1)
    by_point("fig12_threshold", "Fig. 12: AFCT (us) against flows per burst sender",
             ["workloads.1.flows_per_sender"], "afct_us")
    by_point("fig12_threshold", "Fig. 12: PAUSE frames", ["workloads.1.flows_per_sender"],
             "pfc_pause_frames")
    per_scheme("fig4_clos_incast", "Fig. 4: 31-to-1 incast on the 16 x 32 Clos", pause_cols)
    by_point("fig16_incast", "Fig. 16: completion of the 100 MB incast (ms; line rate 21.6)",
             ["workloads.0.senders"], "sim_time_ns", 2, 1e-6)
    by_point("fig16_incast", "Fig. 16: paused links", ["workloads.0.senders"], "paused_links", 1)
    for sweep, cols, label in [("fig16_incast_mprdma",
                                ["workloads.0.senders", "transport.path_policy.initial_window"],
                                "MP-RDMA by its initial window (BDPs; 0 = one packet)"),
                               ("fig16_incast_pcn", ["workloads.0.senders"], "LetFlow+PCN")]:
        by_point(sweep, f"Fig. 16, {label}: completion (ms)", cols, "sim_time_ns", 2, 1e-6)
        by_point(sweep, f"Fig. 16, {label}: paused links", cols, "paused_links", 1)
        by_point(sweep, f"Fig. 16, {label}: PAUSE frames", cols, "pfc_pause_frames")
    per_scheme("sec43_delay_expiry",
               "§4.3 sensitivity: how long a path-delay sample stays usable (Web Server, "
               "reading C, load 0.6)",
               [("afct_us", "AFCT (us)", 0, 1), ("p99_fct_us", "p99 FCT (us)", 0, 1),
                ("network_reordered_ratio", "net reordered (%)", 2, 100),
                ("pfc_pause_frames", "PAUSE frames", 0, 1)])
    paired("sec43_delay_expiry", "flb+rc+pfc", "ecmp+dcqcn+pfc")
    paired("sec43_delay_expiry", "flb+rc-expiry10us", "ecmp+dcqcn+pfc")
    by_point("sec43_datamining_cdf", "§4.3 Data Mining: the two published CDFs (reading C, load 0.6), "
             "AFCT (us)", ["workloads.0.cdf"], "afct_us")
    by_point("sec43_datamining_cdf", "§4.3 Data Mining: AFCT of flows > 1 MB (us)",
             ["workloads.0.cdf"], "by_size.large.afct_us")
    for cdf in ("datamining_xpass", "datamining_vl2"):
        paired("sec43_datamining_cdf", "flb+rc+pfc", "ecmp+dcqcn+pfc", point=f"cdf={cdf}")
    for case in ("C-0.8", "A-0.5"):
        per_point_schemes("sec43_reroute_guard", case,
                          f"§4.3 reroute guard (lb.reroute_guard, lb.age_tick), Web Server, "
                          f"reading {case}",
                          [("afct_us", "AFCT (us)", 0, 1), ("p99_fct_us", "p99 FCT (us)", 0, 1),
                           ("network_reordered_ratio", "net reordered (%)", 2, 100),
                           ("pfc_pause_frames", "PAUSE frames", 0, 1)])
    per_scheme("fig14_pause_sources",
               "Fig. 14: where FLB+RC's PAUSE frames come from (Web Server 0.8, reading C)",
               [("pfc_pause_frames", "PAUSE frames", 0, 1), ("afct_us", "AFCT (us)", 0, 1),
                ("network_reordered_ratio", "net reordered (%)", 2, 100)])
    for sweep, label in [("fig15_gbn_hostload", "A: go-back-N, load per host link"),
                         ("fig15_sr_hostload", "B: selective repeat, load per host link"),
                         ("fig15_sr_fabricload", "C: selective repeat, load on the uplinks")]:
        cols = ["workloads.0.cdf", "workloads.0.load"]
        by_point(sweep, f"Fig. 15 ({label}): AFCT (us)", cols, "afct_us")
        by_point(sweep, f"Fig. 14 ({label}): PAUSE frames", cols, "pfc_pause_frames")
        by_point(sweep, f"§4.3 ({label}): packets reordered in the network (%)", cols,
                 "network_reordered_ratio", 1, 100)
    by_point("fig17_fattree", "Fig. 17: the 12-pod fat-tree, AFCT (us)", ["transport.recovery"],
             "afct_us")


if __name__ == "__main__":
    main()
