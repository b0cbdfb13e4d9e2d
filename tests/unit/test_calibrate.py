"""``nlp-gate-calibrate`` (``nlp_gate/calibrate``): its rules, the tiny profile's gates coming
out of it unchanged, and a thresholds file edited in place without losing anything else.

The tiny profile's inputs: the full run the rules name (``-m "checklist or native or
regression"``, tiny profile, seed 1, unsampled; 5.5 min on 2 cores), recorded as written in
docs/measurements/data/.  The end-to-end test with a model outside the zoo (a baseline run,
its gates, a planted defect) is tests/integration/test_calibrate.py.  About 2 s in all.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from nlp_gate.calibrate import Margins, calibrate, profile_document, write_profile
from nlp_gate.calibrate.__main__ import main
from nlp_gate.calibrate.yaml_text import YamlTextError, set_values

REPO = Path(__file__).resolve().parents[2]
TINY_RUN = REPO / "docs" / "measurements" / "data" / "tiny-calibration-2026-11-29.results.json.gz"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / "results.json"
    path.write_bytes(gzip.decompress(TINY_RUN.read_bytes()))
    return path


def test_the_recorded_run_is_the_one_the_tiny_gates_name(tiny_run: Path) -> None:
    results = json.loads(tiny_run.read_text())
    assert results["run"]["profile"] == "tiny"
    assert (results["run"]["sample"], results["run"]["seed"]) == (None, 1)
    assert not results["interrupted"] and not results.get("errors")
    assert len(results["records"]) == 772 and len(results["comparisons"]) == 386


@pytest.mark.parametrize("zoo_moved", [False, True], ids=["zoo-in-place", "zoo-gone"])
def test_the_tiny_gates_come_out_of_the_command_unchanged(
    tiny_run: Path, tmp_path: Path, zoo_moved: bool
) -> None:
    """In place: thresholds.yaml byte for byte (comments, other profiles and the hand-set
    sections included); printed: the tiny gates' values.  ``zoo-gone``: the run's zoo folder
    no longer exists (CI's checkout is elsewhere), calibrated_on comes from the embedded zoo."""
    results = tiny_run
    if zoo_moved:
        run = json.loads(tiny_run.read_text())
        for model in run["run"]["models"]:
            model["location"] = str(tmp_path / "gone" / model["dataset"] / model["model"])
        results = tmp_path / "results.json"
        results.write_text(json.dumps(run))
    thresholds = tmp_path / "thresholds.yaml"
    shutil.copy(REPO / "thresholds.yaml", thresholds)
    assert main([str(results), "--thresholds", str(thresholds)]) == 0
    assert thresholds.read_text() == (REPO / "thresholds.yaml").read_text()

    tiny = yaml.safe_load((REPO / "thresholds.yaml").read_text())["profiles"]["tiny"]
    printed = subprocess.run(
        [sys.executable, "-m", "nlp_gate.calibrate", str(results)],
        capture_output=True,
        text=True,
        check=True,
    )
    gates = yaml.safe_load(printed.stdout)["profiles"]["tiny"]
    assert gates["checklist"]["tests"] == tiny["checklist"]["tests"]
    assert gates["comparison"]["tolerance"] == {
        "capabilities": tiny["comparison"]["tolerance"]["capabilities"]
    }
    assert gates["calibrated_on"] == tiny["calibrated_on"]
    assert "gates at 100, all released suites: 9 of 91 (10%)" in printed.stderr
    assert "Coref 96.2" in printed.stderr  # the measured maxima thresholds.yaml's comment cites


def test_other_margins_move_every_gate(tiny_run: Path) -> None:
    results = json.loads(tiny_run.read_text())
    tight = calibrate(results, margins=Margins(checklist=0, comparison=0))
    usual = calibrate(results)
    pairs = [
        (tight.checklist[s][t], usual.checklist[s][t])
        for s in usual.checklist
        for t in usual.checklist[s]
    ]
    assert all(a <= b for a, b in pairs) and any(a < b for a, b in pairs)
    assert tight.comparison and usual.comparison
    assert tight.comparison.tolerances != usual.comparison.tolerances


def test_the_console_script_is_installed_beside_python() -> None:
    script = shutil.which("nlp-gate-calibrate", path=str(Path(sys.executable).parent))
    assert script, "pyproject [project.scripts] nlp-gate-calibrate (run scripts/setup.sh)"
    helped = subprocess.run([script, "--help"], capture_output=True, text=True, check=True)
    assert helped.stdout.startswith("usage: nlp-gate-calibrate")
    assert "--thresholds PATH" in helped.stdout and "--reseed RESULTS" in helped.stdout


# -- the rules on small runs ----------------------------------------------------------------
def _record(test: str, rate: float | None, model: str = "m", suite: str = "sentiment") -> Any:
    return {"suite": suite, "test": test, "fail_rate": rate, "model": model, "dataset": "d"}


def _run(**kinds: Any) -> dict[str, Any]:
    run = {"profile": "cli", "sample": None, "seed": 1, "models": [], "shard": None}
    return {"schema": 1, "interrupted": False, "refused": None, "run": run, **kinds}


def test_checklist_gate_is_the_worst_model_or_reseed_plus_margin_rounded_up() -> None:
    baseline = _run(records=[_record("a", 12.5), _record("a", 30.0, "n"), _record("b", None)])
    reseed = _run(records=[_record("a", 33.3), _record("c", 97.0)])
    assert calibrate(baseline).checklist == {"sentiment": {"a": 35.0, "b": 5.0}}
    assert calibrate(baseline, [reseed]).checklist == {
        "sentiment": {"a": 39.0, "b": 5.0, "c": 100.0}
    }


def test_comparison_tolerance_counts_only_significant_excess() -> None:
    def comparison(capability: str, delta: float, p: float | None) -> dict[str, Any]:
        return {
            "capability": capability,
            "delta": delta,
            "p_adjusted": p,
            "alpha": 0.05,
            "baseline": "old",
            "candidate": "new",
        }

    run = _run(
        comparisons=[
            comparison("Negation", 21.0, 0.01),
            comparison("Negation", 40.0, 0.2),  # not significant
            comparison("Fairness", -30.0, 0.001),  # better
            comparison("NER", 12.0, None),  # skipped
        ]
    )
    result = calibrate(run).comparison
    assert result is not None
    assert (result.baseline, result.candidate, result.alpha) == ("old", "new", 0.05)
    assert result.tolerances == {"Negation": 35} and result.measured == {"Negation": 21.0}


def test_accuracy_floor_is_the_lowest_accuracy_minus_margin_rounded_down() -> None:
    run = _run(
        accuracy=[
            {"dataset": "sst2", "model": "a", "accuracy": 91.7},
            {"dataset": "sst2", "model": "b", "accuracy": 88.4},
            {"dataset": "rte", "model": "a", "accuracy": 3.0},
        ]
    )
    assert calibrate(run).accuracy == {"sst2": 83, "rte": 0}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"refused": "bad option"}, "refused at start-up (bad option)"),
        ({"interrupted": True}, "the run was interrupted"),
        ({"records": []}, "no CheckList, comparison or accuracy record"),
        ({"schema": 2}, "not a results.json of schema 1"),
    ],
)
def test_a_run_that_cannot_be_calibrated_on_is_refused_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], message: str
) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({**_run(records=[_record("a", 1.0)]), **change}))
    thresholds = tmp_path / "thresholds.yaml"
    assert main([str(path), "--thresholds", str(thresholds)]) == 4
    assert message in capsys.readouterr().err
    assert not thresholds.exists()


