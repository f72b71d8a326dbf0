#!/usr/bin/env bash
# `pip install ./python` into a fresh virtual environment, offline (Debian's setuptools and
# pandas through --system-site-packages), then reads a run the binary makes from outside the
# checkout, with no PYTHONPATH. Usage: pip_install.sh SOURCE_DIR ROCELAB_BINARY
set -euo pipefail
src=$1
cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset PYTHONPATH
/usr/bin/python3 -m venv --system-site-packages "$work/v"
# From a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
cp -r "$src/python" "$work/python"
"$work/v/bin/pip" install -q --no-build-isolation --no-deps --no-index "$work/python"
"$cli" run "$src/tests/scenarios/tiny.yaml" -q -o "$work/run" --set outputs.flows_csv=true >/dev/null
cd "$work"
"$work/v/bin/python" - "$work/run" "$src" <<'PY'
import os, sys
import rocelab
run, src = sys.argv[1], sys.argv[2]
where = os.path.dirname(rocelab.__file__)
assert "site-packages" in where and not where.startswith(os.path.realpath(src)), where
s = rocelab.read_summary(run)
flows = rocelab.read_flows(run)
assert len(flows) == s["flows_total"], (len(flows), s["flows_total"])
assert rocelab.unit("afct_us") == "us", rocelab.unit("afct_us")
print("installed at", where, "read", len(flows), "flows")
PY
