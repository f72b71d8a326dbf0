"""Tables and figures of docs/studies/seed-systems.md from the regime grid's sweeps.

usage: PYTHONPATH=python python3 scenarios/regimes/tables.py runs/regimes [--figures DIR]
(after `rocelab sweep scenarios/regimes/sweeps/grid.yaml -o runs/regimes/grid` and the same
for grid_incast.yaml). Prints Markdown: per cell the winner by mean FCT, its margin over the
runner-up (the runner-up's FCT over the winner's, paired by seed: mean and 95% interval),
whether PFC engaged (the mean paused-time fraction of the fabric's links under ECMP and the
most under any scheme) and every scheme's mean FCT; then, per paper, where its headline
comparison holds. With --figures, one PNG per workload: the winner of every cell.
"""
import os
import sys

from rocelab.results import summaries_by_point
from rocelab.stats import mean_ci

SCHEMES = ["flb+rc+pfc", "proteus+dcqcn+pfc", "lbodsn+dcqcn+pfc", "ecmp+win+bfc",
           "ecmp+dcqcn+pfc", "conga+dcqcn+pfc", "conweave+dcqcn+pfc"]
LABEL = {"flb+rc+pfc": "FLB+RC", "proteus+dcqcn+pfc": "Proteus", "lbodsn+dcqcn+pfc": "LBoDSN",
         "ecmp+win+bfc": "BFC", "ecmp+dcqcn+pfc": "ECMP", "conga+dcqcn+pfc": "CONGA",
         "conweave+dcqcn+pfc": "ConWeave"}
# The readings sweeps (readings.yaml, readings_incast.yaml): not in the ranking; each is
# compared with its scheme's default and with that paper's rival.
READINGS = {"proteus-off-congested": ("Proteus, off congested paths", "Proteus"),
            "flb+rc-age-tick-1us": ("FLB+RC, 1 us aging tick", "FLB+RC"),
            "lbodsn-watch-spine": ("LBoDSN, watched by spines", "LBoDSN")}
COLOR = {"FLB+RC": "#1b9e77", "Proteus": "#d95f02", "LBoDSN": "#7570b3", "BFC": "#e7298a",
         "ECMP": "#999999", "CONGA": "#66a61e", "ConWeave": "#e6ab02"}
# Each paper's headline comparison in this grid: (seed system, the rival it claims to beat).
CLAIMS = [("FLB+RC", "CONGA", "FLB §4.3: lower FCT than CONGA and ECMP"),
          ("FLB+RC", "ECMP", ""),
          ("Proteus", "CONGA", "Proteus §V: up to 35% lower AFCT than CONGA"),
          ("Proteus", "ECMP", ""),
          ("LBoDSN", "ConWeave", "LBoDSN §4: 8% lower mean FCT than ConWeave"),
          ("LBoDSN", "ECMP", ""),
          ("BFC", "ECMP", "BFC §4: lower FCT than DCQCN (both over ECMP)")]


def parse_point(point, incast):
    kv = dict(part.split("=", 1) for part in point.split(","))
    return {"cdf": kv["cdf"], "os": "1:1" if kv["spines"] == "8" else "2:1",
            "delay": kv["link_delay"], "load": kv["load"], "incast": incast}


def load(root):
    """[(cell, {label: {seed: summary}})] over both sweeps; the readings' runs under their
    READINGS labels, where they exist."""
    cells = []
    for sweep, incast in (("grid", "no"), ("grid_incast", "yes")):
        runs = summaries_by_point(os.path.join(root, sweep))
        extra = summaries_by_point(os.path.join(root, sweep.replace("grid", "readings")))
        points = sorted({p for p, _ in runs})
        for p in points:
            by = {}
            for s in SCHEMES:
                by[LABEL[s]] = {j["seed"]: j for j in runs.get((p, s), [])}
            for name, (label, _) in READINGS.items():
                got = {j["seed"]: j for j in extra.get((p, name), [])}
                if got:
                    by[label] = got
            cells.append((parse_point(p, incast), by))
    order = {"websearch": 0, "alistorage2019": 1}
    cells.sort(key=lambda c: (order.get(c[0]["cdf"], 9), c[0]["incast"], c[0]["os"],
                              c[0]["delay"], float(c[0]["load"])))
    return cells


