"""How far each flow of a run finished from its max-min fair share of the host links.

usage: PYTHONPATH=python python3 scripts/fair_share.py RATE_GBPS RUN_DIR ... [--min-bytes N]

A fluid model of the run's flows (flows.csv: start, size, source, destination): at every
moment each active flow gets its max-min fair rate over the two links it must cross, its
sender's and its receiver's host link (RATE_GBPS each, the fabric taken as non-blocking),
and finishes when its bytes are through. The flow's fair FCT is that finish minus its start
plus its ideal_fct_ns from flows.csv less the size at line rate (the propagation and
store-and-forward a fluid has none of). Printed per scheme (the seed directories of a sweep
under one scheme make one row, mean and 95% interval), over the flows of at least
--min-bytes (default 1 MB): how many, their mean FCT over their fair FCT, the total
FCT over the total fair FCT, and their mean slowdown (FCT over ideal) beside the fair
model's. Wire overhead is not modelled: the fair rates are of payload at line rate.
"""
import csv
import os
import sys


def read_flows(run_dir):
    with open(os.path.join(run_dir, "flows.csv")) as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if r.get("finish_ns") not in ("", None)]


def max_min_rates(active, flows, cap):
    """Water-filling over the host links: {flow index: rate in bytes/ns}."""
    rate = {}
    left = dict(cap)
    users = {}
    for i in active:
        for link in (("tx", flows[i]["src"]), ("rx", flows[i]["dst"])):
            users.setdefault(link, set()).add(i)
    unfixed = set(active)
    while unfixed:
        # The most constrained link sets its flows' rate.
        best, share = None, None
        for link, us in users.items():
            n = len(us & unfixed)
            if n == 0:
                continue
            s = left.get(link, cap["default"]) / n
            if share is None or s < share:
                best, share = link, s
        for i in users[best] & unfixed:
            rate[i] = share
            unfixed.discard(i)
            for link in (("tx", flows[i]["src"]), ("rx", flows[i]["dst"])):
                left[link] = left.get(link, cap["default"]) - share
    return rate


def fair_fct(flows, rate_bytes_per_ns):
    """Each flow's finish time (ns) in the fluid max-min model."""
    order = sorted(range(len(flows)), key=lambda i: flows[i]["start"])
    cap = {"default": rate_bytes_per_ns}
    remaining = {}
    finish = {}
    now = 0.0
    k = 0
    while k < len(order) or remaining:
        rates = max_min_rates(list(remaining), flows, cap) if remaining else {}
        # The next event: an arrival or the first finish at the current rates.
        t_arrival = flows[order[k]]["start"] if k < len(order) else float("inf")
        t_finish, who = float("inf"), None
        for i, left in remaining.items():
            t = now + left / rates[i]
            if t < t_finish:
                t_finish, who = t, i
        t_next = min(t_arrival, t_finish)
        for i in remaining:
            remaining[i] -= rates[i] * (t_next - now)
        now = t_next
        if t_finish <= t_arrival:
            finish[who] = now
            del remaining[who]
            for i in [i for i, left in remaining.items() if left <= 1e-9]:
                finish[i] = now
                del remaining[i]
        else:
            i = order[k]
            remaining[i] = flows[i]["size"]
            k += 1
    return finish


def run_stats(run_dir, rate, min_bytes):
    """(flows, mean FCT / fair FCT, total / total fair, mean slowdown, fair slowdown)."""
    rows = read_flows(run_dir)
    flows = [{"src": r["src"], "dst": r["dst"], "size": float(r["size_bytes"]),
              "start": float(r["start_ns"])} for r in rows]
    finish = fair_fct(flows, rate)
    ratios, fct_sum, fair_sum, sd, fair_sd = [], 0.0, 0.0, [], []
    for i, r in enumerate(rows):
        if flows[i]["size"] < min_bytes:
            continue
        line_ns = flows[i]["size"] / rate
        fixed = float(r["ideal_fct_ns"]) - line_ns  # propagation, store and forward
        fair = finish[i] - flows[i]["start"] + fixed
        fct = float(r["fct_ns"])
        ratios.append(fct / fair)
        fct_sum += fct
        fair_sum += fair
        sd.append(float(r["slowdown"]))
        fair_sd.append(fair / float(r["ideal_fct_ns"]))
    n = len(ratios)
    if n == 0:
        return None
    return (n, sum(ratios) / n, fct_sum / fair_sum, sum(sd) / n, sum(fair_sd) / n)


def main():
    args = list(sys.argv[1:])
    min_bytes = 1_000_000
    if "--min-bytes" in args:
        j = args.index("--min-bytes")
        min_bytes = int(args[j + 1])
        del args[j:j + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    rate = float(args[0]) * 1e9 / 8 / 1e9  # bytes per ns
    # Run directories of one scheme (the seeds of a sweep: .../<scheme>/seed-N) are one row,
    # mean and 95% interval over them.
    groups = {}
    for run_dir in args[1:]:
        d = run_dir.rstrip("/")
        key = os.path.dirname(d) if os.path.basename(d).startswith("seed-") else d
        stats = run_stats(d, rate, min_bytes)
        if stats:
            groups.setdefault(key, []).append(stats)
    print(f"| runs | seeds | flows >= {min_bytes} B per run | mean FCT / fair FCT | "
          "total FCT / total fair FCT | mean slowdown | fair model's |")
    print("|---|---|---|---|---|---|---|")
    for key, runs in groups.items():
        cols = []
        for c in range(5):
            m, ci = mean_ci([r[c] for r in runs])
            cols.append(f"{m:.0f}" if c == 0 else f"{m:.2f} ± {ci:.2f}" if len(runs) > 1 else f"{m:.2f}")
        print(f"| {key} | {len(runs)} | " + " | ".join(cols) + " |")


def mean_ci(xs):
    try:
        from rocelab.stats import mean_ci as ci
        return ci(xs)
    except ImportError:  # without PYTHONPATH=python: no interval
        return sum(xs) / len(xs), float("nan")


if __name__ == "__main__":
    main()
