"""The README's promises: CI runs its test command, and its main job works."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    ci_lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    readme = (ROOT / "README.md").read_text()
    assert ci_lines and all(line in readme for line in ci_lines)


def test_quickstart_runs_and_checks_against_the_reference(tmp_path):
    env = dict(os.environ, TRITON_INTERPRET="1", HSR_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("OK")
