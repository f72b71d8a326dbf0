#!/usr/bin/env python3
"""The LBoDSN reproduction's tables (markdown) from the sweeps of scripts/reproduce_lbodsn.sh:
    python3 scripts/lbodsn_report.py [runs/lbodsn] > runs/lbodsn/results.md
Reads every finished run's summary.json (a sweep still running gives what it has). Figures
are the mean over seeds ± the half-width of the 95% confidence interval (Student's t);
"/ LBoDSN" is the ratio of a scheme's seed-mean to LBoDSN's on the same cell, the form of
the paper's Fig. 2-3 (normalised to LBoDSN), with the per-seed paired ratio's interval."""
import csv
import os
import sys

from rocelab.results import provenance  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/lbodsn"
FLB_ROOT = os.path.join(os.path.dirname(ROOT.rstrip("/")), "flb")
PROTEUS_ROOT = os.path.join(os.path.dirname(ROOT.rstrip("/")), "proteus")
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
try:
    from rocelab.results import get, load_runs as load
    from rocelab.stats import fmt
except ImportError:
    sys.exit("lbodsn_report.py: needs the rocelab Python package on the path: PYTHONPATH=python")

LBODSN = "lbodsn+dcqcn"
ORDER = [LBODSN, "lbodsn-fcn-off", "conweave+dcqcn", "conga+dcqcn", "letflow+dcqcn", "drill+dcqcn", "ecmp+dcqcn",
         "flb+rc", "proteus+dcqcn", "bfc"]
BUCKETS = ["small", "medium", "large"]


def values(runs, key):
    return [get(s, key) for s, _ in runs.values()]


def ratio(runs, ref, key):
    """Per seed scheme / LBoDSN on the same seed: mean ± CI."""
    xs = [get(runs[k][0], key) / get(ref[k][0], key) for k in runs if k in ref
          and get(ref[k][0], key)]
    return fmt(xs, 2)


def fct_table(cells, title):
    print(f"### {title}\n")
    for case, schemes in cells.items():
        ref = schemes.get(LBODSN, {})
        print(f"**{case}** (seeds: {len(ref)})\n")
        print("| scheme | mean FCT (us) | / LBoDSN | p99 FCT (us) | / LBoDSN | mean FCT / LBoDSN: "
              "small / medium / large | p99 / LBoDSN: small / medium / large | PAUSE frames |")
        print("|---|---|---|---|---|---|---|---|")
        for name in [n for n in ORDER if n in schemes] + [n for n in schemes if n not in ORDER]:
            r = schemes[name]
            by_mean = " / ".join(ratio(r, ref, f"by_size.{b}.afct_us") for b in BUCKETS)
            by_p99 = " / ".join(ratio(r, ref, f"by_size.{b}.p99_fct_us") for b in BUCKETS)
            print(f"| {name} | {fmt(values(r, 'afct_us'), 1)} | {ratio(r, ref, 'afct_us')} | "
                  f"{fmt(values(r, 'p99_fct_us'), 0)} | {ratio(r, ref, 'p99_fct_us')} | {by_mean} | "
                  f"{by_p99} | {fmt(values(r, 'pfc_pause_frames'), 0)} |")
        print()


def port_queue_stats(s, prefix):
    """Mean, p99, p99.9 of live reorder queues per host-facing port over time, and the max."""
    lb = s.get("lb_stats", {})
    hist = [lb.get(f"{prefix}_port_queues_us_{k:02d}", 0.0) for k in range(17)]
    total = sum(hist)
    if total <= 0:
        return None
    mean = sum(k * t for k, t in enumerate(hist)) / total

    def pct(q):
        acc = 0.0
        for k, t in enumerate(hist):
            acc += t
            if acc >= q * total:
                return k
        return 16

    return mean, pct(0.99), pct(0.999), lb.get(f"{prefix}_max_queues_per_port", 0.0), \
        1 - hist[0] / total


