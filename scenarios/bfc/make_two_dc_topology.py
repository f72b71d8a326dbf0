#!/usr/bin/env python3
"""Writes two_dc.topo (ns-3 topology format): BFC §4.3 Fig. 9's two data centers joined
by one 200 us link. Each is T2 (§4.1): 4 ToRs of 16 hosts, 8 spines, 100 Gb/s, 1 us.
The paper names only the link; the rest is this file's reading: each DC's spines all
connect to a gateway switch, and the gateways share a single 100 Gb/s, 200 us link (every
link of the paper's setup is 100 Gb/s). Hosts 0-63 are DC A, 64-127 DC B."""
import os

HOSTS_PER_TOR, TORS, SPINES = 16, 4, 8
hosts = 2 * TORS * HOSTS_PER_TOR
links, switches = [], []
next_id = hosts


def new_switch():
    global next_id
    switches.append(next_id)
    next_id += 1
    return next_id - 1


gateways = []
for dc in range(2):
    tors = [new_switch() for _ in range(TORS)]
    spines = [new_switch() for _ in range(SPINES)]
    gw = new_switch()
    gateways.append(gw)
    for t, tor in enumerate(tors):
        for h in range(HOSTS_PER_TOR):
            links.append((dc * TORS * HOSTS_PER_TOR + t * HOSTS_PER_TOR + h, tor, "100Gbps", "1000ns"))
        for s in spines:
            links.append((tor, s, "100Gbps", "1000ns"))
    for s in spines:
        links.append((s, gw, "100Gbps", "1000ns"))
links.append((gateways[0], gateways[1], "100Gbps", "200000ns"))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_dc.topo")
with open(out, "w") as f:
    f.write(f"{next_id} {len(switches)} {len(links)}\n")
    f.write(" ".join(map(str, switches)) + "\n")
    for a, b, rate, delay in links:
        f.write(f"{a} {b} {rate} {delay} 0\n")
print(f"wrote {out}: {next_id} nodes, {len(switches)} switches, {len(links)} links")
