"""A path option's value in the space form (``--nlp-suite-dir DIR``) must not move pytest's
rootdir (issue 50, point 2).

pytest picks the rootdir (and with it the ini file, ``thresholds.yaml``, ``reports/``) from
the command line's path arguments before any plugin has registered its options: an existing
path after an ``--nlp-*`` option is one of them then, though the option takes it later.  A
value outside the repository moved the rootdir to a common ancestor (and the reports there).
The run now stops at once with one message that says to write ``--nlp-OPTION=VALUE``; the
``=`` form, and a value inside the rootdir, run as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.function_repo import function_repo, run_repo

MODEL = ["--nlp-model", "sentiment=mymod:predict"]
# Every --nlp-* option whose value is a path: (option, the path is a folder).
PATH_OPTIONS = [
    ("--nlp-suite-dir", True),
    ("--nlp-data-dir", True),
    ("--nlp-resources", True),
    ("--nlp-models-file", False),
    ("--nlp-thresholds", False),
    ("--nlp-results", False),
    ("--nlp-prediction-cache", False),
]


def _outside(tmp_path: Path, folder: bool) -> Path:
    """An existing path outside the repository (``tmp_path/repo``)."""
    path = tmp_path / "elsewhere" / ("values" if folder else "values.file")
    if folder:
        path.mkdir(parents=True)
    else:
        path.parent.mkdir(parents=True)
        path.write_text("")
    return path


@pytest.mark.parametrize(("option", "folder"), PATH_OPTIONS, ids=[o for o, _ in PATH_OPTIONS])
def test_a_path_value_in_the_space_form_stops_with_one_message(
    tmp_path: Path, option: str, folder: bool
) -> None:
    repo = function_repo(tmp_path)
    value = _outside(tmp_path, folder)
    run = run_repo(repo, "--co", *MODEL, option, str(value))
    out = run.out
    assert run.process.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    errors = [line for line in out.splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1, out[-3000:]
    assert f"write {option}={value}" in out, out[-3000:]
    assert "INTERNALERROR" not in out and "Traceback" not in out, out[-3000:]
    assert sorted(p.name for p in value.parent.parent.iterdir()) == ["elsewhere", "repo"]
    assert [p.name for p in value.parent.iterdir()] == [value.name]  # nothing written there


def test_the_equals_form_and_a_value_inside_the_rootdir_run(tmp_path: Path) -> None:
    repo = function_repo(tmp_path)
    value = _outside(tmp_path, folder=True)
    inside = repo / "suites"
    inside.mkdir()
    for args in ([f"--nlp-suite-dir={value}"], ["--nlp-suite-dir", str(inside)]):
        run = run_repo(repo, "--co", *MODEL, *args)
        assert run.process.returncode == pytest.ExitCode.OK, run.out[-3000:]
        assert f"rootdir: {repo}" in run.out, run.out[-3000:]
