"""Figures and reports of rocelab results (`rocelab plot DIR`, `rocelab report DIR`).

A module of the rocelab Python package, which the rocelab binary carries: `rocelab plot`
runs `python3 -m rocelab.plot plot DIR OUT` with Debian's python3 and python3-matplotlib.
DIR is a run directory (summary.json), a compare directory (compare.csv and one run
directory per scheme) or a sweep directory (sweep.json, sweep.csv, runs.csv, runs/).
"""
import csv
import html
import json
import math
import os
import sys
from collections import OrderedDict, defaultdict

from .stats import mean_ci, percentile


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def kind_of(d):
    if os.path.exists(os.path.join(d, "sweep.json")):
        return "sweep"
    if os.path.exists(os.path.join(d, "compare.csv")):
        return "compare"
    if os.path.exists(os.path.join(d, "summary.json")):
        return "run"
    sys.exit(f"rocelab: error: {d}: not a run, compare or sweep directory "
             "(no summary.json, compare.csv or sweep.json)")


# ---------------------------------------------------------------- the results, as groups
class Group:
    """One curve of a figure: a scheme at a point, over one or more seeds (run dirs)."""

    def __init__(self, label, dirs):
        self.label = label
        self.dirs = dirs


def groups_of(d, kind):
    """{panel title: [Group, ...]}: one panel per sweep point, one group per scheme."""
    if kind == "run":
        s = read_json(os.path.join(d, "summary.json"))
        return OrderedDict([("", [Group(s.get("scheme", "run"), [d])])])
    if kind == "compare":
        rows = read_csv(os.path.join(d, "compare.csv"))
        return OrderedDict([("", [Group(r["scheme"], [os.path.join(d, r["scheme"])]) for r in rows
                                  if os.path.isdir(os.path.join(d, r["scheme"]))])])
    panels = OrderedDict()
    by = OrderedDict()
    for r in read_csv(os.path.join(d, "runs.csv")):
        if r["status"] not in ("done", "reused"):
            continue
        by.setdefault(r["point"], OrderedDict()).setdefault(r["scheme"], []).append(
            os.path.join(d, r["dir"]))
    for point, schemes in by.items():
        panels[point] = [Group(k, v) for k, v in schemes.items()]
    return panels


# ---------------------------------------------------------------- figures
def plt_module():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def save(plt, fig, out, name, written):
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=110 if ext == "png" else None,
                    bbox_inches="tight")
    plt.close(fig)
    written.append(f"{name}.png")


def flows_of(run_dir):
    out = []
    for r in read_csv(os.path.join(run_dir, "flows.csv")):
        sd = num(r.get("slowdown"))
        if sd is not None:
            out.append((int(r["size_bytes"]), sd))
    return out


def size_edges(samples, bins=12):
    sizes = sorted(s for s, _ in samples)
    if not sizes:
        return []
    edges = []
    for i in range(1, bins + 1):
        e = sizes[min(len(sizes) - 1, math.ceil(i / bins * len(sizes)) - 1)]
        if not edges or e > edges[-1]:
            edges.append(e)
    return edges


def binned(samples, edges, p):
    per = [[] for _ in edges]
    for size, sd in samples:
        for i, e in enumerate(edges):
            if size <= e:
                per[i].append(sd)
                break
    return [percentile(sorted(b), p) if b else float("nan") for b in per]


def log_if_spread(ax, values, decades=1.0):
    """A log y axis when the positive values plotted span `decades` or more: on a linear axis
    one scheme's p99 slowdown of 4,500 flattens the others' 2-20 against zero."""
    pos = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if pos and max(pos) >= min(pos) * 10 ** decades:
        ax.set_yscale("log", nonpositive="clip")
        return True
    return False


def fig_slowdown_by_size(plt, panels, out, written):
    for title, groups in panels.items():
        per_group = [(g, [flows_of(x) for x in g.dirs]) for g in groups]
        pooled = [f for _, runs in per_group for run in runs for f in run]
        edges = size_edges(pooled)
        if not edges:
            continue
        fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
        for ax, p in zip(axes, (50, 99)):
            plotted = []
            for g, runs in per_group:
                curves = [binned(run, edges, p) for run in runs if run]
                if not curves:
                    continue
                stats = [mean_ci([c[i] for c in curves]) for i in range(len(edges))]
                m = [s[0] for s in stats]
                plotted += m
                line, = ax.plot(edges, m, marker="o", markersize=3, label=g.label)
                if len(curves) > 1:
                    # A slowdown is positive: the band is clipped at 0, not extended below.
                    ax.fill_between(edges, [max(0.0, s[0] - s[1]) for s in stats],
                                    [s[0] + s[1] for s in stats], alpha=0.2,
                                    color=line.get_color())
            ax.set_xscale("log")
            log_if_spread(ax, plotted)
            ax.set_xlabel("flow size (bytes, upper edge of each equal-count bin)")
            ax.set_ylabel(f"p{p} FCT slowdown")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle(f"FCT slowdown by flow size{(' - ' + title) if title else ''}"
                     + (" (mean and 95% CI over seeds)" if any(len(g.dirs) > 1 for g in groups)
                        else ""), fontsize=10)
        save(plt, fig, out, "slowdown_by_size" + (f"__{title}" if title else ""), written)


