"""The behavioral test modules exist once, as real files (issue 59): ``tests_behavioral/``
holds them, no tracked file is a symbolic link (a ``core.symlinks=false`` clone would get
one-line path stubs), the wheel's build step copies every one of them into the package it
ships in, and a checkout collects the packaged suites under the package's paths, as an
installed package does."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

from fixtures.gate_run import REPO
from nlp_gate import packaged


def _tracked(*args: str) -> list[str]:
    return subprocess.run(
        ["git", "ls-files", "-s", *args], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.splitlines()


def test_no_tracked_file_is_a_symbolic_link() -> None:
    links = [line.split("\t")[1] for line in _tracked() if line.startswith("120000 ")]
    assert links == [], f"tracked symbolic links (mode 120000): {links}"


def test_the_wheel_ships_every_behavioral_module_once(tmp_path: Path) -> None:
    """setup.py's build step, run into a scratch build folder: each tracked module of
    tests_behavioral/ (its __init__.py aside) lands in exactly one package, as itself."""
    tracked = {
        Path(line.split("\t")[1]).name
        for line in _tracked(f"{packaged.SOURCE}/*.py")
        if "/" not in line.split("\t")[1].removeprefix(f"{packaged.SOURCE}/")
    }
    assert {"__init__.py", "test_released.py", "lexicons.py", "cases.py"} <= tracked
    setup = runpy.run_path(str(REPO / "setup.py"), run_name="setup_module")
    made = setup["copy_packaged_suites"](tmp_path)
    where = {f.name: f.parent.relative_to(tmp_path).as_posix() for f in made}
    assert len(where) == len(made)  # no module in two packages
    assert set(where) == tracked - {"__init__.py"}
    assert where.pop("test_released.py") == "nlp_gate/released"
    assert set(where.values()) == {"nlp_gate/native_tests"}
    for file in made:
        source = REPO / packaged.SOURCE / file.name
        assert file.read_bytes() == source.read_bytes()  # the module, not a path stub
        compile(file.read_text(), str(file), "exec")


def test_a_checkout_collects_the_packaged_suites_under_the_packages_paths(
    tmp_path: Path,
) -> None:
    """``--pyargs nlp_gate.native_tests`` in a checkout (this environment's editable
    install): the item ids an installed package gives, the modules imported by their
    package names from tests_behavioral/."""
    # A function model (a run without one needs the repository's thresholds.yaml).
    (tmp_path / "mymod.py").write_text(
        "def predict(texts):\n    return [[0.5, 0.5]] * len(texts)\n"
    )
    probe = tmp_path / "conftest.py"
    probe.write_text(
        "def pytest_collection_finish(session):\n"
        "    for item in session.items:\n"
        "        print('MODULE', item.path, item.module.__name__, item.module.__file__)\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "-s"]
        + ["--nlp-model", "sentiment=mymod:predict"]
        + ["--pyargs", "nlp_gate.native_tests", "-k", "test_vocabulary"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    folder = REPO / "plugins" / "nlp_gate" / packaged.NATIVE
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    # Outside the rootdir, an id starts at the collected folder, as from an installed package.
    assert ids and all(i.startswith("test_vocabulary.py::") for i in ids), ids[:3]
    seen = {tuple(line.split()[1:]) for line in run.stdout.splitlines() if line[:7] == "MODULE "}
    assert seen == {
        (
            str(folder / "test_vocabulary.py"),  # the item's path: the package's
            "nlp_gate.native_tests.test_vocabulary",
            str(REPO / packaged.SOURCE / "test_vocabulary.py"),  # the module's one copy
        )
    }