def test_a_shard_is_refused_and_a_sampled_run_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard, sampled = _run(records=[_record("a", 1.0)]), _run(records=[_record("a", 1.0)])
    shard["run"]["shard"] = "1/2"
    sampled["run"]["sample"] = 20
    (tmp_path / "shard.json").write_text(json.dumps(shard))
    (tmp_path / "sampled.json").write_text(json.dumps(sampled))
    assert main([str(tmp_path / "shard.json")]) == 4
    assert "merge the shards first" in capsys.readouterr().err
    assert main([str(tmp_path / "sampled.json")]) == 0
    out, err = capsys.readouterr()
    assert yaml.safe_load(out) == {
        "profiles": {"cli": {"checklist": {"tests": {"sentiment": {"a": 6.0}}}}}
    }
    assert "a sampled run (--nlp-sample 20, --nlp-seed 1)" in err


# -- writing into an existing file ------------------------------------------------------------
EXISTING = """\
# Our gates.
profiles:
  paper:
    checklist: {default: 30}
  cli:
    # what we promised
    checklist:
      default: 20
      tests:
        sentiment:
          old test: 3.0
        # kept: not in the baseline run
        native_other: {x: 1}
    comparison:
      tolerance: 2  # one number
    attacks:
      default: {max_attack_success_rate: 90}
# end
"""


