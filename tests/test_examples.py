"""Every example under examples/ (a spec <name>.hsr and its script <name>.py)
runs as its own process, through Triton's interpreter, and its script's own
check against the float64 reference passes: exit code 0 and a last line "OK".

Not marked gpu, so CI (.ci/run, plain ``pytest -q``) runs it. Each script is
sized to take a few seconds on a CPU, the spec's compilation included (each
test starts from an empty cache).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NAMES = ["hausdorff", "kmeans_assign", "weighted_maxsim", "cosine_maxsim", "soft_nearest", "chamfer_l1",
         "masked_mean_maxsim"]


def test_every_example_spec_has_a_script_and_a_test():
    specs = sorted(p.stem for p in EXAMPLES.glob("*.hsr"))
    assert specs == sorted(NAMES)
    assert all((EXAMPLES / f"{name}.py").is_file() for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_example_runs_and_matches_the_reference(name, tmp_path):
    env = dict(os.environ, TRITON_INTERPRET="1", HSR_CACHE_DIR=str(tmp_path / "hsr-cache"))
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("OK"), done.stdout


def test_plaid_search_example(tmp_path):
    """examples/plaid_search.py: an index built with hsr's k-means assignment, searched as stored; its own
    checks (recall@10 against exact MaxSim, the scan's scores against float64 decompression, the index's
    size) pass. About 30 s through the interpreter."""
    env = dict(os.environ, TRITON_INTERPRET="1", HSR_CACHE_DIR=str(tmp_path / "hsr-cache"))
    done = subprocess.run([sys.executable, str(EXAMPLES / "plaid_search.py")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("OK"), done.stdout
