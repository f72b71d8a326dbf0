"""The rocelab Python package on real output: a run directory and a sweep directory made by
the rocelab binary (ROCELAB_CLI), read back as dicts and DataFrames. Run by ctest
(Python.Package); by hand: ROCELAB_CLI=build/release/rocelab PYTHONPATH=python
/usr/bin/python3 -m unittest discover -s python/tests"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import rocelab
from rocelab import schema

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.environ.get("ROCELAB_CLI", os.path.join(ROOT, "build", "release", "rocelab"))


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocelab_pytest_")
        cls.run_dir = os.path.join(cls.tmp, "run")
        subprocess.run([CLI, "run", os.path.join(ROOT, "tests", "scenarios", "tiny.yaml"), "-q",
                        "-o", cls.run_dir, "--set", "outputs.flows_csv=true"], check=True,
                       stdout=subprocess.DEVNULL)
        cls.sweep = os.path.join(cls.tmp, "sweep")
        subprocess.run([CLI, "sweep", os.path.join(ROOT, "tests", "sweeps", "tiny_sweep.yaml"),
                        "-q", "-o", cls.sweep], check=True, stdout=subprocess.DEVNULL)

        cls.coll_dir = os.path.join(cls.tmp, "collectives")
        scenario = os.path.join(cls.tmp, "collectives.yaml")
        with open(scenario, "w") as f:
            f.write("topology: {type: rail_optimized, servers: 2, nics_per_server: 2, spines: 2}\n"
                    "workloads:\n"
                    "  - {name: ar, type: collective, ranks: all, size: 40KB, iterations: 2}\n")
        subprocess.run([CLI, "run", scenario, "-q", "-o", cls.coll_dir], check=True,
                       stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_flows_are_typed_and_consistent_with_the_summary(self):
        s = rocelab.read_summary(self.run_dir)
        flows = rocelab.read_flows(self.run_dir)
        self.assertEqual(len(flows), s["flows_total"])
        done = flows.dropna(subset=["fct_ns"])
        self.assertEqual(len(done), s["flows_completed"])
        # fct = finish - start to the picosecond (three decimals), and the mean is afct_us.
        self.assertTrue(((done.finish_ns - done.start_ns - done.fct_ns).abs() < 1e-6).all())
        self.assertAlmostEqual(done.fct_ns.mean() / 1e3, s["afct_us"], places=6)
        self.assertEqual(str(flows["size_bytes"].dtype), "int64")
        self.assertEqual(str(flows["hol_blocked"].dtype), "bool")
        self.assertEqual(int(flows.hol_blocked.sum()), s["hol_blocked_flows"])

    def test_collectives_are_typed_and_consistent_with_the_summary(self):
        s = rocelab.read_summary(self.coll_dir)["collectives"]
        c = rocelab.read_collectives(self.coll_dir)
        self.assertEqual(len(c), s["count"])
        self.assertEqual(list(c.iteration), [0, 1])
        self.assertAlmostEqual(c.cct_us.mean(), s["mean_cct_us"], places=3)
        self.assertTrue(((c.end_ns - c.start_ns) / 1e3 - c.cct_us).abs().max() < 1e-3)
        self.assertEqual(str(c["flows"].dtype), "int64")

    def test_percentiles_of_the_flows_are_the_summarys(self):
        s = rocelab.read_summary(self.run_dir)
        fcts = sorted(rocelab.read_flows(self.run_dir).fct_ns.dropna() / 1e3)
        self.assertAlmostEqual(rocelab.percentile(fcts, 99), s["p99_fct_us"], places=6)

    def test_runs_of_a_sweep_carry_their_point_scheme_and_seed(self):
        runs = rocelab.read_runs(self.sweep)
        table = rocelab.read_sweep(self.sweep, "runs")
        self.assertEqual(len(runs), len(table))
        self.assertEqual(sorted(runs.seed_dir), sorted(table.seed))
        for _, r in runs.iterrows():
            self.assertEqual(r["seed"], r["seed_dir"])  # summary.json's seed is the directory's
        # sweep.csv's mean over seeds is the mean of the runs' summaries.
        sweep = rocelab.read_sweep(self.sweep)
        for _, row in sweep.iterrows():
            mine = runs[(runs.point == row["point"]) & (runs.scheme_dir == row["scheme"])]
            self.assertEqual(len(mine), row["runs"])
            m, c = rocelab.mean_ci(list(mine.afct_us))
            self.assertAlmostEqual(m, row["afct_us.mean"], delta=1e-5 * m)
        self.assertEqual(set(rocelab.load_runs(self.tmp, "sweep")), set(sweep.point))

    def test_every_summary_key_has_a_unit(self):
        flat = rocelab.flatten(rocelab.read_summary(self.run_dir))
        for key in flat:
            self.assertIsNotNone(schema.find(key), key)
        self.assertEqual(rocelab.unit("by_size.small.p99_fct_us"), "us")
        self.assertEqual(rocelab.unit("afct_us.mean", "sweep.csv"), "us")
        self.assertEqual(rocelab.unit("by_size.large.p99_slowdown.ci95", "sweep.csv"), "1")
        self.assertEqual(schema.find("scheme", "sweep.csv")["key"], "scheme")
        self.assertEqual(schema.find("workloads.0.load", "sweep.csv")["key"], "<grid key>")
        self.assertEqual(rocelab.unit("fct_ns", "flows.csv"), "ns")
        with self.assertRaises(KeyError):
            rocelab.unit("no_such_key")

    def test_the_binary_carries_this_schema(self):
        out = subprocess.run([CLI, "schema"], check=True, capture_output=True, text=True).stdout
        self.assertEqual(json.loads(out), schema.SCHEMA)


class PlotAxes(unittest.TestCase):
    """Values that span decades go on a log axis: a linear one hides all but the largest."""

    class Axis:
        def __init__(self):
            self.scale = "linear"

        def set_yscale(self, scale, **_):
            self.scale = scale

    def test_a_spread_of_a_decade_or_more_is_drawn_on_a_log_axis(self):
        from rocelab.plot import log_if_spread
        ax = self.Axis()
        self.assertTrue(log_if_spread(ax, [1.2, 3.0, 4500.0, float("nan"), None]))
        self.assertEqual(ax.scale, "log")
        ax = self.Axis()
        self.assertFalse(log_if_spread(ax, [1.2, 3.0, 11.9, 0.0]))
        self.assertEqual(ax.scale, "linear")
        self.assertFalse(log_if_spread(self.Axis(), []))


if __name__ == "__main__":
    unittest.main()
