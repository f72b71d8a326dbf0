#!/usr/bin/env python3
"""Cross-validation against the ns-3 reference simulators: runs rocelab on every case of
validation/cases.json and compares its FCTs and PFC pauses with the committed ns-3 outputs.

With the rocelab Python package on the path (PYTHONPATH=python, from the checkout's root):
  validation/compare.py                  every case, table to stdout
  validation/compare.py --case NAME ...  some cases
  validation/compare.py --check          exit 1 when a case misses the tolerances
  validation/compare.py --check-means 0.10 --case NAME   (the ctest: means only)
  validation/compare.py --set cc.model=sigcomm15         (a variant of rocelab's side)

Per case and size bucket (< 100 KB, 100 KB - 1 MB, >= 1 MB) it prints the flow count and the
ratio rocelab / ns-3 of the mean, median and 99th-percentile FCT, over the flows that start
after the case's warm-up; flows are joined one to one on (src, dst, sport, dport), which both
sides number the same way. PFC is compared as the paused devices saw it: pause episodes (a
PAUSE on a link that was not paused, until its RESUME or its pause time running out, which
ConWeave-ns3 does not log) and their total length, because the frames differ by design
(ConWeave-ns3 sends a PAUSE for every packet over the threshold).
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys

try:
    from rocelab.stats import mean_ci, percentile as nearest_rank, t975
except ImportError:
    sys.exit("compare.py: needs the rocelab Python package on the path: "
             "PYTHONPATH=python validation/compare.py ...")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BUCKETS = [("<100KB", 0, 100_000), ("100KB-1MB", 100_000, 1_000_000), (">=1MB", 1_000_000, math.inf)]
# Done when (issue 8): mean and p50 within 10%, p99 within 20% where a bucket has >= 1000 flows.
TOL_MEAN, TOL_P50, TOL_P99, P99_MIN_FLOWS = 0.10, 0.10, 0.20, 1000


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def node_of(token):
    # HPCC writes 11.x.y.1 addresses in hex (node_id_to_ip), ConWeave decimal node ids.
    if len(token) == 8 and not token.isdigit():
        return (int(token, 16) >> 8) & 0xFFFF
    return int(token)


def read_fct(path):
    flows = {}
    with open_text(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 7:
                continue
            key = (node_of(p[0]), node_of(p[1]), int(p[2]), int(p[3]))
            flows[key] = (int(p[4]), int(p[5]), int(p[6]))  # size, start_ns, fct_ns
    return flows


# How long a PAUSE holds in each fork (/work notes in docs/validation.md, "PFC"): ConWeave-ns3
# pauses a device for the 5 us its PAUSE carries, restarted by each PAUSE, and logs no
# expiry (qbb-net-device.cc Receive; network-load-balance.cc pause_time 5); HPCC-ns3 holds
# until the RESUME (its Receive ignores the time).
NS3_PAUSE_NS = {"conweave": 5000, "hpcc": None}


def pause_episodes(events, expire_ns=None):
    """PFC as the paused devices saw it, from (time_ns, link, is_pause, at_host) in time order:
    an episode is a PAUSE on a link not paused; it ends at a RESUME or, with expire_ns, that
    long after the link's last PAUSE. One still open ends at the last event (or its expiry).
    Returns {episodes, paused_ns, pause_frames, paused_links, host_episodes}."""
    since, deadline, links = {}, {}, set()
    out = {"episodes": 0, "paused_ns": 0, "pause_frames": 0, "host_episodes": 0}
    last = 0

    def close(link, t):
        out["paused_ns"] += t - since.pop(link)
        deadline.pop(link, None)

    for t, link, is_pause, at_host in events:
        last = max(last, t)
        if link in since and link in deadline and deadline[link] <= t:
            close(link, deadline[link])
        if is_pause:
            out["pause_frames"] += 1
            if link not in since:
                since[link] = t
                out["episodes"] += 1
                out["host_episodes"] += at_host
                links.add(link)
            if expire_ns is not None:
                deadline[link] = t + expire_ns
        elif link in since:
            close(link, t)
    for link in list(since):
        close(link, min(deadline.get(link, last), max(last, since[link])))
    out["paused_links"] = len(links)
    return out


def ns3_link_peers(topology):
    """({(node, if_index): peer node}, host nodes) of an ns-3 topology file. The forks
    install the Internet stack before the links (its loopback is device 0) and then each
    link's two devices in file order, so a node's i-th link is its interface i
    (network-load-balance.cc `internet.Install(n)`, then `qbb.Install(snode, dnode)` per
    line)."""
    with open(topology) as f:
        lines = [line.split() for line in f]
    header = lines[0]
    switches = set(lines[1]) if int(header[1]) > 0 else set()
    first_link = 2 if int(header[1]) > 0 or (len(lines) > 1 and not lines[1]) else 1
    links = [p for p in lines[first_link:] if p][:int(header[2])]
    peers, count = {}, {}
    for a, b in ((p[0], p[1]) for p in links):
        for x, y in ((a, b), (b, a)):
            count[x] = count.get(x, 0) + 1
            peers[(x, str(count[x]))] = y
    return peers, {n for p in links for n in p[:2]} - switches


def ns3_pfc(path, fork, topology=None):
    """ns-3 PFC file: time node node_type if_index type, logged by the paused device (node
    type 0: a host NIC) for every PAUSE (1) and RESUME (0) it receives; expiries are not
    logged. With the topology, PAUSE frames are also counted by the sender's layer (a switch
    with hosts is an edge switch)."""
    with open_text(path) as f:
        rows = [line.split() for line in f]
    out = pause_episodes(((int(p[0]), (p[1], p[3]), p[4] == "1", p[2] == "0")
                          for p in rows if len(p) >= 5), NS3_PAUSE_NS[fork])
    if topology:
        peers, hosts = ns3_link_peers(topology)
        edges = {peers[(h, "1")] for h in hosts if (h, "1") in peers}
        frames = [peers[(p[1], p[3])] for p in rows if len(p) >= 5 and p[4] == "1"]
        out["edge_pause_frames"] = sum(1 for n in frames if n in edges)
        out["upper_pause_frames"] = len(frames) - out["edge_pause_frames"]
    return out


def rocelab_pfc(summary):
    """The same figures from rocelab's summary.json: its ports count the episodes they were
    paused for and their length (a PAUSE on an unpaused class until an XON or its expiry)."""
    return {"episodes": summary.get("pfc_pause_episodes", 0),
            "paused_ns": summary.get("pfc_paused_time_us", 0) * 1e3,
            "pause_frames": summary.get("pfc_pause_frames", 0),
            "paused_links": summary.get("paused_links", 0),
            "host_episodes": summary.get("pfc_pause_episodes_at_hosts", 0),
            "edge_pause_frames": summary.get("pfc_pause_frames_by_layer", {}).get("edge", 0),
            "upper_pause_frames": sum(v for k, v in summary.get("pfc_pause_frames_by_layer", {}).items()
                                      if k != "edge")}


def percentile(values, q):
    return nearest_rank(sorted(values), 100 * q)


def compare_fct(ours, theirs, start_after_ns):
    rows = []
    common = [k for k in theirs if k in ours and theirs[k][1] >= start_after_ns]
    for name, lo, hi in BUCKETS:
        keys = [k for k in common if lo <= theirs[k][0] < hi]
        if not keys:
            rows.append((name, 0, None, None, None))
            continue
        a = [ours[k][2] for k in keys]
        b = [theirs[k][2] for k in keys]
        rows.append((name, len(keys), (sum(a) / len(a)) / (sum(b) / len(b)),
                     percentile(a, 0.5) / percentile(b, 0.5), percentile(a, 0.99) / percentile(b, 0.99)))
    missing = sum(1 for k in theirs if k not in ours)
    return rows, missing


def fct_figures(flows, reference, other, start_after_ns):
    """{figure: value} of one side's run: the mean and median FCT (us) per size bucket, over
    the reference's flows that started after the warm-up and that both sides finished (the
    same flows on both sides)."""
    out = {}
    keys = [k for k in reference
            if k in flows and k in other and reference[k][1] >= start_after_ns]
    for name, lo, hi in BUCKETS:
        fcts = [flows[k][2] / 1e3 for k in keys if lo <= reference[k][0] < hi]
        out[f"FCT mean {name} (us)"] = sum(fcts) / len(fcts) if fcts else None
        out[f"FCT p50 {name} (us)"] = percentile(fcts, 0.5) if fcts else None
    return out


def inputs_for_seed(case, seed):
    """The case's ns3_inputs.py arguments with its flow seed replaced (cases without one, such
    as an incast, have the same flows at every seed)."""
    args = list(case["inputs"])
    if "--seed" in args:
        args[args.index("--seed") + 1] = str(seed)
    return args


def run_rocelab(case, rocelab, work, extra_sets=(), seed=None):
    """Runs the case (seed None: the committed flows; else that seed's flows, regenerated by
    ns3_inputs.py as the ns-3 side's were, and rocelab's seed set to it)."""
    ref = os.path.join(HERE, "reference", case["name"])
    os.makedirs(work, exist_ok=True)
    topo = os.path.join(work, "topology.txt")
    flows = os.path.join(work, "flows.txt")
    gen = [sys.executable, os.path.join(HERE, "tools", "ns3_inputs.py")]
    if seed is None:
        subprocess.run(gen + case["inputs"] + ["--out-topology", topo], check=True,
                       stdout=subprocess.DEVNULL)
        with gzip.open(os.path.join(ref, "flows.txt.gz"), "rt") as src, open(flows, "w") as dst:
            dst.write(src.read())
    else:
        subprocess.run(gen + inputs_for_seed(case, seed) + ["--out-topology", topo,
                       "--out-flows", flows], check=True, stdout=subprocess.DEVNULL)
        extra_sets = [f"seed={seed}"] + list(extra_sets)
    scenario = os.path.join(work, "case.yaml")
    subprocess.run([rocelab, "import", "--topology", topo, "--flows", flows, "--format",
                    case["format"], "--preset", case["preset"], "-o", scenario], check=True,
                   stdout=subprocess.DEVNULL)
    out = os.path.join(work, "run")
    args = [rocelab, "run", scenario, "-q", "--out", out, "--set", "outputs.pfc_events=true"]
    for s in list(case.get("rocelab_set", [])) + list(extra_sets):
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return out, summary


def write_markdown(path, results):
    def cell(r):
        return "-" if r is None else f"{r:.2f}"
    with open(path, "w") as f:
        f.write("| case | bucket | flows | mean | p50 | p99 | PAUSE episodes ns-3 / rocelab "
                "| paused time ns-3 / rocelab (us) | wall ns-3 / rocelab (s) |\n")
        f.write("|---|---|---:|---:|---:|---:|---|---|---|\n")
        for r in results:
            p = r["pfc"]
            for i, b in enumerate(r["buckets"]):
                extra = (f"{p['ns3_episodes']} / {p['rocelab_episodes']} | "
                         f"{p['ns3_paused_ns'] / 1e3:.0f} / {p['rocelab_paused_ns'] / 1e3:.0f} | "
                         f"{r['ns3_wall_s']} / {r['rocelab_wall_s']:.1f}") if i == 0 else " | | "
                name = r["case"] if i == 0 else ""
                f.write(f"| {name} | {b['bucket']} | {b['flows']} | {cell(b['mean'])} | "
                        f"{cell(b['p50'])} | {cell(b['p99'])} | {extra} |\n")


def welch_differs(xs, ys):
    """Whether two sets of per-seed values have different means at the 5% level (Welch's t
    test; degrees of freedom by Welch-Satterthwaite, rounded down, which is conservative)."""
    def mean_var(v):
        m = sum(v) / len(v)
        return m, sum((x - m) ** 2 for x in v) / (len(v) - 1)
    if min(len(xs), len(ys)) < 2:
        return False
    (mx, vx), (my, vy) = mean_var(xs), mean_var(ys)
    se2 = vx / len(xs) + vy / len(ys)
    if se2 == 0:
        return mx != my
    df = se2 ** 2 / ((vx / len(xs)) ** 2 / (len(xs) - 1) + (vy / len(ys)) ** 2 / (len(ys) - 1))
    return abs(mx - my) / math.sqrt(se2) > t975(int(df))


PFC_METRICS = [("pause episodes", lambda p: p["episodes"], 1),
               ("paused time (us)", lambda p: p["paused_ns"] / 1e3, 1),
               ("mean episode (us)", lambda p: p["paused_ns"] / 1e3 / p["episodes"] if p["episodes"] else 0, 2),
               ("paused links", lambda p: p["paused_links"], 1),
               ("episodes at host NICs (%)",
                lambda p: 100 * p["host_episodes"] / p["episodes"] if p["episodes"] else 0, 1),
               ("PAUSE frames", lambda p: p["pause_frames"], 1),
               ("PAUSE frames sent by edge switches", lambda p: p["edge_pause_frames"], 1),
               ("PAUSE frames sent above the edge", lambda p: p["upper_pause_frames"], 1)]


def seed_dirs(case):
    """{seed: reference directory}: seed 1 is the case's own, others under seeds/s<k>/."""
    ref = os.path.join(HERE, "reference", case["name"])
    out = {1: ref}
    base = os.path.join(ref, "seeds")
    if os.path.isdir(base):
        for d in sorted(os.listdir(base)):
            out[int(d[1:])] = os.path.join(base, d)
    return out


