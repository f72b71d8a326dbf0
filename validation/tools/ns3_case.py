#!/usr/bin/env python3
"""Runs one cross-validation case on an already built ns-3 reference simulator and stores its
outputs as reference data (validation/reference/<case>/). rocelab does not ship, build or
patch the simulators; see validation/README.md for the sources and commits used.

  ns3_case.py --case NAME --binary PATH/network-load-balance   (ConWeave-ns3 cases)
  ns3_case.py --case NAME --binary PATH/third                  (HPCC-ns3 cases)

The configuration written for the simulator holds the values of its own run script (run.py)
at 100 Gb/s: DCQCN for ConWeave-ns3; for HPCC-ns3 the case's "ns3_cc" (dcqcn, hp or timely,
run.py's --cc; dcqcn when absent). Each case's settings come from validation/cases.json.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LB_MODES = {"ecmp": 0, "drill": 2, "conga": 3, "letflow": 6, "conweave": 9}  # ConWeave-ns3 LB_MODE (run.py lb_modes)


def conweave_lines(case):
    """ConWeave's own parameters as run.py sets them: its values for lb_mode 9 by topology
    (PFC on, IRN off), and its dummy values for every other mode (unused there)."""
    if case["lb"] != "conweave":
        v = (1000, 4, 16, 64, 400)
    elif case["ns3_topology_name"].startswith("leaf_spine"):
        v = (300, 4, 16, 16, 200)
    else:  # 3-tier, lossless
        v = (1000, 4, 16, 64, 600)
    keys = ("CONWEAVE_TX_EXPIRY_TIME", "CONWEAVE_REPLY_TIMEOUT_EXTRA", "CONWEAVE_PATH_PAUSE_TIME",
            "CONWEAVE_EXTRA_VOQ_FLUSH_TIME", "CONWEAVE_DEFAULT_VOQ_WAITING_TIME")
    return [f"{k} {x}" for k, x in zip(keys, v)] + [""]


def conweave_config(case, topo, flows, out):
    """ConWeave-ns3 scratch/network-load-balance config, as its run.py writes it for DCQCN
    (`--pfc` and `--irn` from the case's "ns3_pfc" and "ns3_irn", 1 and 0 when absent)."""
    bw = 100
    stop = 2.0 + case["duration_s"]
    rates = [bw * 200000000, bw * 500000000, bw * 1000000000, bw * 2000000000, bw * 2500000000,
             bw * 4000000000]
    kmax = "6 " + " ".join(f"{r} 400" for r in rates)
    kmin = "6 " + " ".join(f"{r} 100" for r in rates)
    # run.py formats the first two PMAX values with %d, which writes 0 for 0.2.
    pmax = "6 " + " ".join(f"{r} {'0' if i < 2 else '0.20'}" for i, r in enumerate(rates))
    files = {k: os.path.join(out, v) for k, v in [
        ("FLOW_INPUT_FILE", "in.txt"), ("CNP_OUTPUT_FILE", "cnp.txt"), ("FCT_OUTPUT_FILE", "fct.txt"),
        ("PFC_OUTPUT_FILE", "pfc.txt"), ("QLEN_MON_FILE", "qlen.txt"), ("VOQ_MON_FILE", "voq.txt"),
        ("VOQ_MON_DETAIL_FILE", "voq_detail.txt"), ("UPLINK_MON_FILE", "uplink.txt"),
        ("CONN_MON_FILE", "conn.txt"), ("EST_ERROR_MON_FILE", "est_error.txt")]}
    lines = [f"TOPOLOGY_FILE {topo}", f"FLOW_FILE {flows}", ""]
    lines += [f"{k} {v}" for k, v in files.items()]
    lines += ["", f"QLEN_MON_START 2.0", f"QLEN_MON_END {stop}", "SW_MONITORING_INTERVAL 10000", "",
              "FLOWGEN_START_TIME 2.0", f"FLOWGEN_STOP_TIME {stop}", "BUFFER_SIZE 9", "",
              "CC_MODE 1", f"LB_MODE {LB_MODES[case['lb']]}", f"ENABLE_PFC {case.get('ns3_pfc', 1)}",
              f"ENABLE_IRN {case.get('ns3_irn', 0)}", "",
              ] + conweave_lines(case) + [
              "ALPHA_RESUME_INTERVAL 1", "RATE_DECREASE_INTERVAL 4", "CLAMP_TARGET_RATE 0",
              "RP_TIMER 300", "FAST_RECOVERY_TIMES 1", "EWMA_GAIN 0.00390625",
              f"RATE_AI {10 * bw / 25}Mb/s", f"RATE_HAI {25 * bw / 25}Mb/s", "MIN_RATE 100Mb/s",
              "DCTCP_RATE_AI 1000Mb/s", "", "ERROR_RATE_PER_LINK 0.0000", "L2_CHUNK_SIZE 4000",
              "L2_ACK_INTERVAL 1", "L2_BACK_TO_ZERO 0", "", "RATE_BOUND 1", "HAS_WIN 0", "VAR_WIN 0",
              "FAST_REACT 0", "MI_THRESH 0", "INT_MULTI 1", "GLOBAL_T 1", "U_TARGET 0.95",
              "MULTI_RATE 0", "SAMPLE_FEEDBACK 0", "", "ENABLE_QCN 1", "USE_DYNAMIC_PFC_THRESHOLD 1",
              "PACKET_PAYLOAD_SIZE 1000", "", "LINK_DOWN 0 0 0", f"KMAX_MAP {kmax}",
              f"KMIN_MAP {kmin}", f"PMAX_MAP {pmax}", f"LOAD {int(round(case['load_label']))}",
              f"RANDOM_SEED {case.get('ns3_seed', 1)}", ""]
    return "\n".join(lines), files["FCT_OUTPUT_FILE"], files["PFC_OUTPUT_FILE"]


def hpcc_cc_values(cc, bw):
    """The values simulation/run.py puts in its template for `--cc <cc>` (default --utgt 95,
    --mi 0, --hpai 0). run.py is Python 2: its `/` on ints is integer division, so it writes
    RATE_AI 40Mb/s and INT_MULTI 4 for hp. The dcqcn case was made with Python 3 division
    ("20.0Mb/s", the same rate to ns-3) and keeps that spelling so its config stays unchanged."""
    if cc == "dcqcn":
        return {"mode": 1, "ai": f"{5 * bw / 25}", "hai": f"{50 * bw / 25}", "has_win": 0,
                "vwin": 0, "us": 0, "int_multi": 1, "ack_prio": 1}
    if cc == "hp":  # HPCC: INT on every data packet, window = BDP scaled by rate, per-ACK reaction
        ai = 10 * bw // 25
        return {"mode": 3, "ai": f"{ai}", "hai": f"{ai}", "has_win": 1, "vwin": 1, "us": 1,
                "int_multi": bw // 25, "ack_prio": 0}
    if cc == "timely":  # TIMELY: a send timestamp on every data packet, rate only
        return {"mode": 7, "ai": f"{10 * bw // 10}", "hai": f"{50 * bw // 10}", "has_win": 0,
                "vwin": 0, "us": 0, "int_multi": 1, "ack_prio": 1}
    sys.exit(f"ns3_case.py: unknown ns3_cc '{cc}' (dcqcn, hp or timely)")


def hpcc_config(case, topo, flows, out):
    """HPCC-ns3 scratch/third config, as its simulation/run.py writes it for `--cc <ns3_cc>`."""
    bw = 100
    v = hpcc_cc_values(case.get("ns3_cc", "dcqcn"), bw)
    fct, pfc = os.path.join(out, "fct.txt"), os.path.join(out, "pfc.txt")
    trace = os.path.join(out, "trace_nodes.txt")
    with open(trace, "w") as f:
        f.write("0\n\n")
    lines = ["ENABLE_QCN 1", "USE_DYNAMIC_PFC_THRESHOLD 1", "", "PACKET_PAYLOAD_SIZE 1000", "",
             f"TOPOLOGY_FILE {topo}", f"FLOW_FILE {flows}", f"TRACE_FILE {trace}",
             f"TRACE_OUTPUT_FILE {os.path.join(out, 'mix.tr')}", f"FCT_OUTPUT_FILE {fct}",
             f"PFC_OUTPUT_FILE {pfc}", "", "SIMULATOR_STOP_TIME 4.00", "", f"CC_MODE {v['mode']}",
             "ALPHA_RESUME_INTERVAL 1", "RATE_DECREASE_INTERVAL 4", "CLAMP_TARGET_RATE 0",
             "RP_TIMER 300", "EWMA_GAIN 0.00390625", "FAST_RECOVERY_TIMES 1",
             f"RATE_AI {v['ai']}Mb/s", f"RATE_HAI {v['hai']}Mb/s", "MIN_RATE 1000Mb/s",
             "DCTCP_RATE_AI 1000Mb/s", "", "ERROR_RATE_PER_LINK 0.0000", "L2_CHUNK_SIZE 4000",
             "L2_ACK_INTERVAL 1", "L2_BACK_TO_ZERO 0", "", f"HAS_WIN {v['has_win']}", "GLOBAL_T 1",
             f"VAR_WIN {v['vwin']}", f"FAST_REACT {v['us']}", "U_TARGET 0.95", "MI_THRESH 0",
             f"INT_MULTI {v['int_multi']}", "MULTI_RATE 0",
             # PINT_* are read by CC_MODE 10 only; 1.05 is third.cc's default (run.py's is 1.01).
             "SAMPLE_FEEDBACK 0", "PINT_LOG_BASE 1.05", "PINT_PROB 1.0", "", "RATE_BOUND 1", "",
             f"ACK_HIGH_PRIO {v['ack_prio']}", "", "LINK_DOWN 0 0 0", "", "ENABLE_TRACE 0", "",
             f"KMAX_MAP 2 {bw * 1000000000} {400 * bw // 25} {bw * 4000000000} {400 * bw * 4 // 25}",
             f"KMIN_MAP 2 {bw * 1000000000} {100 * bw // 25} {bw * 4000000000} {100 * bw * 4 // 25}",
             f"PMAX_MAP 2 {bw * 1000000000} 0.20 {bw * 4000000000} 0.20",
             f"BUFFER_SIZE {16 * bw // 50}", f"QLEN_MON_FILE {os.path.join(out, 'qlen.txt')}",
             "QLEN_MON_START 2000000000", "QLEN_MON_END 2000000000", ""]
    return "\n".join(lines), fct, pfc


# ConWeave-ns3's end-of-run ConWeave counters (conweave_history_print) and rocelab's name
# for each (summary.json lb_stats): compare.py prints them side by side.
NS3_COUNTERS = {
    "Number of INIT's Reply sent (RTT_REPLY)": "conweave_rtt_replies",
    "Number of Timely RTT_REPLY (INIT's Reply)": "conweave_rtt_replies_timely",
    "Number of TAIL's Reply Sent (CLEAR)": "conweave_clears",
    "Number of NOTIFY Sent": "conweave_notifies",
    "Number of Rerouting": "conweave_reroutes",
    "Number of OoO enqueued pkts": "conweave_held_packets",
    "Number of VOQ Flush Total": "conweave_flushes",
    "Number of VOQ Flush by TAIL": "conweave_flushes_by_tail",
}


def ns3_counters(log):
    """The load balancer's counters in the simulator's output, by rocelab's stat name."""
    out = {}
    for line in log.splitlines():
        name, _, value = line.rpartition(":")
        if name.strip() in NS3_COUNTERS and value.strip().isdigit():
            out[NS3_COUNTERS[name.strip()]] = int(value.strip())
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", required=True)
    ap.add_argument("--binary", required=True, help="the built simulator program")
    ap.add_argument("--commit", default="?", help="source commit of the simulator, for meta.json")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temp dir)")
    a = ap.parse_args(argv)
    with open(os.path.join(HERE, "cases.json")) as f:
        case = next((c for c in json.load(f)["cases"] if c["name"] == a.case), None)
    if case is None:
        sys.exit(f"ns3_case.py: no case '{a.case}' in validation/cases.json")
    work = os.path.abspath(a.work or os.path.join("/tmp", "rocelab_ns3_" + a.case))
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    # ConWeave-ns3 looks the topology name up in a BDP table (network-load-balance.cc
    # topo2bdpMap; used by IRN only, which these cases leave off): keep its key in the name.
    topo = os.path.join(work, case.get("ns3_topology_name", "topology") + ".txt")
    flows = os.path.join(work, "flows.txt")
    subprocess.run([sys.executable, os.path.join(HERE, "tools", "ns3_inputs.py"), *case["inputs"],
                    "--out-topology", topo, "--out-flows", flows], check=True)
    make = conweave_config if case["simulator"] == "conweave-ns3" else hpcc_config
    config, fct, pfc = make(case, topo, flows, out)
    config_path = os.path.join(work, "config.txt")
    with open(config_path, "w") as f:
        f.write(config)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.dirname(os.path.dirname(os.path.abspath(a.binary)))
    t0 = time.time()
    with open(os.path.join(work, "ns3.log"), "w") as log:
        subprocess.run([a.binary, config_path], check=True, stdout=log, stderr=subprocess.STDOUT,
                       cwd=work, env=env)
    wall = time.time() - t0
    ref = os.path.join(HERE, "reference", a.case)
    os.makedirs(ref, exist_ok=True)
    for src, name in [(flows, "flows.txt.gz"), (fct, "fct.txt.gz"), (pfc, "pfc.txt.gz")]:
        with open(src, "rb") as i, gzip.GzipFile(os.path.join(ref, name), "wb", mtime=0) as o:
            shutil.copyfileobj(i, o)
    with open(os.path.join(ref, "ns3_config.txt"), "w") as f:
        f.write(config.replace(work + "/", ""))
    meta = {"simulator": case["simulator"], "commit": a.commit, "ns3_wall_seconds": round(wall, 1),
            "program": os.path.basename(a.binary), "made": time.strftime("%Y-%m-%d")}
    with open(os.path.join(work, "ns3.log")) as f:
        counters = ns3_counters(f.read())
    if counters:
        meta["ns3_counters"] = counters
    with open(os.path.join(ref, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"{a.case}: ns-3 took {wall:.1f} s; reference in {ref}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
