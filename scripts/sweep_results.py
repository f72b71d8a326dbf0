"""Reading a rocelab sweep directory for the reproduction reports (proteus_report.py,
lbodsn_report.py): every finished run's summary.json by case, scheme and seed, a dotted
key of a summary, and a list of per-seed figures as mean ± the half-width of its 95%
confidence interval (Student's t, as rocelab's sweep.csv computes it)."""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "cli"))
from rocelab_plot import mean_ci  # noqa: E402


def load_runs(root, sweep):
    """{case: {scheme: {seed: (summary, run dir)}}}; '+pfc' is dropped from scheme names and
    runs marked incomplete are left out (a sweep still running gives what it has)."""
    out = {}
    base = os.path.join(root, sweep, "runs")
    if not os.path.isdir(base):
        return out
    for case in sorted(os.listdir(base)):
        for scheme in sorted(os.listdir(os.path.join(base, case))):
            for seed_dir in os.listdir(os.path.join(base, case, scheme)):
                run_dir = os.path.join(base, case, scheme, seed_dir)
                path = os.path.join(run_dir, "summary.json")
                if not os.path.exists(path):
                    continue
                with open(path) as f:
                    s = json.load(f)
                if not s.get("complete", True):
                    continue
                name = scheme.replace("+pfc", "")
                seed = int(seed_dir.split("-")[1])
                out.setdefault(case, {}).setdefault(name, {})[seed] = (s, run_dir)
    return out


def get(s, key):
    """A dotted key of a summary as a float; None when absent."""
    v = s
    for k in key.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return float(v)


def fmt(xs, digits=0, scale=1.0):
    """'mean ± half-width', '(n=k)' when fewer than 5 values, '-' when none."""
    xs = [x * scale for x in xs if x is not None]
    if not xs:
        return "-"
    m, c = mean_ci(xs)
    text = f"{m:,.{digits}f}"
    if len(xs) > 1:
        text += f" ± {c:,.{digits}f}"
    return text + ("" if len(xs) >= 5 else f" (n={len(xs)})")