def compare_seeds(case, a):
    """PFC as the paused devices saw it, per seed on both sides, and each side's mean and 95%
    interval; FCT mean ratios per seed where the seed's ns-3 FCTs are stored."""
    rows = {"ns3": [], "rocelab": []}
    fct_ratios, runs, fct_sides = [], [], {"ns3": [], "rocelab": []}
    for seed, ref in sorted(seed_dirs(case).items()):
        work = os.path.join(a.work, case["name"], f"seed-{seed}")
        out, summary = run_rocelab(case, a.rocelab, work, a.set, None if seed == 1 else seed)
        rows["ns3"].append(ns3_pfc(os.path.join(ref, "pfc.txt.gz"), case["format"],
                                   os.path.join(work, "topology.txt")))
        rows["rocelab"].append(rocelab_pfc(summary))
        runs.append((ref, out))
        fct = os.path.join(ref, "fct.txt.gz")
        if os.path.exists(fct):
            start_after = int(round((2.0 + case["warmup_s"]) * 1e9))
            ours, theirs = read_fct(os.path.join(out, "fct.txt")), read_fct(fct)
            buckets, _ = compare_fct(ours, theirs, start_after)
            fct_ratios.append([b[2] for b in buckets])
            fct_sides["ns3"].append(fct_figures(theirs, theirs, ours, start_after))
            fct_sides["rocelab"].append(fct_figures(ours, theirs, ours, start_after))
    table = []
    for name, get, digits in PFC_METRICS:
        theirs, ours = [get(p) for p in rows["ns3"]], [get(p) for p in rows["rocelab"]]
        table.append((name, mean_ci(theirs), mean_ci(ours), digits, welch_differs(ours, theirs)))
    if fct_sides["ns3"] and len(fct_sides["ns3"]) == len(rows["ns3"]):
        for key in fct_sides["ns3"][0]:
            theirs = [f[key] for f in fct_sides["ns3"] if f[key] is not None]
            ours = [f[key] for f in fct_sides["rocelab"] if f[key] is not None]
            if len(theirs) == len(ours) == len(rows["ns3"]):
                table.append((key, mean_ci(theirs), mean_ci(ours), 2, welch_differs(ours, theirs)))
    return {"case": case["name"], "seeds": len(rows["ns3"]), "metrics": table,
            "per_seed": rows, "fct_mean_ratios": fct_ratios,
            "runs": runs}


