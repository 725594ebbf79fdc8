"""The training example runs (where Debian's python3-torch is installed: scripts/install-deps.sh --torch)."""
import csv
import os
import subprocess
import sys

import pytest

from conftest import ROOT


def test_the_policy_gradient_example_trains_and_writes_its_curve(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "curve.csv"
    done = subprocess.run([sys.executable, str(ROOT / "python" / "examples" / "train_pg.py"), "--minutes", "0.01",
                           "--jobs", "4", "--machines", "2", "--eval-every", "1", "--csv", str(out)],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(out)))
    assert len(rows) >= 1 and float(rows[0]["train_jct"]) > 0 and float(rows[0]["greedy_jct"]) > 0
    assert float(rows[0]["fifo_jct"]) > 0 and float(rows[0]["heuristic_jct"]) > 0
