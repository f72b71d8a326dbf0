"""rocelab's results in Python.

The schema of its files (rocelab.schema), the statistics its writers use (rocelab.stats)
and readers of run, compare and sweep directories (rocelab.results), as plain dicts or,
with Debian's python3-pandas, as DataFrames:

    import rocelab
    runs = rocelab.read_runs("runs/flb/fig8_websearch")   # one row per run directory
    flows = rocelab.read_flows(runs.dir[0])                 # flows.csv, typed
    rocelab.describe("by_size.small.p99_slowdown")          # unit and meaning

Install it with `pip install ./python` from a checkout (docs/python.md), or put it on the
path with PYTHONPATH=<rocelab checkout>/python; `rocelab plot` and `rocelab report` carry
their own copy.
"""
from .results import (flatten, get, load_runs, read_collectives, read_flows, read_runs,
                      read_summary, read_sweep,
                      run_dirs)
from .schema import describe, find, headline, unit
from .stats import fmt, mean_ci, percentile, t975

__all__ = ["describe", "find", "headline", "unit", "fmt", "mean_ci", "percentile", "t975",
           "flatten", "get", "load_runs", "read_collectives", "read_flows", "read_runs",
           "read_summary",
           "read_sweep", "run_dirs"]