def print_seeds(r, md=None):
    def cell(mc, d):
        return f"{mc[0]:,.{d}f} ± {mc[1]:,.{d}f}"
    print(f"\n{r['case']}: PFC over {r['seeds']} seeds (mean ± 95% interval)")
    for name, t, o, d, differs in r["metrics"]:
        inside = abs(o[0] - t[0]) <= t[1]
        print(f"  {name:<34} ns-3 {cell(t, d):>22}   rocelab {cell(o, d):>22}   "
              f"{'within' if inside else 'outside'} ns-3's interval; means "
              f"{'differ' if differs else 'do not differ'} (Welch, 5%)")
        if md is not None:
            md.write(f"| {r['case']} | {name} | {cell(t, d)} | {cell(o, d)} | "
                     f"{'yes' if inside else 'no'} | {'yes' if differs else 'no'} |\n")
    for i, ratios in enumerate(r["fct_mean_ratios"]):
        print("  FCT mean ratio per bucket, seed", i + 1, ", ".join(
            "-" if x is None else f"{x:.3f}" for x in ratios))


def link_episodes(events, expire_ns=None):
    """{link: [(start_ns, length_ns, how it ended)]} from (time_ns, link, kind) in time order,
    kind "PAUSE", "RESUME" or "EXPIRED" (rocelab's logged expiry)."""
    since, deadline, out = {}, {}, {}
    for t, link, kind in events:
        if link in since and link in deadline and deadline[link] <= t:
            out.setdefault(link, []).append((since.pop(link), deadline.pop(link), "expiry"))
        if kind == "PAUSE":
            since.setdefault(link, t)
            if expire_ns is not None:
                deadline[link] = t + expire_ns
        elif link in since:
            out.setdefault(link, []).append((since.pop(link), t, kind.lower()))
            deadline.pop(link, None)
    return {link: [(a, b - a, how) for a, b, how in eps] for link, eps in out.items()}