LAYERS = ("edge", "aggregation", "core")


def fig_pause_by_layer(plt, panels, out, written):
    for title, groups in panels.items():
        fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(groups) + 2), 3.6))
        width = 0.8 / len(LAYERS)
        any_pause = False
        for li, layer in enumerate(LAYERS):
            means, cis = [], []
            for g in groups:
                vals = []
                for x in g.dirs:
                    s = read_json(os.path.join(x, "summary.json"))
                    vals.append(s.get("pfc_pause_rate_per_s_by_layer", {}).get(layer, 0.0))
                m, c = mean_ci(vals)
                means.append(m)
                cis.append(c)
                any_pause |= m > 0
            xs = [i + (li - 1) * width for i in range(len(groups))]
            ax.bar(xs, means, width, yerr=cis if any(cis) else None, label=layer, capsize=2)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([g.label for g in groups], rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("PAUSE frames / s")
        ax.set_title(f"PFC PAUSE rate by switch layer{(' - ' + title) if title else ''}",
                     fontsize=10)
        ax.legend(fontsize=8)
        if not any_pause:
            ax.text(0.5, 0.5, "no PAUSE frames", transform=ax.transAxes, ha="center")
        save(plt, fig, out, "pause_rate_by_layer" + (f"__{title}" if title else ""), written)


def collectives_of(run_dir):
    return read_csv(os.path.join(run_dir, "collectives.csv"))


def fig_collective_cct(plt, panels, out, written):
    """Collective completion time by scheme, one bar per job (mean over its iterations, then
    over seeds with a 95% interval)."""
    for title, groups in panels.items():
        jobs = []
        for g in groups:
            for r in collectives_of(g.dirs[0]):
                if r["job"] not in jobs:
                    jobs.append(r["job"])
        if not jobs:
            continue
        fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(groups) + 2), 3.6))
        width = 0.8 / len(jobs)
        plotted = []
        for ji, job in enumerate(jobs):
            means, cis = [], []
            for g in groups:
                per_seed = []
                for x in g.dirs:
                    ccts = [num(r["cct_us"]) for r in collectives_of(x) if r["job"] == job]
                    ccts = [c for c in ccts if c is not None]
                    if ccts:
                        per_seed.append(sum(ccts) / len(ccts))
                m, c = mean_ci(per_seed) if per_seed else (0.0, 0.0)
                means.append(m)
                cis.append(c)
            xs = [i + (ji - (len(jobs) - 1) / 2) * width for i in range(len(groups))]
            plotted += means
            ax.bar(xs, means, width, yerr=cis if any(cis) else None, label=job, capsize=2)
        log_if_spread(ax, plotted)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([g.label for g in groups], rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("collective completion time (us)")
        ax.set_title(f"CCT by scheme{(' - ' + title) if title else ''}", fontsize=10)
        ax.legend(fontsize=8, title="job")
        save(plt, fig, out, "collective_cct" + (f"__{title}" if title else ""), written)


def fig_collective_timeline(plt, run_dir, out, written, max_flows=20000):
    """Per-rank timeline of each job's first collective: one row per sending rank, a bar
    per flow from its start to its finish, coloured by step."""
    rows = collectives_of(run_dir)
    flows = read_csv(os.path.join(run_dir, "flows.csv"))
    if not rows or not flows:
        return
    seen = set()
    for c in rows:
        if c["job"] in seen:
            continue
        seen.add(c["job"])
        first, n = int(c["first_flow"]), int(c["flows"])
        if n > max_flows:
            continue
        part = flows[first:first + n]
        ranks = sorted({f["src"] for f in part} | {f["dst"] for f in part},
                       key=lambda h: (len(h), h))
        y = {h: i for i, h in enumerate(ranks)}
        t0 = min(num(f["start_ns"]) for f in part)
        fig, ax = plt.subplots(figsize=(8, max(2.5, 0.18 * len(ranks) + 1.2)))
        cmap = plt.get_cmap("viridis")
        steps = max(1, int(c["steps"]))
        # Steps are not in flows.csv: a flow's rank in start order within its sender stands in.
        order = {}
        for i, f in enumerate(part):
            order.setdefault(f["src"], []).append(i)
        for src, idx in order.items():
            idx.sort(key=lambda i: num(part[i]["start_ns"]))
            for k, i in enumerate(idx):
                f = part[i]
                s = (num(f["start_ns"]) - t0) / 1000
                e = num(f["finish_ns"])
                if e is None:
                    continue
                e = (e - t0) / 1000
                ax.barh(y[src], e - s, left=s, height=0.8,
                        color=cmap(min(1.0, k / max(1, len(idx) - 1))), edgecolor="none")
        ax.set_yticks(range(len(ranks)))
        ax.set_yticklabels(ranks, fontsize=6 if len(ranks) > 32 else 8)
        ax.set_xlabel("time since the collective's start (us)")
        ax.set_ylabel("sending rank")
        ax.set_title(f"{c['job']}: {c['op']} {c['algorithm']}, {c['ranks']} ranks, "
                     f"{steps} steps, CCT {num(c['cct_us']):.1f} us (colour: the rank's n-th flow)",
                     fontsize=9)
        save(plt, fig, out, f"collective_timeline__{c['job']}", written)


def paused_links_series(run_dir):
    rows = read_csv(os.path.join(run_dir, "pfc_events.csv"))
    if not rows:
        return None
    paused = set()
    t, n = [0.0], [0]
    for r in rows:
        key = (r["switch"], r["port"], r["priority"])
        if r["event"] == "XOFF":
            paused.add(key)
        else:
            paused.discard(key)
        t.append(float(r["time_ns"]) / 1e6)
        n.append(len(paused))
    return t, n


def throughput_series(run_dir):
    rows = read_csv(os.path.join(run_dir, "ts_flow_throughput.csv"))
    if not rows:
        return None
    total = defaultdict(float)
    for r in rows:
        total[float(r["time_ns"]) / 1e6] += float(r["goodput_gbps"])
    ts = sorted(total)
    return ts, [total[x] for x in ts]


def fig_time_series(plt, panels, out, written):
    for title, groups in panels.items():
        series = [(g.label, paused_links_series(g.dirs[0]), throughput_series(g.dirs[0]))
                  for g in groups]
        kinds = [(i, name) for i, name in ((1, "paused links (XOFF held)"),
                                           (2, "goodput, all flows (Gb/s)"))
                 if any(s[i] for s in series)]
        if not kinds:
            continue
        fig, axes = plt.subplots(len(kinds), 1, figsize=(9, 2.8 * len(kinds) + 0.5), sharex=True,
                                 squeeze=False)
        for ax, (i, name) in zip(axes[:, 0], kinds):
            for s in series:
                if not s[i]:
                    continue
                if i == 1:
                    ax.step(s[i][0], s[i][1], where="post", label=s[0], linewidth=0.9)
                else:
                    ax.plot(s[i][0], s[i][1], label=s[0], linewidth=0.9)
            ax.set_ylabel(name)
            ax.grid(alpha=0.3)
        axes[-1, 0].set_xlabel("time (ms)")
        axes[0, 0].legend(fontsize=8)
        seed_note = " (first seed)" if any(len(g.dirs) > 1 for g in groups) else ""
        fig.suptitle(f"Paused links and throughput over time{(' - ' + title) if title else ''}"
                     f"{seed_note}", fontsize=10)
        save(plt, fig, out, "time_series" + (f"__{title}" if title else ""), written)


def numeric_axis(shape, rows):
    keys = [a["key"] for a in shape["grid"]]
    if shape.get("x"):
        return shape["x"]
    for k in keys:
        if all(num(r[k]) is not None for r in rows):
            return k
    return None


def fig_against_x(plt, d, out, written):
    shape = read_json(os.path.join(d, "sweep.json"))
    rows = read_csv(os.path.join(d, "sweep.csv"))
    x = numeric_axis(shape, rows)
    if not x or not rows:
        return
    others = [c for c in [a["key"] for a in shape["grid"]] + (["case"] if shape["cases"] else [])
              if c != x]
    panels = OrderedDict()
    for r in rows:
        key = ", ".join(f"{c}={r[c]}" for c in others)
        panels.setdefault(key, OrderedDict()).setdefault(r["scheme"], []).append(r)
    metrics = [("afct_us", "AFCT (us)"), ("p99_fct_us", "p99 FCT (us)"),
               ("by_size.small.p99_slowdown", "p99 slowdown, flows <= 100 KB")]
    for key, schemes in panels.items():
        fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.6))
        for ax, (m, label) in zip(axes, metrics):
            plotted = []
            for scheme, rs in schemes.items():
                pts = sorted((num(r[x]), num(r.get(m + ".mean")), num(r.get(m + ".ci95")) or 0.0)
                             for r in rs if num(r.get(m + ".mean")) is not None)
                if not pts:
                    continue
                xs, ms, cs = zip(*pts)
                plotted += ms
                line, = ax.plot(xs, ms, marker="o", markersize=3, label=scheme)
                if any(cs):
                    ax.fill_between(xs, [a - b for a, b in zip(ms, cs)],
                                    [a + b for a, b in zip(ms, cs)], alpha=0.2,
                                    color=line.get_color())
            log_if_spread(ax, plotted)
            ax.set_xlabel(x)
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle(f"Against {x}{(' - ' + key) if key else ''} "
                     f"(mean and 95% CI over {len(shape['seeds'])} seeds)", fontsize=10)
        safe = "".join(ch if ch.isalnum() or ch in "._-=," else "_" for ch in key)
        save(plt, fig, out, "against_x" + (f"__{safe}" if safe else ""), written)