def queue_table(cells):
    print("### Fig. 4: reorder queues per host-facing egress port (time-weighted, zero-filled)\n")
    print("| cell | scheme | mean | p99 | p99.9 | max | time with >= 1 queue | held packets | "
          "reroutes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case, schemes in cells.items():
        for name, prefix, rr in [(LBODSN, "lbodsn", "lbodsn_tails"),
                                 ("conweave+dcqcn", "conweave", "conweave_reroutes")]:
            runs = schemes.get(name, {})
            st = [port_queue_stats(s, prefix) for s, _ in runs.values()]
            st = [x for x in st if x]
            if not st:
                continue
            print(f"| {case} | {name} | {fmt([x[0] for x in st], 4)} | {fmt([x[1] for x in st], 1)}"
                  f" | {fmt([x[2] for x in st], 1)} | {fmt([x[3] for x in st], 1)} | "
                  f"{fmt([100 * x[4] for x in st], 3)}% | "
                  f"{fmt(values(runs, 'lb_stats.' + prefix + '_held_packets'), 0)} | "
                  f"{fmt(values(runs, 'lb_stats.' + rr), 0)} |")
    print()


def pause_origins(run_dir):
    """XOFF frames by (who sends, whom it pauses): leaf/spine and host/switch."""
    out = {}
    path = os.path.join(run_dir, "pfc_events.csv")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["event"] != "XOFF":
                continue
            who = "leaf" if r["switch"].startswith("leaf") else "spine"
            peer = "host" if r["paused_peer"].startswith("h") else "switch"
            out[f"{who}->{peer}"] = out.get(f"{who}->{peer}", 0) + 1
    return out


def mechanism_table(cells):
    print("### The mechanism at work (LBoDSN rows; per run, mean ± CI over seeds)\n")
    keys = [("prediction episodes", "lbodsn_prediction_episodes"),
            ("tries (per-packet retries)", "lbodsn_prediction_tries"),
            ("no flow >= F_cc", "lbodsn_no_congested_flow"),
            ("FCNs (tag 1)", "lbodsn_fcns_sent"), ("before the port's PAUSE", "lbodsn_fcns_before_pause"),
            ("tag-0 FCNs", "lbodsn_clear_fcns_sent"), ("accepted", "lbodsn_reroutes"),
            ("flows moved (TAILs)", "lbodsn_tails"),
            ("FCN ignored (reroute in flight)", "lbodsn_fcn_in_flight"),
            ("stale CNPs", "lbodsn_stale_cnps"), ("discarded", "lbodsn_stale_cnps_discarded")]
    print("| cell | " + " | ".join(k for k, _ in keys) +
          " | FCN delay mean / max (ns) | arrivals at >= 0.5 Q_th | peak Q/Q_th | ConWeave reroutes |")
    print("|---|" + "---|" * (len(keys) + 4))
    for case, schemes in cells.items():
        runs = schemes.get(LBODSN, {})
        if not runs:
            continue
        cols = [fmt(values(runs, "lb_stats." + k), 0) for _, k in keys]
        delay = [get(s, "lb_stats.lbodsn_fcn_delay_sum_ns") / get(s, "lb_stats.lbodsn_fcns_received")
                 for s, _ in runs.values() if get(s, "lb_stats.lbodsn_fcns_received")]
        dmax = values(runs, "lb_stats.lbodsn_fcn_delay_max_ns")
        near = []
        for s, _ in runs.values():
            h = [get(s, f"lb_stats.lbodsn_qth_ratio_arrivals_{k:02d}") or 0 for k in range(11)]
            near.append(100 * sum(h[5:]) / max(1, sum(h)))
        cw = schemes.get("conweave+dcqcn", {})
        print(f"| {case} | " + " | ".join(cols) + f" | {fmt(delay, 0)} / {fmt(dmax, 0)} | "
              f"{fmt(near, 3)}% | {fmt(values(runs, 'lb_stats.lbodsn_max_qth_ratio'), 2)} | "
              f"{fmt(values(cw, 'lb_stats.conweave_reroutes'), 0)} |")
    print()
    print("Where the PAUSEs come from (XOFF frames per run, sender -> paused peer):\n")
    print("| cell | scheme | leaf->host | spine->switch | leaf->switch |")
    print("|---|---|---|---|---|")
    for case, schemes in cells.items():
        for name in [LBODSN, "conweave+dcqcn", "ecmp+dcqcn"]:
            runs = schemes.get(name, {})
            if not runs:
                continue
            o = [pause_origins(d) for _, d in runs.values()]
            print(f"| {case} | {name} | " + " | ".join(
                fmt([x.get(k, 0) for x in o], 0) for k in ["leaf->host", "spine->switch",
                                                              "leaf->switch"]) + " |")
    print()


def case_table(cells, title, scheme=LBODSN):
    print(f"### {title}\n")
    ref = cells.get("default", {}).get(scheme, {})
    print("| case | mean FCT (us) | / default | p99 FCT (us) | / default | flows moved | stale CNPs "
          "discarded | cnps_suppressed | PAUSE frames |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in sorted(cells, key=lambda c: (c != "default", c)):
        r = cells[case].get(scheme, {})
        print(f"| {case} | {fmt(values(r, 'afct_us'), 1)} | {ratio(r, ref, 'afct_us')} | "
              f"{fmt(values(r, 'p99_fct_us'), 0)} | {ratio(r, ref, 'p99_fct_us')} | "
              f"{fmt(values(r, 'lb_stats.lbodsn_tails'), 0)} | "
              f"{fmt(values(r, 'lb_stats.lbodsn_stale_cnps_discarded'), 0)} | "
              f"{fmt(values(r, 'cnps_suppressed'), 0)} | {fmt(values(r, 'pfc_pause_frames'), 0)} |")
    print()


def merged_seed_systems():
    """The four seed systems, with ConWeave and ECMP from fig2/fig3 at load 0.4."""
    cells = load(ROOT, "seed_systems")
    anchors = {"cdf=alistorage2019": load(ROOT, "fig2_alistorage").get("load=0.4", {}),
               "cdf=fb_hadoop2015": load(ROOT, "fig3_hadoop").get("load=0.4", {})}
    for case, extra in anchors.items():
        for name in ["conweave+dcqcn", "ecmp+dcqcn"]:
            if name in extra:
                cells.setdefault(case, {})[name] = extra[name]
    return cells


def main():
    print("# LBoDSN reproduction: results\n")
    print(provenance(ROOT) + "\n")
    fig2, fig3 = load(ROOT, "fig2_alistorage"), load(ROOT, "fig3_hadoop")
    fct_table(fig2, "Fig. 2: AliCloud storage (load = share of each host link; paper 50% / 80%)")
    fct_table(fig3, "Fig. 3: Meta Hadoop")
    queue_table({f"AliStorage {k}": v for k, v in fig2.items()} |
                {f"Hadoop {k}": v for k, v in fig3.items()})
    mechanism_table({f"AliStorage {k}": v for k, v in fig2.items()} |
                    {f"Hadoop {k}": v for k, v in fig3.items()})
    case_table(load(ROOT, "ablation_cnp"), "Stale-CNP discard: defaults, ablations, sensitivity "
               "(AliStorage 40%)")
    case_table(load(ROOT, "ablation_cnp_incast"), "Stale-CNP discard under incasts (2%)")
    case_table(load(ROOT, "ablation_fcn"), "Prediction and FCN readings (AliStorage 40%)")
    incast = load(ROOT, "incast_regime")
    fct_table(incast, "Incasts on top of AliStorage 25%: the regime the prediction is built for")
    mechanism_table({f"incast {k}": v for k, v in incast.items()})
    fct_table(merged_seed_systems(), "The four seed systems on LBoDSN's setting (load 0.4)")
    fct_table(load(FLB_ROOT, "fig8_websearch_lbodsn"), "FLB Fig. 8 (testbed, Web Search 0.6)")
    # LBoDSN's rows beside the Proteus reproduction's own schemes, on the same flows.
    proteus = load(PROTEUS_ROOT, "fig10_websearch_load")
    fct_table({case: proteus.get(case, {}) | schemes
               for case, schemes in load(PROTEUS_ROOT, "fig10_websearch_load_lbodsn").items()},
              "Proteus Fig. 10 (WSc), LBoDSN beside the Proteus reproduction's schemes")


if __name__ == "__main__":
    main()