def ns3_link_episodes(case, ref):
    with open_text(os.path.join(ref, "pfc.txt.gz")) as f:
        rows = [line.split() for line in f if len(line.split()) >= 5]
    return link_episodes(((int(p[0]), f"node {p[1]} if {p[3]}", "PAUSE" if p[4] == "1" else "RESUME")
                          for p in rows), NS3_PAUSE_NS[case["format"]])


def rocelab_link_episodes(out):
    with open(os.path.join(out, "pfc_events.csv")) as f:
        ev = [line.strip().split(",") for line in f][1:]
    return link_episodes(((int(float(p[0])), f"{p[1]} port {p[2]} (sender side)",
                           {"XOFF": "PAUSE", "XON": "RESUME"}.get(p[5], p[5])) for p in ev))


def print_timeline(case, out, ref, shown=8):
    """Per paused link on each side: its episodes, the share under 500 ns, median and mean
    length, and the first few (start after the first PAUSE of the run, length, end)."""
    for side, eps in (("ns-3", ns3_link_episodes(case, ref)), ("rocelab", rocelab_link_episodes(out))):
        t0 = min((e[0][0] for e in eps.values()), default=0)
        print(f"\n  {side}: {len(eps)} paused links")
        for link, e in sorted(eps.items(), key=lambda kv: -len(kv[1]))[:shown]:
            lengths = sorted(x[1] for x in e)
            short = sum(1 for x in lengths if x < FLICKER_NS)
            print(f"    {link}: {len(e)} episodes, {100 * short / len(e):.0f}% under 500 ns, median "
                  f"{lengths[len(lengths) // 2]} ns, mean {sum(lengths) / len(lengths):.0f} ns; first: "
                  + ", ".join(f"+{(a - t0) / 1e3:.2f} us {n} ns {how}" for a, n, how in e[:4]))


