"""Tables of docs/studies/ai-collectives.md from the study's sweep directories.

usage: PYTHONPATH=python python3 scenarios/ai/tables.py runs/ai [--full]
(after `rocelab sweep scenarios/ai/sweeps/<name>.yaml -o runs/ai/<name>` for each sweep file)
Prints Markdown: per sweep, mean and 95% interval over the seeds of the collective
completion time, the job completion time, PAUSE frames and HoL-blocked flows by scheme; then
what the transport saw (packets reordered in the network, timeouts; --full adds the
slowdown and NAKs).
"""
import os
import sys

from rocelab.results import summaries_by_point as runs_of
from rocelab.stats import mean_ci

SCHEMES = ["flb+rc+pfc", "proteus+dcqcn+pfc", "lbodsn+dcqcn+pfc", "bfc", "conweave+dcqcn+pfc",
           "ecmp+dcqcn+pfc", "rps+dcqcn+pfc", "drill+dcqcn+pfc"]
LABEL = {"flb+rc+pfc": "FLB+RC", "proteus+dcqcn+pfc": "Proteus", "lbodsn+dcqcn+pfc": "LBoDSN",
         "bfc": "BFC", "conweave+dcqcn+pfc": "ConWeave", "ecmp+dcqcn+pfc": "ECMP",
         "rps+dcqcn+pfc": "spray", "drill+dcqcn+pfc": "DRILL"}


def cell(values, digits=0):
    m, c = mean_ci(values)
    return f"{m:,.{digits}f} ± {c:,.{digits}f}" if len(values) > 1 else f"{m:,.{digits}f}"


def table(runs, title, value, digits=0):
    points = sorted({p for p, _ in runs}, key=lambda p: (p.split("-")[0], p))
    print(f"\n{title}\n")
    print("| case | " + " | ".join(LABEL[s] for s in SCHEMES) + " |")
    print("|---|" + "---|" * len(SCHEMES))
    for p in points:
        cells = []
        for s in SCHEMES:
            vals = [value(j) for j in runs.get((p, s), [])]
            vals = [v for v in vals if v is not None]
            cells.append(cell(vals, digits) if vals else "")
        print(f"| {p} | " + " | ".join(cells) + " |")


def coll(key):
    return lambda j: j.get("collectives", {}).get(key)


def main(root):
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.exists(os.path.join(d, "sweep.csv")):
            continue
        runs = runs_of(d)
        print(f"\n### {name}")
        table(runs, "Mean collective completion time (us)", coll("mean_cct_us"))
        table(runs, "Job completion time (us; the longest job)", coll("jct_us"))
        table(runs, "PFC PAUSE frames", lambda j: j["pfc_pause_frames"])
        table(runs, "HoL-blocked flows", lambda j: j["hol_blocked_flows"])
        table(runs, "Data packets reordered in the network (as the receiving hosts see them)",
              lambda j: j["network_reordered_packets"])
        table(runs, "Retransmission timeouts", lambda j: j["timeouts"], 1)
        if FULL:
            table(runs, "Mean collective slowdown (CCT / alone at line rate)",
                  coll("mean_slowdown"), 2)
            table(runs, "NAKs", lambda j: j["naks"])
        if any("background" in j.get("by_tag", {}) for v in runs.values() for j in v):
            table(runs, "Background flows: p99 slowdown",
                  lambda j: j["by_tag"].get("background", {}).get("p99_slowdown"), 1)


FULL = "--full" in sys.argv

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--full"]
    main(args[0] if args else "runs/ai")