def test_write_profile_sets_only_what_it_measured_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "thresholds.yaml"
    path.write_text(EXISTING)
    run = _run(
        records=[_record("a", 10.0)],
        comparisons=[
            {
                "capability": "NER",
                "delta": 7.0,
                "p_adjusted": 0.001,
                "alpha": 0.1,
                "baseline": "b",
                "candidate": "c",
            }
        ],
        accuracy=[{"dataset": "sentiment", "model": "b", "accuracy": 90.0}],
    )
    write_profile(calibrate(run), path)
    text = path.read_text()
    for kept in ("# Our gates.", "# what we promised", "# kept: not in the baseline run", "# end"):
        assert kept in text
    assert "      tolerance:  # one number\n        default: 2\n" in text
    profiles = yaml.safe_load(text)["profiles"]
    assert profiles["paper"] == {"checklist": {"default": 30}}
    assert profiles["cli"] == {
        "checklist": {
            "default": 20,
            "tests": {"sentiment": {"a": 15.0}, "native_other": {"x": 1}},
        },
        "comparison": {
            "tolerance": {"default": 2, "capabilities": {"NER": 20}},
            "baseline": "b",
            "candidate": "c",
            "alpha": 0.1,
        },
        "attacks": {"default": {"max_attack_success_rate": 90}},
        "accuracy": {"datasets": {"sentiment": 85}},
    }
    write_profile(calibrate(run), path)  # again: nothing more to change
    assert path.read_text() == text


def test_a_new_file_and_a_new_profile_are_written_whole(tmp_path: Path) -> None:
    run = _run(records=[_record("a", 10.0)])
    path = tmp_path / "thresholds.yaml"
    write_profile(calibrate(run), path)
    assert path.read_text() == profile_document(calibrate(run))
    write_profile(calibrate(run, profile="team"), path)
    assert yaml.safe_load(path.read_text())["profiles"] == {
        "cli": {"checklist": {"tests": {"sentiment": {"a": 15.0}}}},
        "team": {"checklist": {"tests": {"sentiment": {"a": 15.0}}}},
    }


def test_set_values_keeps_layout_and_refuses_a_path_through_a_scalar() -> None:
    text = "a:\n  b: {x: 1, y: 2}  # flow\n  c:\n  d: 5\n"
    assert set_values(text, [(("a", "b", "z"), 3), (("a", "c", "e"), 4)]) == (
        "a:\n  b: {x: 1, y: 2, z: 3}  # flow\n  c:\n    e: 4\n  d: 5\n"
    )
    with pytest.raises(YamlTextError, match="a.d is not a mapping"):
        set_values(text, [(("a", "d", "e"), 1)])
    nested = set_values("p:\n  c: {default: 30}\n", [(("p", "c", "tests", "s"), {"t": 1.0})])
    assert nested == "p:\n  c:\n    default: 30\n    tests:\n      s:\n        t: 1.0\n"


def test_a_thresholds_file_that_is_not_yaml_is_named_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, thresholds = tmp_path / "results.json", tmp_path / "thresholds.yaml"
    results.write_text(json.dumps(_run(records=[_record("a", 1.0)])))
    thresholds.write_text("profiles:\n  cli: [\n")
    assert main([str(results), "--thresholds", str(thresholds)]) == 4
    assert f"ERROR: {thresholds}:3:1: not valid YAML" in capsys.readouterr().err
    assert thresholds.read_text() == "profiles:\n  cli: [\n"