def plot(d, out):
    plt = plt_module()
    if plt is None:
        sys.exit("rocelab: error: plots need matplotlib: apt-get install python3-matplotlib "
                 "(or scripts/install-deps.sh --plots)")
    os.makedirs(out, exist_ok=True)
    kind = kind_of(d)
    panels = groups_of(d, kind)
    written = []
    if kind == "sweep":
        fig_against_x(plt, d, out, written)
    fig_slowdown_by_size(plt, panels, out, written)
    fig_pause_by_layer(plt, panels, out, written)
    fig_time_series(plt, panels, out, written)
    fig_collective_cct(plt, panels, out, written)
    if kind == "run":
        fig_collective_timeline(plt, d, out, written)
    return written


# ---------------------------------------------------------------- report
TABLE = [("afct_us", "AFCT (us)"), ("p99_fct_us", "p99 FCT (us)"),
         ("by_size.small.p99_slowdown", "p99 sd small"),
         ("by_size.large.afct_us", "AFCT large (us)"), ("pfc_pause_frames", "PAUSE frames"),
         ("paused_links", "paused links"), ("fabric_utilization", "fabric util"),
         ("network_reordered_ratio", "net reordered"), ("hol_blocked_flow_ratio", "HoL-blocked"),
         ("flows_completed", "flows done")]


