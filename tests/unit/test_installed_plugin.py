"""The package as a user installs it: the plugin comes from its ``pytest11`` entry point, and
a repository holding only a models file, ``thresholds.yaml`` and ``pytest.ini`` runs the
released items, with every default (gates, reports, caches) under *its* rootdir.

Its fast tests; the slow ones, and the story, in ``tests/integration/test_installed_plugin.py``."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

from nlp_gate.config.profiles import DEFAULT_MODELS_FILE


def _pytest(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_plugin_is_registered_through_its_entry_point() -> None:
    entry = [e for e in metadata.entry_points(group="pytest11") if e.name == "nlp_gate"]
    assert [e.value for e in entry] == ["nlp_gate.pytest_plugin.plugin"]
    dist = metadata.distribution("nlp-gate")
    files = {str(f) for f in dist.files or ()}
    assert not any(f.startswith(("plugins/", "fixtures/")) for f in files), (
        "the wheel ships only the nlp_gate package, no top-level plugins/fixtures"
    )


def test_help_and_markers_from_an_empty_directory_and_one_that_asks(tmp_path: Path) -> None:
    helptext = _pytest(tmp_path, "--help")
    assert helptext.returncode == 0, helptext.stderr
    assert "behavioral release gate for NLP classifiers:" in helptext.stdout  # the group
    for option in (
        "--nlp-profile",
        "--nlp-thresholds",
        "--nlp-results",
        "--nlp-baseline",
        "--nlp-attack-examples",
        "--nlp-suite-dir",
        "--nlp-data-dir",
    ):
        assert option in helptext.stdout
    assert "nlp_gate_release_suites" in helptext.stdout  # the ini key
    assert "nlp_gate_paths" in helptext.stdout
    # A directory that asks nothing of nlp-gate: none of its markers (inert until asked).
    inert = _pytest(tmp_path, "--markers")
    assert inert.returncode == 0, inert.stderr
    assert "nlp_fairness" not in inert.stdout and "@pytest.mark.fairness:" not in inert.stdout
    (tmp_path / "pytest.ini").write_text("[pytest]\nnlp_gate_paths = tests_behavioral\n")
    markers = _pytest(tmp_path, "--markers")
    assert markers.returncode == 0, markers.stderr
    for marker in (
        "fairness",
        "robustness",
        "negation",
        "logic",
        "checklist",
        "adversarial",
        "accuracy",
        "regression",
    ):
        assert f"@pytest.mark.{marker}:" in markers.stdout
        assert f"@pytest.mark.nlp_{marker}:" in markers.stdout


def test_the_packaged_models_file_ships_in_the_package() -> None:
    assert DEFAULT_MODELS_FILE.is_file()
    assert DEFAULT_MODELS_FILE.parent.name == "config"
    assert "nlp_gate" in DEFAULT_MODELS_FILE.parts
