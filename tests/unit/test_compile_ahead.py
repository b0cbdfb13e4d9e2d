"""scripts/compile_ahead.py: the set-up compiles the folders the main job imports, no others.

Run as the set-up runs it (a subprocess of this interpreter), on a stand-in site-packages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "compile_ahead.py"
TAG = sys.implementation.cache_tag


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONDONTWRITEBYTECODE": ""},
    )
    return done.stdout


def site_packages(tmp_path: Path) -> Path:
    purelib = tmp_path / "site-packages"
    for name, text in {
        "top.py": "X = 1\n",
        "broken.py": "print 'python 2'\n",  # shipped by some packages; skipped, as pip does
        "imported/__init__.py": "",
        "imported/sibling.py": "Y = 2\n",
        "imported/deeper/__init__.py": "",
        "never/__init__.py": "",
        "never/module.py": "Z = 3\n",
    }.items():
        path = purelib / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return purelib


def compiled(purelib: Path) -> set[str]:
    return {
        pyc.parent.parent.joinpath(pyc.name.split(".")[0] + ".py").relative_to(purelib).as_posix()
        for pyc in purelib.rglob(f"__pycache__/*.{TAG}.pyc")
    }


def test_only_the_listed_folders_modules_are_compiled_their_subfolders_not(tmp_path: Path) -> None:
    purelib = site_packages(tmp_path)
    listing = tmp_path / "list.txt"
    listing.write_text("# a comment\n.\nimported\nnot-installed-here\n")

    out = run("compile", str(listing), "--purelib", str(purelib))

    assert compiled(purelib) == {"top.py", "imported/__init__.py", "imported/sibling.py"}
    assert "3 of 4 modules compiled or current" in out  # broken.py counted, not compiled


def test_record_lists_the_folders_holding_bytecode_and_compile_reads_it_back(
    tmp_path: Path,
) -> None:
    purelib = site_packages(tmp_path)
    # What a job's imports leave: bytecode of the root's and of one package's modules.
    first = tmp_path / "first.txt"
    first.write_text(".\nimported/deeper\n")
    run("compile", str(first), "--purelib", str(purelib))
    listing = tmp_path / "recorded.txt"

    run("record", str(listing), "--purelib", str(purelib))

    folders = [line for line in listing.read_text().splitlines() if not line.startswith("#")]
    assert folders == [".", "imported/deeper"]
    assert "2 of 3 modules" in run("compile", str(listing), "--purelib", str(purelib))


def test_the_committed_list_names_what_the_job_runs_and_not_every_model_family() -> None:
    folders = set((ROOT / "scripts" / "compile-ahead.txt").read_text().split())
    # the gate's own stack, the zoo's two families, the libraries its kinds drive
    assert {
        "torch",
        "transformers",
        "transformers/models/auto",
        "transformers/models/bert",
        "transformers/models/albert",
        "checklist",
        "textattack",
        "datasets",
        "execnet",
    } <= folders
    # transformers ships hundreds of model families; the job imports a dozen
    families = {f for f in folders if f.startswith("transformers/models/")}
    assert 3 <= len(families) < 40
