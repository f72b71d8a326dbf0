"""The results schema (schema.json beside this file): each key of summary.json, flows.csv,
compare.csv, runs.csv and sweep.csv with its unit and meaning. The rocelab binary embeds
the same file; `rocelab schema KEY` prints what describe(KEY) returns."""
import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json")) as _f:
    SCHEMA = json.load(_f)

HEADLINE = list(SCHEMA["headline"])
MACHINE_DEPENDENT = set(SCHEMA["machine_dependent"])
FILES = [k for k, v in SCHEMA.items() if isinstance(v, list) and k not in
         ("headline", "machine_dependent")]


def headline():
    """The summary keys compare.csv, runs.csv and sweep.csv carry, in column order."""
    return list(HEADLINE)


def _matches(pattern, key):
    # A placeholder stands for one or more segments (as src/scenario/results/schema.cc).
    def match(p, k):
        if not p:
            return not k
        if not k:
            return False
        if len(p[0]) > 2 and p[0][0] == "<" and p[0][-1] == ">":
            return any(match(p[1:], k[end:]) for end in range(1, len(k) + 1))
        return p[0] == k[0] and match(p[1:], k[1:])
    return match(pattern.split("."), key.split("."))


def machine_dependent(key):
    """Whether a summary key says how the run ran (wall time, threads), not what it simulated:
    such keys differ between runs of the same scenario (as schema.cc's machine_dependent)."""
    return any(_matches(p, key) for p in MACHINE_DEPENDENT)


def find(key, file="summary.json"):
    """The schema entry ({key, unit, meaning[, when]}) a concrete key falls under, or None."""
    if file not in FILES:
        raise KeyError(f"no results file {file!r}; files: {', '.join(FILES)}")
    # Of the entries the key matches, the most literal one (as the binary's schema.cc): in
    # sweep.csv <headline>.mean over <grid key>, scheme over both.
    best, best_literals = None, -1
    for entry in SCHEMA[file]:
        if _matches(entry["key"], key):
            literals = sum(not (s.startswith("<") and s.endswith(">"))
                           for s in entry["key"].split("."))
            if literals > best_literals:
                best, best_literals = entry, literals
    return best


def unit(key, file="summary.json"):
    """The unit of a key ('us', 'ns', '1', 'count', ...); KeyError when the schema lacks it.
    A headline column of compare.csv, runs.csv or sweep.csv (.mean, .ci95) has its summary
    key's unit."""
    entry = find(key, file)
    if entry is None:
        raise KeyError(f"{file} has no key {key!r}")
    if entry["unit"] == "as in summary.json":
        return unit(key.rsplit(".", 1)[0] if key.endswith((".mean", ".ci95")) else key)
    return entry["unit"]


def describe(key, file="summary.json"):
    """'key [unit]: meaning'."""
    entry = find(key, file)
    if entry is None:
        raise KeyError(f"{file} has no key {key!r}")
    return f"{key} [{entry['unit']}]: {entry['meaning']}"
