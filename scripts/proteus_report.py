#!/usr/bin/env python3
"""The Proteus reproduction's tables (markdown) from the sweeps of scripts/reproduce_proteus.sh:
    python3 scripts/proteus_report.py [runs/proteus] > runs/proteus/results.md
Reads every run's summary.json (so a sweep still running gives what it has). Each figure is
the mean over seeds ± the half-width of its 95% confidence interval (Student's t, as
rocelab's sweep.csv computes it); "vs Proteus" is the paired per-seed reduction
1 - Proteus / baseline, with its own interval."""
import os
import sys

from rocelab.results import provenance  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/proteus"
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
try:
    from rocelab.plot import binned, flows_of, size_edges
    from rocelab.results import get, load_runs
    from rocelab.stats import fmt
except ImportError:
    sys.exit("proteus_report.py: needs the rocelab Python package on the path: PYTHONPATH=python")

PROTEUS = "proteus+dcqcn"
ORDER = ["ecmp+dcqcn", "conga+dcqcn", "drill+dcqcn", "hermes+dcqcn", "mprdma", "ideal", PROTEUS,
         "proteus-kickout", "proteus-never"]


def load(sweep):
    """{case: {scheme: {seed: summary}}} for one sweep directory."""
    return {case: {name: {seed: run[0] for seed, run in runs.items()}
                   for name, runs in schemes.items()}
            for case, schemes in load_runs(ROOT, sweep).items()}


def reduction(base_runs, proteus_runs, key):
    """Paired 1 - proteus/baseline over common seeds, in percent."""
    xs = []
    for seed, s in base_runs.items():
        if seed in proteus_runs:
            b, p = get(s, key), get(proteus_runs[seed], key)
            if b and p is not None:
                xs.append(100 * (1 - p / b))
    return fmt(xs, 0) + ("%" if xs else "")


def schemes_of(case):
    names = [n for n in ORDER if n in case] + sorted(n for n in case if n not in ORDER)
    return names


def table(sweep, title, columns, paired=("afct_us", "p99_fct_us")):
    data = load(sweep)
    if not data:
        return
    print(f"\n### {title}\n")
    heads = ["case", "scheme", "seeds"] + [c[0] for c in columns]
    if paired:
        heads += [f"Proteus vs it, {k}" for k in paired]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for case in sorted(data, key=case_key):
        runs = data[case]
        for name in schemes_of(runs):
            r = runs[name]
            cells = [case, name, str(len(r))]
            for _, key, digits, scale in columns:
                cells.append(fmt([get(s, key) for s in r.values()], digits, scale))
            if paired:
                for k in paired:
                    cells.append(
                        reduction(r, runs[PROTEUS], k) if PROTEUS in runs and name != PROTEUS else "")
            print("| " + " | ".join(cells) + " |")


def case_key(case):
    try:
        return (0, float(case.split("=")[-1]))
    except ValueError:
        return (1, case)


def stats_table(sweep, title, keys):
    data = load(sweep)
    if not data:
        return
    print(f"\n### {title}\n")
    heads = ["case", "scheme"] + [k.replace("lb_stats.proteus_", "") for k in keys]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for case in sorted(data, key=case_key):
        for name, r in data[case].items():
            if not name.startswith("proteus"):
                continue
            print("| " + " | ".join([case, name] +
                                    [fmt([get(s, k) for s in r.values()]) for k in keys]) + " |")


FCT = [("AFCT (us)", "afct_us", 0, 1), ("p99 FCT (us)", "p99_fct_us", 0, 1),
       ("AFCT <100KB (us)", "by_size.small.afct_us", 1, 1),
       ("AFCT >1MB (us)", "by_size.large.afct_us", 0, 1),
       ("p99 slowdown <100KB", "by_size.small.p99_slowdown", 1, 1),
       ("reordered %", "network_reordered_ratio", 2, 100), ("PAUSE frames", "pfc_pause_frames", 0, 1)]
HOL = [("AFCT (us)", "afct_us", 0, 1), ("p99 FCT (us)", "p99_fct_us", 0, 1),
       ("p99 slowdown <100KB", "by_size.small.p99_slowdown", 1, 1),
       ("HoL-blocked flows %", "hol_blocked_flow_ratio", 1, 100),
       ("reordered %", "network_reordered_ratio", 2, 100), ("PAUSE frames", "pfc_pause_frames", 0, 1)]
DECISIONS = ["lb_stats.proteus_new_flows", "lb_stats.proteus_select_noncongested",
             "lb_stats.proteus_select_undetermined", "lb_stats.proteus_select_congested",
             "lb_stats.proteus_rtt_reroutes", "lb_stats.proteus_subrtt_reroutes",
             "lb_stats.proteus_subrtt_waits", "lb_stats.proteus_no_alternative"]


