"""Tables of docs/studies/faults.md from the study's sweep directory.

usage: PYTHONPATH=python python3 scenarios/faults/tables.py runs/faults/leafspine [--full]
(after `rocelab sweep scenarios/faults/sweeps/leafspine.yaml -o runs/faults/leafspine`)
Prints Markdown: per measure, one row per fault case and one column per scheme, the mean
and 95% interval over the seeds (the median where a few seeds' timeouts dominate).
"""
import statistics
import sys

from rocelab.results import summaries_by_point as runs_of
from rocelab.stats import mean_ci

SCHEMES = ["ecmp+dcqcn+pfc", "letflow+dcqcn+pfc", "conga+dcqcn+pfc", "drill+dcqcn+pfc",
           "rps+dcqcn+pfc", "hermes+dcqcn", "conweave+dcqcn+pfc", "mprdma", "flb+rc+pfc",
           "proteus+dcqcn+pfc", "lbodsn+dcqcn+pfc", "bfc"]
LABEL = {"ecmp+dcqcn+pfc": "ECMP", "letflow+dcqcn+pfc": "LetFlow", "conga+dcqcn+pfc": "CONGA",
         "drill+dcqcn+pfc": "DRILL", "rps+dcqcn+pfc": "spray", "hermes+dcqcn": "Hermes",
         "conweave+dcqcn+pfc": "ConWeave", "mprdma": "MP-RDMA", "flb+rc+pfc": "FLB+RC",
         "proteus+dcqcn+pfc": "Proteus", "lbodsn+dcqcn+pfc": "LBoDSN", "bfc": "BFC"}
CASES = ["none", "uplink-down", "degraded", "lossy-1e-5", "lossy-1e-3", "storm",
         "storm-watchdog"]


def cell(values, digits, median):
    if median:
        return f"{statistics.median(values):,.{digits}f}"
    m, c = mean_ci(values)
    return f"{m:,.{digits}f} ± {c:,.{digits}f}" if len(values) > 1 else f"{m:,.{digits}f}"


def table(runs, title, value, digits=0, cases=CASES, median=False):
    print(f"\n{title}\n")
    print("| case | " + " | ".join(LABEL[s] for s in SCHEMES) + " |")
    print("|---|" + "---|" * len(SCHEMES))
    for case in cases:
        cells = []
        for s in SCHEMES:
            vals = [value(j) for j in runs.get((case, s), [])]
            vals = [v for v in vals if v is not None]
            cells.append(cell(vals, digits, median) if vals else "")
        if any(cells):
            print(f"| {case} | " + " | ".join(cells) + " |")


def faults(*keys):
    def get(j):
        v = j.get("faults")
        for k in keys:
            if v is None:
                return None
            v = v.get(k)
        return v
    return get


def crossed_afct(j):
    f = j.get("faults")
    return f["crossed"]["afct_us"] if f and f["crossed"]["completed"] else None


def main(root):
    runs = runs_of(root)
    broken = [(c, s, j["invariants"]) for (c, s), v in runs.items() for j in v
              if j["invariants"] != "ok"]
    print(f"{sum(len(v) for v in runs.values())} runs; invariants broken in {len(broken)}")
    for b in broken[:10]:
        print("  broken:", b)
    faulted = CASES[1:]
    table(runs, "Flows that crossed the fault: mean FCT (us)", crossed_afct, 0, faulted)
    table(runs, "Flows that crossed the fault (count)", faults("crossed", "flows"), 0, faulted)
    table(runs, "All flows: mean FCT (us)", lambda j: j["afct_us"])
    table(runs, "All flows: p99 slowdown", lambda j: j["p99_slowdown"], 1)
    table(runs, "Data packets lost to the fault", faults("lost_data_packets"), 0, faulted)
    table(runs, "Time to recover (us, median): from the fault to the last flow that lost a "
          "packet finishing", lambda j: (j.get("faults") or {}).get("recovery_us") or None, 0,
          faulted, median=True)
    table(runs, "Retransmission timeouts", lambda j: j["timeouts"], 1)
    table(runs, "PAUSE spread: switch PAUSE frames", lambda j: j["pfc_pause_frames"])
    table(runs, "PAUSE spread: directed links paused at least once", lambda j: j["paused_links"], 1)
    table(runs, "HoL-blocked flows", lambda j: j["hol_blocked_flows"], 0)
    table(runs, "Watchdog: storms declared", faults("watchdog", "storms"), 1, ["storm-watchdog"])
    table(runs, "Watchdog: data packets dropped", faults("lost", "watchdog", "data_packets"), 0,
          ["storm-watchdog"])
    if FULL:
        table(runs, "All flows: p99 FCT (us)", lambda j: j["p99_fct_us"])
        table(runs, "Packets reordered in the network", lambda j: j["network_reordered_packets"])


FULL = "--full" in sys.argv

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--full"]
    main(args[0] if args else "runs/faults/leafspine")