def afct(runs):
    return [j["afct_us"] for j in runs.values()]


def paired_ratio(a, b):
    """b's FCT over a's, seed by seed: (mean, half-width, n)."""
    seeds = sorted(set(a) & set(b))
    r = [b[s]["afct_us"] / a[s]["afct_us"] for s in seeds if a[s]["afct_us"] > 0]
    m, c = mean_ci(r) if r else (float("nan"), float("nan"))
    return m, c, len(r)


def ranking(by):
    means = {k: sum(afct(v)) / len(v) for k, v in by.items() if v and k in COLOR}
    return sorted(means, key=means.get), means


def paused(runs):
    v = [j.get("mean_paused_time_fraction", 0) for j in runs.values()]
    return sum(v) / len(v) if v else float("nan")


def pause_frames(runs):
    v = [j.get("pfc_pause_frames", 0) for j in runs.values()]
    return sum(v) / len(v) if v else float("nan")


def cell_name(c):
    return f"{c['cdf'][:9]} {c['os']} {c['delay']} {c['load']}" + (" +incast" if c["incast"] == "yes" else "")


def cells_table(cells):
    print("| cell (workload, oversubscription, link delay, fabric load, incasts) | winner | "
          "runner-up / winner (paired) | PFC under ECMP: paused fraction, PAUSE frames | "
          "most paused fraction | " +
          " | ".join(LABEL[s] for s in SCHEMES) + " |")
    print("|---|---|---|---|---|" + "---|" * len(SCHEMES))
    for c, by in cells:
        order, means = ranking(by)
        if len(order) < 2:
            continue
        m, ci, _ = paired_ratio(by[order[0]], by[order[1]])
        most = max(paused(v) for k, v in by.items() if v and k in COLOR)
        fcts = [f"{means[LABEL[s]]:,.0f}" if LABEL[s] in means else "" for s in SCHEMES]
        print(f"| {cell_name(c)} | {order[0]} | {order[1]} {m:.2f} ± {ci:.2f} | "
              f"{paused(by['ECMP']):.3f}, {pause_frames(by['ECMP']):,.0f} | {most:.3f} | " +
              " | ".join(fcts) + " |")


def claims_table(cells):
    """Per claim: in how many cells the system's FCT is below its rival's (paired interval
    below 1: holds; above 1: fails; else within the seeds' noise), and where."""
    print("| claim | holds | noise | fails | cells where it holds, by dimension |")
    print("|---|---|---|---|---|")
    claims = list(CLAIMS)
    for label, base in READINGS.values():
        claims += [(label, rival, "") for system, rival, text in CLAIMS if system == base]
    for system, rival, text in claims:
        holds, fails, noise = [], [], []
        for c, by in cells:
            if not by.get(system) or not by.get(rival):
                continue
            m, ci, n = paired_ratio(by[rival], by[system])  # system / rival
            (holds if m + ci < 1 else fails if m - ci > 1 else noise).append(c)
        if not holds and not fails and not noise:
            continue  # a reading not run
        where = summarise(holds, cells) if holds else "nowhere"
        label = f"{system} beats {rival}" + (f" ({text})" if text else "")
        print(f"| {label} | {len(holds)} | {len(noise)} | {len(fails)} | {where} |")


DIMENSIONS = [("cdf", "workload"), ("os", "oversubscription"), ("delay", "link delay"),
              ("load", "load"), ("incast", "incasts")]


def summarise(cs, all_cells):
    """Per regime dimension, in how many of its cells the claim holds: 'websearch 10/24'."""
    parts = []
    for key, name in DIMENSIONS:
        values = sorted({c[key] for c, _ in all_cells})
        counts = [f"{v} {sum(c[key] == v for c in cs)}/{sum(c[key] == v for c, _ in all_cells)}"
                  for v in values]
        parts.append(f"{name}: " + ", ".join(counts))
    return "; ".join(parts)


