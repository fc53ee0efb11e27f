"""`make test` (.ci/suites): every suite runs even after one fails, and the run ends with one
line per suite and the command that reruns a failed one; the exit status says a suite failed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SUITES = Path(__file__).resolve().parent.parent / ".ci" / "suites"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_failed_suite_does_not_stop_the_others_and_the_summary_says_which(tmp_path):
    makefile = tmp_path / "Makefile"
    ran = tmp_path / "ran"
    makefile.write_text(f"first:\n\t@echo first >> {ran}\n"
                        f"broken:\n\t@echo broken >> {ran}; exit 3\n"
                        f"last:\n\t@echo last >> {ran}\n")
    done = subprocess.run([str(SUITES), "first", "broken", "last"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "MAKE": f"make -f {makefile}"})
    assert done.returncode == 1
    assert ran.read_text().split() == ["first", "broken", "last"]
    summary = done.stdout[done.stdout.index("make test:"):].splitlines()
    assert [line.split()[:2] for line in summary[1:]] == [
        ["first", "passed"], ["broken", "FAILED"], ["last", "passed"]]
    assert summary[2].endswith("rerun it alone: make broken")
    passing = subprocess.run([str(SUITES), "first", "last"], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "MAKE": f"make -f {makefile}"})
    assert passing.returncode == 0 and "FAILED" not in passing.stdout