def fmt_value(m, c):
    if m is None or math.isnan(m):
        return "-"
    digits = 3 if abs(m) < 10 else 1 if abs(m) < 1e4 else 0
    text = f"{m:.{digits}f}" if abs(m) < 1e7 else f"{m:.3g}"
    if c:
        text += f" ± {c:.{digits}f}" if abs(c) < 1e7 else f" ± {c:.3g}"
    return text


def report_rows(d, kind):
    """[(section title, [(scheme, {metric: (mean, ci)})])]"""
    if kind == "sweep":
        shape = read_json(os.path.join(d, "sweep.json"))
        coords = [a["key"] for a in shape["grid"]] + (["case"] if shape["cases"] else [])
        sections = OrderedDict()
        for r in read_csv(os.path.join(d, "sweep.csv")):
            title = ", ".join(f"{c} = {r[c]}" for c in coords) or "base"
            vals = {m: (num(r.get(m + ".mean")), num(r.get(m + ".ci95"))) for m, _ in TABLE}
            for m, _ in TABLE:
                if m.startswith("by_size.") and not num(r.get(m.rsplit(".", 1)[0] + ".flows.mean")):
                    vals[m] = (None, None)  # no flow of that size: no figure, not 0
            vals["runs"] = (num(r["runs"]), None)
            sections.setdefault(title, []).append((r["scheme"], vals))
        return list(sections.items())
    if kind == "compare":
        rows = read_csv(os.path.join(d, "compare.csv"))
        return [("", [(r["scheme"], {m: (num(r.get(m)), None) for m, _ in TABLE}) for r in rows])]
    s = read_json(os.path.join(d, "summary.json"))
    flat = {}
    for m, _ in TABLE:
        v = s
        for part in m.split("."):
            v = v.get(part, {}) if isinstance(v, dict) else {}
        flat[m] = (v if isinstance(v, (int, float)) else None, None)
    return [("", [(s.get("scheme", "run"), flat)])]