def wins_table(cells):
    print("| scheme | cells won | won with the runner-up >= 5% behind | mean rank (1-7) | "
          "mean FCT / the cell's best |")
    print("|---|---|---|---|---|")
    wins, clear, ranks, gaps = {}, {}, {}, {}
    for c, by in cells:
        order, means = ranking(by)
        if len(order) < 2:
            continue
        for k, sch in enumerate(order):
            ranks.setdefault(sch, []).append(k + 1)
            gaps.setdefault(sch, []).append(means[sch] / means[order[0]])
        m, ci, _ = paired_ratio(by[order[0]], by[order[1]])
        wins[order[0]] = wins.get(order[0], 0) + 1
        if m - ci >= 1.05:
            clear[order[0]] = clear.get(order[0], 0) + 1
    for s in sorted(ranks, key=lambda k: sum(ranks[k]) / len(ranks[k])):
        print(f"| {s} | {wins.get(s, 0)} | {clear.get(s, 0)} | "
              f"{sum(ranks[s]) / len(ranks[s]):.1f} | {sum(gaps[s]) / len(gaps[s]):.2f} |")


def figures(cells, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    os.makedirs(out_dir, exist_ok=True)
    for cdf in sorted({c["cdf"] for c, _ in cells}):
        rows = [(inc, os_) for inc in ("no", "yes") for os_ in ("1:1", "2:1")]
        cols = [(d, l) for d in ("1us", "5us") for l in ("0.3", "0.5", "0.8")]
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for c, by in cells:
            if c["cdf"] != cdf:
                continue
            order, means = ranking(by)
            if len(order) < 2:
                continue
            r = rows.index((c["incast"], c["os"]))
            k = cols.index((c["delay"], c["load"]))
            m, ci, _ = paired_ratio(by[order[0]], by[order[1]])
            ax.add_patch(plt.Rectangle((k, r), 1, 1, color=COLOR[order[0]],
                                       alpha=1.0 if m - ci > 1 else 0.45))
            ax.text(k + 0.5, r + 0.5, f"{order[0]}\n{order[1]} +{(m - 1) * 100:.0f}%",
                    ha="center", va="center", fontsize=7)
        ax.set_xlim(0, len(cols))
        ax.set_ylim(0, len(rows))
        ax.invert_yaxis()
        ax.set_xticks([i + 0.5 for i in range(len(cols))])
        ax.set_xticklabels([f"{d}\nload {l}" for d, l in cols], fontsize=8)
        ax.set_yticks([i + 0.5 for i in range(len(rows))])
        ax.set_yticklabels([f"{o}{' +incast' if i == 'yes' else ''}" for i, o in rows], fontsize=8)
        ax.set_title(f"{cdf}: winner by mean FCT (faded: the runner-up within the seeds' noise)",
                     fontsize=9)
        ax.legend(handles=[Patch(color=v, label=k) for k, v in COLOR.items()], fontsize=7,
                  loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        path = os.path.join(out_dir, f"seed_systems_{cdf}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"wrote {path}", file=sys.stderr)


def readings_table(cells):
    """Each reading against its scheme's default, paired by seed, cell by cell."""
    print("| reading | cells | better (interval below 1) | within noise | worse | "
          "FCT / default: range of the cell means |")
    print("|---|---|---|---|---|---|")
    for label, base in READINGS.values():
        better, noise, worse, ratios = 0, 0, 0, []
        for c, by in cells:
            if not by.get(label) or not by.get(base):
                continue
            m, ci, _ = paired_ratio(by[base], by[label])
            ratios.append(m)
            if m + ci < 1:
                better += 1
            elif m - ci > 1:
                worse += 1
            else:
                noise += 1
        if ratios:
            print(f"| {label} | {len(ratios)} | {better} | {noise} | {worse} | "
                  f"{min(ratios):.2f}-{max(ratios):.2f} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cells = load(sys.argv[1])
    print("### Every cell\n")
    cells_table(cells)
    print("\n### Cells won\n")
    wins_table(cells)
    print("\n### Each paper's comparison\n")
    claims_table(cells)
    print("\n### The readings against their defaults\n")
    readings_table(cells)
    if "--figures" in sys.argv:
        figures(cells, sys.argv[sys.argv.index("--figures") + 1])


if __name__ == "__main__":
    main()
