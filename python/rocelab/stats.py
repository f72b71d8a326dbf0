"""The statistics of rocelab's writers (src/stats/), for figures and reports: Student's t
95% intervals over seeds (sweep.csv's .mean and .ci95) and nearest-rank percentiles (the
p50 and p99 of summary.json). A test (tests/stats/python_stats_test.cc) checks they agree
with the C++ ones."""
import math

# Two-sided 95% Student t quantiles for 1..30 degrees of freedom (the standard table, as
# src/stats/confidence.cc); beyond 30, the Cornish-Fisher expansion around the normal.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(dof):
    """t(0.975, dof); 0 for dof <= 0."""
    if dof <= 0:
        return 0.0
    if dof <= 30:
        return T975[dof - 1]
    z = 1.959963984540054
    return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof * dof)


def mean_ci(xs):
    """(mean, half-width of the 95% interval) of the values that are not None or NaN;
    (nan, 0) for none, (x, 0) for one."""
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    if not xs:
        return float("nan"), 0.0
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return m, t975(len(xs) - 1) * sd / math.sqrt(len(xs))


def percentile(sorted_xs, p):
    """Nearest rank of an ascending list, as rocelab's summaries; nan for an empty one (where
    a summary writes 0 for an empty bucket, and its `flows` 0 tells the two apart)."""
    if not sorted_xs:
        return float("nan")
    rank = max(1, math.ceil(p / 100 * len(sorted_xs)))
    return sorted_xs[rank - 1]


def fmt(xs, digits=0, scale=1.0):
    """'mean ± half-width' of per-seed values; '(n=k)' when fewer than 5, '-' when none."""
    xs = [x * scale for x in xs if x is not None]
    if not xs:
        return "-"
    m, c = mean_ci(xs)
    text = f"{m:,.{digits}f}"
    if len(xs) > 1:
        text += f" ± {c:,.{digits}f}"
    return text + ("" if len(xs) >= 5 else f" (n={len(xs)})")
