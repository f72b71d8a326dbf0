#!/usr/bin/env python3
"""Writes the inputs of a cross-validation case in the ns-3 simulators' file formats.

  topology: leaf_spine  hosts/leaf, leaves, spines, rates and delay
            fat_tree    k-ary, hosts per ToR (ConWeave's fat_k*_OS2 and HPCC's fat.txt shapes)
  flows:    Poisson arrivals per host at a load of its link, destination uniform among the
            other hosts, sizes drawn from a shipped CDF (workloads/*.cdf) with linear
            interpolation: the arrival model of the forks' traffic_gen.py, written anew;
            or an N-to-1 incast of equal flows starting together.

Both are deterministic for a given seed (Python's random.Random). Node numbering follows the
forks' files: hosts first, then ToRs, then the upper layers.
"""
import argparse
import math
import os
import random
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def leaf_spine(hosts_per_leaf, leaves, spines, host_rate, fabric_rate, delay):
    hosts = hosts_per_leaf * leaves
    tors = list(range(hosts, hosts + leaves))
    spine_ids = list(range(hosts + leaves, hosts + leaves + spines))
    links = [(h, hosts + h // hosts_per_leaf, host_rate) for h in range(hosts)]
    links += [(t, s, fabric_rate) for t in tors for s in spine_ids]
    return hosts + leaves + spines, tors + spine_ids, links, delay


def fat_tree(pods, tors_per_pod, aggs_per_pod, cores_per_agg, hosts_per_tor, host_rate,
             fabric_rate, delay):
    """Pods of ToRs and aggregation switches: every ToR of a pod links to every aggregation
    switch of it; aggregation switch j of each pod links to cores j*c .. (j+1)*c - 1. A k-ary
    fat-tree is pods = k, tors = aggs = cores_per_agg = k/2 (ConWeave's fat_k*); HPCC's fat.txt
    is 5 pods of 4 ToRs and 4 aggregation switches, 4 cores each."""
    hosts = pods * tors_per_pod * hosts_per_tor
    tor0 = hosts
    agg0 = tor0 + pods * tors_per_pod
    core0 = agg0 + pods * aggs_per_pod
    n = core0 + aggs_per_pod * cores_per_agg
    links = [(h, tor0 + h // hosts_per_tor, host_rate) for h in range(hosts)]
    for p in range(pods):
        for t in range(tors_per_pod):
            for j in range(aggs_per_pod):
                links.append((tor0 + p * tors_per_pod + t, agg0 + p * aggs_per_pod + j, fabric_rate))
    for p in range(pods):
        for j in range(aggs_per_pod):
            for c in range(cores_per_agg):
                links.append((agg0 + p * aggs_per_pod + j, core0 + j * cores_per_agg + c, fabric_rate))
    return n, list(range(tor0, n)), links, delay


def write_topology(path, topo):
    n, switches, links, delay = topo
    with open(path, "w") as f:
        f.write(f"{n} {len(switches)} {len(links)}\n")
        f.write(" ".join(map(str, switches)) + "\n")
        for a, b, rate in links:
            f.write(f"{a} {b} {rate} {delay} 0\n")


def read_cdf(name):
    points = []
    with open(os.path.join(REPO, "workloads", name + ".cdf")) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                points.append((float(parts[0]), float(parts[1])))
    return points


def cdf_mean(points):
    # Piecewise-linear CDF: a uniform share between consecutive points; the mass at the
    # first point (if its percent is above 0) sits at its size.
    mean = points[0][0] * points[0][1] / 100.0
    for (x0, p0), (x1, p1) in zip(points, points[1:]):
        mean += (x0 + x1) / 2.0 * (p1 - p0) / 100.0
    return mean


def cdf_sample(points, u):
    y = u * 100.0
    if y <= points[0][1]:
        return points[0][0]
    for (x0, p0), (x1, p1) in zip(points, points[1:]):
        if y <= p1:
            return x0 + (x1 - x0) * (y - p0) / (p1 - p0) if p1 > p0 else x1
    return points[-1][0]


def poisson_flows(hosts, cdf, load, rate_bps, duration_s, seed, start_s=2.0):
    rng = random.Random(seed)
    points = read_cdf(cdf)
    mean_gap_ns = cdf_mean(points) * 8.0 / (rate_bps * load) * 1e9
    start_ns = int(round(start_s * 1e9))
    end_ns = start_ns + int(round(duration_s * 1e9))
    flows = []
    for src in hosts:
        t = start_ns + int(-math.log(1.0 - rng.random()) * mean_gap_ns)
        while t <= end_ns:
            dst = src
            while dst == src:
                dst = rng.choice(hosts)
            size = max(1, int(cdf_sample(points, rng.random())))
            flows.append((t, src, dst, size))
            t += int(-math.log(1.0 - rng.random()) * mean_gap_ns)
    flows.sort()
    return flows


def write_flows(path, flows, fmt):
    with open(path, "w") as f:
        f.write(f"{len(flows)}\n")
        for t, src, dst, size in flows:
            if fmt == "hpcc":
                f.write(f"{src} {dst} 3 100 {size} {t / 1e9:.9f}\n")
            else:
                f.write(f"{src} {dst} 3 {size} {t / 1e9:.9f}\n")


def rate_bps(text):
    units = {"Gbps": 1e9, "Mbps": 1e6}
    for u, m in units.items():
        if text.endswith(u):
            return float(text[: -len(u)]) * m
    raise ValueError(f"rate '{text}': expected e.g. 100Gbps")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", required=True, choices=["leaf_spine", "fat_tree"])
    ap.add_argument("--hosts-per-tor", type=int, required=True)
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--spines", type=int, default=8)
    ap.add_argument("--k", type=int, help="k-ary fat-tree (sets the four below)")
    ap.add_argument("--pods", type=int)
    ap.add_argument("--tors-per-pod", type=int)
    ap.add_argument("--aggs-per-pod", type=int)
    ap.add_argument("--cores-per-agg", type=int)
    ap.add_argument("--host-rate", default="100Gbps")
    ap.add_argument("--fabric-rate", default="100Gbps")
    ap.add_argument("--delay", default="1000ns")
    ap.add_argument("--cdf", help="Poisson arrivals: the flow-size CDF (workloads/NAME.cdf)")
    ap.add_argument("--load", type=float, help="of each host link, 0..1")
    ap.add_argument("--duration", type=float, help="seconds of arrivals")
    ap.add_argument("--incast", nargs=3, metavar=("SENDERS", "RECEIVER", "BYTES"),
                    help="instead: hosts FIRST-LAST each send BYTES to RECEIVER at 2.0 s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--format", choices=["conweave", "hpcc"], default="conweave")
    ap.add_argument("--out-topology", required=True)
    ap.add_argument("--out-flows", help="omitted: the topology only")
    a = ap.parse_args(argv)
    if a.topology == "leaf_spine":
        topo = leaf_spine(a.hosts_per_tor, a.leaves, a.spines, a.host_rate, a.fabric_rate, a.delay)
    else:
        if a.k:
            a.pods, a.tors_per_pod, a.aggs_per_pod, a.cores_per_agg = a.k, a.k // 2, a.k // 2, a.k // 2
        topo = fat_tree(a.pods, a.tors_per_pod, a.aggs_per_pod, a.cores_per_agg, a.hosts_per_tor,
                        a.host_rate, a.fabric_rate, a.delay)
    write_topology(a.out_topology, topo)
    n, switches, _, _ = topo
    switch_set = set(switches)
    hosts = [i for i in range(n) if i not in switch_set]
    if not a.out_flows:
        print(f"{a.out_topology}: {n} nodes")
        return
    if a.incast:
        first, last = map(int, a.incast[0].split("-"))
        flows = [(2_000_000_000, s, int(a.incast[1]), int(a.incast[2])) for s in range(first, last + 1)]
    elif a.cdf and a.load and a.duration:
        flows = poisson_flows(hosts, a.cdf, a.load, rate_bps(a.host_rate), a.duration, a.seed)
    else:
        ap.error("give --cdf, --load and --duration, or --incast")
    write_flows(a.out_flows, flows, a.format)
    print(f"{a.out_topology}: {n} nodes; {a.out_flows}: {len(flows)} flows")


if __name__ == "__main__":
    main(sys.argv[1:])
