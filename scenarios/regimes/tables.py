"""Tables and figures of docs/studies/seed-systems.md from the regime grid's sweeps.

usage: PYTHONPATH=python python3 scenarios/regimes/tables.py runs/regimes [--figures DIR]
(after `rocelab sweep scenarios/regimes/sweeps/grid.yaml -o runs/regimes/grid` and the same
for grid_incast.yaml, grid_pfc.yaml and the readings*.yaml). Prints Markdown: per cell the
winner by mean FCT (in grid_pfc's PFC-heavy cells, the background flows' mean FCT: the
incasts' own is set by their receivers' links), its margin over the
runner-up (the runner-up's FCT over the winner's, paired by seed: mean and 95% interval),
whether PFC engaged (the mean paused-time fraction of the fabric's links under ECMP and the
most under any scheme) and every scheme's mean FCT; then, per paper, where its headline
comparison holds; the PFC-heavy cells apart. With --figures, one PNG per workload and one
for the PFC-heavy cells: the winner of every cell.
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
            "lbodsn-watch-spine": ("LBoDSN, watched by spines", "LBoDSN"),
            "proteus-kickout-port": ("Proteus, kick-out per uplink", "Proteus")}
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
    for sweep, incast in (("grid", "no"), ("grid_incast", "yes"), ("grid_pfc", "heavy")):
        if not os.path.isdir(os.path.join(root, sweep)):
            continue
        runs = summaries_by_point(os.path.join(root, sweep))
        extra = summaries_by_point(os.path.join(root, sweep.replace("grid", "readings")))
        for got in list(runs.values()) + list(extra.values()):
            for j in got:
                j["rank_fct_us"] = ranked_fct(j, incast)
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


def ranked_fct(j, incast):
    """What a cell ranks by: the mean FCT of every flow, or in a PFC-heavy cell the
    background flows' (PFC's victims; an incast's FCT is its receiver link's)."""
    if incast == "heavy":
        return j["by_tag"]["background"]["afct_us"]
    return j["afct_us"]


def afct(runs):
    return [j["rank_fct_us"] for j in runs.values()]


def incast_afct(runs):
    v = [j["by_tag"]["incast"]["afct_us"] for j in runs.values()]
    return sum(v) / len(v) if v else float("nan")


def paired_ratio(a, b):
    """b's FCT over a's, seed by seed: (mean, half-width, n)."""
    seeds = sorted(set(a) & set(b))
    r = [b[s]["rank_fct_us"] / a[s]["rank_fct_us"] for s in seeds if a[s]["rank_fct_us"] > 0]
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
    tail = {"no": "", "yes": " +incast", "heavy": " +heavy incast"}[c["incast"]]
    return f"{c['cdf'][:9]} {c['os']} {c['delay']} {c['load']}{tail}"


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


def winner_grid(ax, cells, rows, row_of):
    """One square per cell, coloured by its winner (faded: the runner-up within noise)."""
    import matplotlib.pyplot as plt
    cols = [(d, l) for d in ("1us", "5us") for l in ("0.3", "0.5", "0.8")]
    for c, by in cells:
        order, means = ranking(by)
        if len(order) < 2:
            continue
        r = rows.index(row_of(c))
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


def save_figure(fig, ax, out_dir, name, title):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    ax.set_title(title, fontsize=9)
    ax.legend(handles=[Patch(color=v, label=k) for k, v in COLOR.items()], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}", file=sys.stderr)


def figures(cells, heavy, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    title = "winner by mean FCT (faded: the runner-up within the seeds' noise)"
    for cdf in sorted({c["cdf"] for c, _ in cells}):
        rows = [(inc, os_) for inc in ("no", "yes") for os_ in ("1:1", "2:1")]
        fig, ax = plt.subplots(figsize=(9, 3.6))
        winner_grid(ax, [x for x in cells if x[0]["cdf"] == cdf], rows,
                    lambda c: (c["incast"], c["os"]))
        ax.set_yticklabels([f"{o}{' +incast' if i == 'yes' else ''}" for i, o in rows], fontsize=8)
        save_figure(fig, ax, out_dir, f"seed_systems_{cdf}.png", f"{cdf}: {title}")
    if heavy:
        rows = [(cdf, os_) for cdf in ("websearch", "alistorage2019") for os_ in ("1:1", "2:1")]
        fig, ax = plt.subplots(figsize=(9, 3.6))
        winner_grid(ax, heavy, rows, lambda c: (c["cdf"], c["os"]))
        ax.set_yticklabels([f"{cdf} {o}" for cdf, o in rows], fontsize=8)
        save_figure(fig, ax, out_dir, "seed_systems_pfc.png",
                    f"heavy incasts, background flows: {title}")


def incasts_table(cells):
    """The PFC-heavy cells' incast flows: their mean FCT per scheme (not ranked)."""
    print("| cell | " + " | ".join(LABEL[s] for s in SCHEMES) + " |")
    print("|---|" + "---|" * len(SCHEMES))
    for c, by in cells:
        fcts = [f"{incast_afct(by[LABEL[s]]):,.0f}" if by.get(LABEL[s]) else "" for s in SCHEMES]
        print(f"| {cell_name(c)} | " + " | ".join(fcts) + " |")


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


def sections(cells, what):
    print(f"### Every cell{what}\n")
    cells_table(cells)
    print(f"\n### Cells won{what}\n")
    wins_table(cells)
    print(f"\n### Each paper's comparison{what}\n")
    claims_table(cells)
    print(f"\n### The readings against their defaults{what}\n")
    readings_table(cells)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    every = load(sys.argv[1])
    cells = [x for x in every if x[0]["incast"] != "heavy"]
    heavy = [x for x in every if x[0]["incast"] == "heavy"]
    sections(cells, "")
    if heavy:
        print()
        sections(heavy, ", PFC-heavy (background flows)")
        print("\n### The PFC-heavy cells' incast flows: mean FCT (us)\n")
        incasts_table(heavy)
    if "--figures" in sys.argv:
        figures(cells, heavy, sys.argv[sys.argv.index("--figures") + 1])


if __name__ == "__main__":
    main()