# An episode under FLICKER_NS is a flicker (a PAUSE and a RESUME a few packets apart); episodes
# on one link less than TRAIN_GAP_NS apart form a train (one congestion event's pauses).
FLICKER_NS = 500
TRAIN_GAP_NS = 100_000


def pause_trains(eps):
    """Episode lengths grouped into trains, over every link: [[length_ns, ...], ...]."""
    trains = []
    for e in eps.values():
        end = None
        for start, length, _ in e:
            if end is None or start - end > TRAIN_GAP_NS:
                trains.append([])
            trains[-1].append(length)
            end = start + length
    return trains


def train_figures(trains):
    """What sets a mean episode length: the flicker share, the lengths of flickers and of full
    pauses, and how many trains end in a pause cut under FLICKER_NS."""
    lengths = [n for t in trains for n in t]
    flick = [n for n in lengths if n < FLICKER_NS]
    full = [n for n in lengths if n >= FLICKER_NS]
    return {"trains": len(trains), "episodes": len(lengths),
            "flicker share": len(flick) / len(lengths) if lengths else 0,
            "flicker (ns)": sum(flick) / len(flick) if flick else 0,
            "full pause (ns)": sum(full) / len(full) if full else 0,
            "trains ending under 500 ns": sum(1 for t in trains if len(t) > 1 and t[-1] < FLICKER_NS)}