def fig11(sweep="fig12_workloads", case="cdf=fb_webserver", max_size=100_000, bins=20):
    """Fig. 11: p99 slowdown of flows <= 100 KB in 20 bins of equal flow count (5% each),
    over the flows of all seeds pooled (every scheme runs the same flows)."""
    base = os.path.join(ROOT, sweep, "runs", case)
    if not os.path.isdir(base):
        return
    pooled = {}
    for scheme in sorted(os.listdir(base)):
        flows = []
        for seed_dir in sorted(os.listdir(os.path.join(base, scheme))):
            path = os.path.join(base, scheme, seed_dir)
            if os.path.exists(os.path.join(path, "flows.csv")):
                flows += [f for f in flows_of(path) if f[0] <= max_size]
        if flows:
            pooled[scheme.replace("+pfc", "")] = flows
    if PROTEUS not in pooled:
        return
    edges = size_edges(pooled[PROTEUS], bins)
    names = schemes_of(pooled)
    p99 = {n: binned(pooled[n], edges, 99) for n in names}
    print(f"\n### Fig. 11: p99 slowdown of flows <= 100 KB, Web Server 0.6, {len(edges)} bins of "
          "equal flow count (all seeds pooled)\n")
    print("| bin (up to bytes) | " + " | ".join(names) + " |")
    print("|" + "---|" * (len(names) + 1))
    for i, e in enumerate(edges):
        print(f"| {e:,} | " + " | ".join(f"{p99[n][i]:.1f}" for n in names) + " |")
    lowest = sum(1 for i in range(len(edges)) if all(p99[PROTEUS][i] <= p99[n][i] for n in names))
    print(f"\nProteus lowest in {lowest} of {len(edges)} bins; largest ratio baseline / Proteus: " +
          ", ".join(f"{n} {max(p99[n][i] / p99[PROTEUS][i] for i in range(len(edges))):.2f}x"
                    for n in names if n != PROTEUS))

print("# Proteus reproduction: results\n")
print(provenance(ROOT) + "\n")
print(f"Generated by `scripts/proteus_report.py {ROOT}`; mean ± 95% interval over seeds.")
table("fig10_websearch_load", "Fig. 10: Web Search, AFCT and p99 against load", FCT)
table("fig12_workloads", "Fig. 10-12: four workloads at load 0.6 (HoL-blocked flows: Fig. 12a; "
      "reordering: Fig. 12b)", HOL)
fig11()
table("fig13_sensitivity", "Fig. 13 and the readings: Proteus+DCQCN, Web Search 0.6",
      FCT[:2] + [FCT[4], FCT[5]], paired=())
TESTBED = [("AFCT (us)", "afct_us", 0, 1), ("AFCT <100KB (us)", "by_size.small.afct_us", 1, 1),
           ("AFCT >1MB (us)", "by_size.large.afct_us", 0, 1), ("p99 FCT (us)", "p99_fct_us", 0, 1),
           ("reordered %", "network_reordered_ratio", 2, 100),
           ("PAUSE frames", "pfc_pause_frames", 0, 1)]
table("fig8_testbed_load", "Fig. 8: testbed, Web Search against load (spines = 8: literal "
      "reading; 2: CONGA's testbed)", TESTBED)
table("fig9_link_speed", "Fig. 9a-b: testbed, load 0.7, against the link speed", TESTBED)
table("fig5_pfc", "Fig. 5: prior schemes with and without PFC, load 0.7 (selective repeat)",
      [("AFCT (us)", "afct_us", 0, 1), ("p99 FCT (us)", "p99_fct_us", 0, 1),
       ("drops", "drops", 0, 1), ("PAUSE frames", "pfc_pause_frames", 0, 1)], paired=())
table("fig10_link_delay", "Fig. 10 sensitivity: Web Search 0.8 with 5 us links", FCT)
table("fig10_attribution", "What Alg. 1's rerouting does (Web Search)", FCT[:4] + [FCT[5]])
stats_table("fig10_attribution", "Proteus' decisions, attribution runs", DECISIONS)
table("fig12_attribution", "Where the reordering and HoL blocking come from (Web Server 0.6)",
      HOL, paired=("afct_us",))
stats_table("fig12_attribution", "Proteus' decisions, Web Server attribution", DECISIONS)
stats_table("fig10_websearch_load", "Proteus' decisions, Fig. 10 runs", DECISIONS)
stats_table("fig12_workloads", "Proteus' decisions, four workloads", DECISIONS)
for fig in (2, 3, 4, 6):
    table(f"motivation_fig{fig}", f"§II Fig. {fig}: the victim flow f1", [
        ("f1 FCT (us)", "by_tag.f1.afct_us", 0, 1), ("AFCT all (us)", "afct_us", 0, 1),
        ("PAUSE frames", "pfc_pause_frames", 0, 1), ("HoL-blocked flows", "hol_blocked_flows", 0, 1)],
        paired=("by_tag.f1.afct_us",))
    stats_table(f"motivation_fig{fig}", f"Proteus' decisions, Fig. {fig}", DECISIONS[4:])