def markdown_to_html(md, title):
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
           "</title><style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
           "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;"
           "padding:3px 8px;text-align:right}td:first-child{text-align:left}"
           "img{max-width:100%}</style></head><body>"]
    lines = md.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{html.escape(line[level:].strip())}</h{level}>")
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not set(lines[i]) <= set("|-: "):
                    rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out.append("<table>")
            for k, row in enumerate(rows):
                tag = "th" if k == 0 else "td"
                out.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row)
                           + "</tr>")
            out.append("</table>")
            continue
        elif line.startswith("![") and "](" in line:
            alt = line[2:line.index("]")]
            src = line[line.index("](") + 2:line.rindex(")")]
            out.append(f"<p><img alt='{html.escape(alt)}' src='{html.escape(src)}'></p>")
        elif line.startswith("- "):
            out.append(f"<li>{html.escape(line[2:])}</li>")
        elif line.strip():
            out.append(f"<p>{html.escape(line)}</p>")
        i += 1
    out.append("</body></html>")
    return "\n".join(out)


def report(d, out):
    kind = kind_of(d)
    os.makedirs(out, exist_ok=True)
    plots_dir = os.path.join(out, "plots")
    figures, note = [], ""
    if plt_module() is not None:
        figures = plot(d, plots_dir)
    else:
        note = "(no figures: python3-matplotlib is not installed)"
    md = [f"# rocelab {kind}: {os.path.basename(os.path.abspath(d))}", ""]
    if kind == "sweep":
        shape = read_json(os.path.join(d, "sweep.json"))
        md += [f"- sweep file: `{shape['file']}`", f"- base scenario: `{shape['scenario']}`"]
        for a in shape["grid"]:
            md.append(f"- grid `{a['key']}`: {', '.join(a['values'])}")
        if shape["cases"]:
            md.append(f"- cases: {', '.join(shape['cases'])}")
        md += [f"- schemes: {', '.join(shape['schemes'])}",
               f"- seeds: {', '.join(str(s) for s in shape['seeds'])}",
               f"- runs: {shape['runs_finished']} of {shape['runs']} finished, "
               f"{shape['runs_failed']} failed", "",
               "Values are the mean ± the half-width of the 95% confidence interval over the "
               "seeds (Student's t); `-` where no run finished."]
        failed = [r for r in read_csv(os.path.join(d, "runs.csv")) if r["status"] == "failed"]
        if failed:
            md += ["", "## Failed runs", ""]
            md += [f"- {r['point']} {r['scheme']} seed {r['seed']}: {r['error']}" for r in failed]
    md.append("")
    for title, rows in report_rows(d, kind):
        if title:
            md += [f"## {title}", ""]
        cols = [label for _, label in TABLE] + (["seeds"] if kind == "sweep" else [])
        md.append("| scheme | " + " | ".join(cols) + " |")
        md.append("|---" * (len(cols) + 1) + "|")
        for scheme, vals in rows:
            cells = [fmt_value(*vals[m]) for m, _ in TABLE]
            if kind == "sweep":
                cells.append(fmt_value(vals["runs"][0], None).split(".")[0])
            md.append(f"| {scheme} | " + " | ".join(cells) + " |")
        md.append("")
    md += ["## Figures", ""] + ([note] if note else [])
    rel = os.path.relpath(plots_dir, out)
    md += [f"![{f}]({rel}/{f})\n" for f in figures]
    text = "\n".join(md) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(markdown_to_html(text, os.path.basename(os.path.abspath(d))))
    return ["report.md", "report.html"] + [f"plots/{f}" for f in figures]


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("plot", "report"):
        sys.exit("usage: python3 -m rocelab.plot plot|report DIR [OUT]")
    mode, d = sys.argv[1], sys.argv[2].rstrip("/") or "/"
    if not os.path.isdir(d):
        sys.exit(f"rocelab: error: {d}: no such directory")
    if mode == "plot":
        out = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else os.path.join(d, "plots")
        written = plot(d, out)
        print(f"wrote {len(written)} figures (PNG and PDF) to {out}/")
    else:
        out = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else d
        report(d, out)
        print(f"wrote {os.path.join(out, 'report.md')} and report.html")


if __name__ == "__main__":
    main()