def print_train_figures(case, runs):
    """runs: [(ns-3 reference dir, rocelab run dir)] per seed; each side's train figures summed
    (counts) or averaged (lengths, share) over the seeds."""
    print(f"  pause trains over {len(runs)} seeds (episodes on a link < {TRAIN_GAP_NS // 1000} us apart):")
    sides = {"ns-3": [], "rocelab": []}
    for ref, out in runs:
        sides["ns-3"].append(train_figures(pause_trains(ns3_link_episodes(case, ref))))
        sides["rocelab"].append(train_figures(pause_trains(rocelab_link_episodes(out))))
    for key in sides["ns-3"][0]:
        cells = []
        for side, per_seed in sides.items():
            vals = [f[key] for f in per_seed]
            total = sum(vals) if key in ("trains", "episodes", "trains ending under 500 ns") \
                else sum(vals) / len(vals)
            cells.append(f"{side} {total:,.3f}" if key == "flicker share" else f"{side} {total:,.0f}")
        print(f"    {key:<28} " + "   ".join(cells))


def fmt_ratio(r):
    return "   -  " if r is None else f"{r:6.3f}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", help="only these cases (repeatable)")
    ap.add_argument("--rocelab", default=os.path.join(REPO, "build", "release", "rocelab"))
    ap.add_argument("--work", default=os.path.join(REPO, "runs", "validation"))
    ap.add_argument("--check", action="store_true", help="exit 1 when a case misses the tolerances")
    ap.add_argument("--check-means", type=float, metavar="TOL",
                    help="exit 1 when a bucket's mean FCT ratio is off by more than TOL")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--markdown", help="also write the results as a Markdown table here")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to rocelab run after the case's own (e.g. cc.model=sigcomm15)")
    ap.add_argument("--timeline", action="store_true",
                    help="also print each side's paused links and their episodes, side by side "
                         "(with --seeds: each side's pause trains over the seeds)")
    ap.add_argument("--seeds", action="store_true",
                    help="PFC over every seed a case has (reference/<case>/seeds/), as mean "
                         "and 95%% interval on each side")
    a = ap.parse_args(argv)
    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)["cases"]
    if a.case:
        unknown = set(a.case) - {c["name"] for c in cases}
        if unknown:
            sys.exit(f"compare.py: unknown case(s) {sorted(unknown)}; see validation/cases.json")
        cases = [c for c in cases if c["name"] in a.case]
    if a.seeds:
        md = open(a.markdown, "w") if a.markdown else None
        if md:
            md.write("| case | PFC figure | ns-3 | rocelab | rocelab's mean in ns-3's interval "
                     "| means differ (Welch's t, 5%) |\n|---|---|---|---|---|---|\n")
        for case in cases:
            if len(seed_dirs(case)) < 2:
                continue
            r = compare_seeds(case, a)
            print_seeds(r, md)
            if a.timeline:
                print_train_figures(case, r["runs"])
        if md:
            md.close()
        return 0
    failures, results = [], []
    for case in cases:
        ref = os.path.join(HERE, "reference", case["name"])
        if not os.path.exists(os.path.join(ref, "fct.txt.gz")):
            print(f"\n{case['name']}: no reference data yet (validation/tools/ns3_case.py makes it)")
            failures.append(f"{case['name']}: no reference data")
            continue
        out, summary = run_rocelab(case, a.rocelab, os.path.join(a.work, case["name"]), a.set)
        wall = summary["wall_s"]
        start_after = int(round((2.0 + case["warmup_s"]) * 1e9))
        theirs = read_fct(os.path.join(ref, "fct.txt.gz"))
        ours = read_fct(os.path.join(out, "fct.txt"))
        rows, missing = compare_fct(ours, theirs, start_after)
        pfc_t = ns3_pfc(os.path.join(ref, "pfc.txt.gz"), case["format"])
        pfc_o = rocelab_pfc(summary)
        with open(os.path.join(ref, "meta.json")) as f:
            meta = json.load(f)
        print(f"\n{case['name']}: {case['description']}")
        print(f"  flows {len(theirs)} (ns-3), {missing} not in rocelab's fct.txt; "
              f"wall: ns-3 {meta.get('ns3_wall_seconds', '?')} s, rocelab {wall:.1f} s")
        print(f"  {'bucket':<10} {'flows':>7} {'mean':>7} {'p50':>7} {'p99':>7}   (rocelab / ns-3)")
        for name, n, mean, p50, p99 in rows:
            print(f"  {name:<10} {n:>7} {fmt_ratio(mean)} {fmt_ratio(p50)} {fmt_ratio(p99)}")
            if n == 0:
                continue
            misses = []
            if a.check_means is not None:
                if abs(mean - 1) > a.check_means:
                    misses.append(f"mean {mean:.3f}")
            elif a.check:
                if abs(mean - 1) > TOL_MEAN:
                    misses.append(f"mean {mean:.3f}")
                if abs(p50 - 1) > TOL_P50:
                    misses.append(f"p50 {p50:.3f}")
                if n >= P99_MIN_FLOWS and abs(p99 - 1) > TOL_P99:
                    misses.append(f"p99 {p99:.3f}")
            if misses:
                failures.append(f"{case['name']} {name}: " + ", ".join(misses))
        print(f"  PFC pause episodes: ns-3 {pfc_t['episodes']}, rocelab {pfc_o['episodes']}; "
              f"paused time: ns-3 {pfc_t['paused_ns'] / 1e3:.1f} us, rocelab "
              f"{pfc_o['paused_ns'] / 1e3:.1f} us; PAUSE frames: ns-3 {pfc_t['pause_frames']}, "
              f"rocelab {pfc_o['pause_frames']}")
        if a.timeline:
            print_timeline(case, out, ref)
        counters = meta.get("ns3_counters", {})
        if counters:
            with open(os.path.join(out, "summary.json")) as f:
                lb_stats = json.load(f).get("lb_stats", {})
            print("  load balancer counters: " + ", ".join(
                f"{k} {v} / {int(lb_stats.get(k, 0))}" for k, v in counters.items())
                + " (ns-3 / rocelab)")
        results.append({"case": case["name"], "buckets": [
            {"bucket": r[0], "flows": r[1], "mean": r[2], "p50": r[3], "p99": r[4]} for r in rows],
            "pfc": {"ns3_episodes": pfc_t["episodes"], "rocelab_episodes": pfc_o["episodes"],
                    "ns3_paused_ns": pfc_t["paused_ns"], "rocelab_paused_ns": pfc_o["paused_ns"]},
            "rocelab_wall_s": wall,
            "ns3_wall_s": meta.get("ns3_wall_seconds")})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.markdown:
        write_markdown(a.markdown, results)
    if failures:
        print("\noutside the tolerances:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
