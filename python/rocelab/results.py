"""Readers of rocelab's output directories (docs/output.md): a run directory (summary.json,
flows.csv, ...), a compare directory (compare.csv and a run directory per scheme) and a
sweep directory (sweep.csv, runs.csv, runs/<point>/<scheme>/seed-<n>/). The dict readers
need only the standard library; read_flows, read_collectives, read_runs and read_sweep return pandas
DataFrames (Debian's python3-pandas)."""
import csv
import glob
import json
import os

from .schema import SCHEMA


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("rocelab's DataFrame readers need pandas: apt-get install "
                          "python3-pandas (the dict readers work without it)") from None
    return pandas


def read_summary(run_dir):
    """summary.json of a run directory, as a dict."""
    with open(os.path.join(run_dir, "summary.json")) as f:
        return json.load(f)


def flatten(summary, prefix=""):
    """{dotted key: value} over the leaves of a summary (lists such as notes are leaves)."""
    out = {}
    for k, v in summary.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def get(summary, key):
    """A dotted key of a summary as a float; None when absent or not a number."""
    v = summary
    for k in key.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return float(v) if isinstance(v, (int, float)) else None


def run_dirs(root):
    """Every run directory (holding summary.json) under root, root included, sorted."""
    out = []
    for d, _, files in os.walk(root):
        if "summary.json" in files:
            out.append(d)
    return sorted(out)


def summaries_by_point(sweep_dir):
    """{(point, scheme): [summary, ...]} over the seeds of a sweep directory (study tables)."""
    out = {}
    for f in sorted(glob.glob(os.path.join(sweep_dir, "runs", "*", "*", "seed-*", "summary.json"))):
        parts = f.split(os.sep)
        with open(f) as fh:
            out.setdefault((parts[-4], parts[-3]), []).append(json.load(fh))
    return out


def _sweep_coords(root, run_dir):
    """(point, scheme, seed) of a run directory laid out as a sweep's, else Nones."""
    parts = os.path.relpath(run_dir, root).split(os.sep)
    if len(parts) >= 4 and parts[-4] == "runs" and parts[-1].startswith("seed-"):
        try:
            return parts[-3], parts[-2], int(parts[-1][len("seed-"):])
        except ValueError:
            pass
    return None, None, None


def load_runs(root, sweep):
    """{case: {scheme: {seed: (summary, run dir)}}} of root/sweep/runs/; '+pfc' is dropped
    from scheme names and runs marked incomplete are left out (a sweep still running gives
    what it has)."""
    out = {}
    base = os.path.join(root, sweep)
    for run_dir in run_dirs(os.path.join(base, "runs")):
        point, scheme, seed = _sweep_coords(base, run_dir)
        if point is None:
            continue
        s = read_summary(run_dir)
        if not s.get("complete", True):
            continue
        out.setdefault(point, {}).setdefault(scheme.replace("+pfc", ""), {})[seed] = (s, run_dir)
    return out


def _columns_of(file):
    return {e["key"]: e["unit"] for e in SCHEMA[file] if "<" not in e["key"]}


def read_flows(run_dir):
    """flows.csv as a DataFrame: one row per flow; times as float ns, sizes as integers,
    hol_blocked as bool; unfinished flows have NaN finish_ns, fct_ns and slowdown."""
    pd = _pandas()
    units = _columns_of("flows.csv")
    dtypes = {k: ("string" if u == "text" else "float64" if u in ("ns", "1") else "int64")
              for k, u in units.items() if u != "bool"}
    df = pd.read_csv(os.path.join(run_dir, "flows.csv"), dtype=dtypes, keep_default_na=False,
                     na_values={k: [""] for k, u in units.items() if u in ("ns", "1")})
    for k, u in units.items():
        if u == "bool":
            df[k] = df[k].astype(bool)
    return df


def read_collectives(run_dir):
    """collectives.csv as a DataFrame (runs with collective workloads): one row per
    collective; times and ratios as floats (NaN when it did not complete), counts and bytes
    as integers."""
    pd = _pandas()
    units = _columns_of("collectives.csv")
    floats = ("ns", "us", "1", "GB/s")
    dtypes = {k: ("string" if u == "text" else "float64" if u in floats else "int64")
              for k, u in units.items()}
    # A collective that did not complete leaves its straggler columns empty.
    dtypes["straggler_step"] = "float64"
    return pd.read_csv(os.path.join(run_dir, "collectives.csv"), dtype=dtypes,
                       keep_default_na=False,
                       na_values={k: [""] for k, u in units.items() if u in floats or
                                  k == "straggler_step"})


def read_runs(root):
    """One row per run directory under root: its flattened summary (scalars; lists such as
    notes joined by ' | '), the directory (dir) and, for a sweep's runs, point, scheme and
    seed."""
    pd = _pandas()
    rows = []
    for d in run_dirs(root):
        point, scheme, seed = _sweep_coords(root, d)
        row = {"dir": d, "point": point, "scheme_dir": scheme, "seed_dir": seed}
        for k, v in flatten(read_summary(d)).items():
            row[k] = " | ".join(map(str, v)) if isinstance(v, list) else v
        rows.append(row)
    df = pd.DataFrame(rows)
    if not df.empty and df["point"].isna().all():
        df = df.drop(columns=["point", "scheme_dir", "seed_dir"])
    return df


def read_sweep(sweep_dir, table="sweep"):
    """sweep.csv (table='sweep': mean and ci95 per point and scheme) or runs.csv
    (table='runs': one row per run) of a sweep directory, or compare.csv (table='compare')
    of a compare directory, as a DataFrame."""
    if table not in ("sweep", "runs", "compare"):
        raise ValueError("table: sweep, runs or compare")
    pd = _pandas()
    path = os.path.join(sweep_dir, f"{table}.csv")
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    text = {c: "string" for c in header if c in ("point", "scheme", "status", "error", "dir")}
    return pd.read_csv(path, dtype=text, keep_default_na=False, na_values=[""])


def provenance(root):
    """One Markdown line naming the rocelab builds (version+commit) whose runs are under
    root, with how many runs each made: a table regenerated at one commit names one."""
    counts = {}
    for d in run_dirs(root):
        try:
            with open(os.path.join(d, "summary.json")) as fh:
                v = json.load(fh).get("version", "unknown")
        except (OSError, ValueError):
            v = "unreadable"
        counts[v] = counts.get(v, 0) + 1
    if not counts:
        return "No runs found."
    parts = [f"rocelab {v} ({n} runs)" for v, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return "Runs made by " + ", ".join(parts) + "."
