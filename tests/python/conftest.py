"""Shared fixtures: the source tree, the weft binary the module was built with, a run of it."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TPCH = str(ROOT / "examples" / "tpch-small.json")


@pytest.fixture(scope="session")
def weft_bin():
    path = os.environ.get("WEFT_BIN", str(ROOT / "build" / "src" / "weft"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no weft binary at {path}: build first, or set WEFT_BIN")
    return path


@pytest.fixture(scope="session")
def run_cli(weft_bin):
    def run(*args):
        return subprocess.run([weft_bin, *args], capture_output=True, text=True, cwd=ROOT)
    return run
