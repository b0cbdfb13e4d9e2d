"""The power report on a sample of the defect zoo: scripts/power.py builds the defect zoo
(cached), runs the comparison items of a planted defect and of a clean re-seed against the
clean reference, and writes reports/power.json and reports/tables/power.md; the planted
single-name defect is flagged on its own capability (NER)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import REPO

pytestmark = pytest.mark.slow


def test_power_report_flags_the_planted_name_defect_and_counts_the_null(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "power.py"), "--candidates", "name-sensitive",
         "null-1", "--work", str(tmp_path / "work"), "--out", str(tmp_path / "reports")],
        cwd=REPO, text=True, capture_output=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    power = json.loads((tmp_path / "reports" / "power.json").read_text())
    [defect] = power["defects"]
    assert {"name", "capability", "items", "flagged_items_own_capability",
            "flagged_items_other"} <= set(defect)
    assert (defect["name"], defect["capability"]) == ("name-sensitive", "NER")
    assert defect["flagged_items_own_capability"] >= 1, defect
    assert defect["items"] >= defect["flagged_items_own_capability"] + defect["flagged_items_other"]
    null = power["null"]
    assert null["items"] > 0
    assert null["false_alarm_rate"] == pytest.approx(null["flagged"] / null["items"])
    table = (tmp_path / "reports" / "tables" / "power.md").read_text()
    assert "| name-sensitive | NER | NER **own** |" in table
    assert "| null-1 | clean |" in table
