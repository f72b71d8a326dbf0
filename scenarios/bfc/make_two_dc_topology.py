#!/usr/bin/env python3
"""Writes two_dc.topo (ns-3 topology format): BFC §4.3 Fig. 9's two data centers. The
paper's §4.3 text: "two T2 data centers, with 10 Gbps links (for computation speed) and
9 MB switch buffers. Two gateway switches connect the data centers using a 100 Gbps link
with 200 us of one way delay ... the buffer size of the gateway switch [is] 60 MB".
Each DC is T2 (§4.1): 4 ToRs of 16 hosts and 8 spines, 1 us links at 10 Gb/s. Reading
(the paper does not say how a gateway attaches): every spine of a DC links to its gateway
at 100 Gb/s, as the inter-DC link; at 10 Gb/s the 8 spine links (80 Gb/s) could not carry
the 83 Gb/s of inter-DC traffic each way that the paper's loads imply. Hosts 0-63 are DC A,
64-127 DC B; the gateways are the last two switches (printed)."""
import os

HOSTS_PER_TOR, TORS, SPINES = 16, 4, 8
DC_RATE, GW_RATE = "10Gbps", "100Gbps"
hosts = 2 * TORS * HOSTS_PER_TOR
links, switches = [], []
next_id = hosts


def new_switch():
    global next_id
    switches.append(next_id)
    next_id += 1
    return next_id - 1


dcs = []
for dc in range(2):
    tors = [new_switch() for _ in range(TORS)]
    spines = [new_switch() for _ in range(SPINES)]
    dcs.append((tors, spines))
    for t, tor in enumerate(tors):
        for h in range(HOSTS_PER_TOR):
            links.append((dc * TORS * HOSTS_PER_TOR + t * HOSTS_PER_TOR + h, tor, DC_RATE, "1000ns"))
        for s in spines:
            links.append((tor, s, DC_RATE, "1000ns"))
gateways = [new_switch() for _ in range(2)]
for dc, (_, spines) in enumerate(dcs):
    for s in spines:
        links.append((s, gateways[dc], GW_RATE, "1000ns"))
links.append((gateways[0], gateways[1], GW_RATE, "200000ns"))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_dc.topo")
with open(out, "w") as f:
    f.write(f"{next_id} {len(switches)} {len(links)}\n")
    f.write(" ".join(map(str, switches)) + "\n")
    for a, b, rate, delay in links:
        f.write(f"{a} {b} {rate} {delay} 0\n")
print(f"wrote {out}: {next_id} nodes, {len(switches)} switches, {len(links)} links; "
      f"gateways s{gateways[0]} and s{gateways[1]}")
