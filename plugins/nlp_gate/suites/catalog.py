"""The CheckList release suites as a catalog of tests, for parametrization and for running.

Collection only needs each test's name, capability and type; decoding a whole suite takes
seconds, so that index is cached on disk, keyed by the tarball's sha256.  The decoded suites
(real ``checklist`` test objects) are loaded on first use, once per worker.
"""

from __future__ import annotations

import gc
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nlp_gate import suites as checklist_release

INDEX_VERSION = 1


@dataclass(frozen=True)
class TestInfo:
    suite: str
    name: str
    capability: str
    type: str  # mft | inv | dir
    n_cases: int
    description: str


class SuiteCatalog:
    def __init__(self, search_dirs: list[Path], cache_dir: Path, download: bool) -> None:
        self.search_dirs = search_dirs
        self.cache_dir = cache_dir
        self.download = download
        self._tarballs: dict[str, Path] = {}
        self._suites: dict[str, Any] = {}
        self._indexes: dict[str, list[TestInfo]] = {}

    def tarball(self, suite: str) -> Path:
        """The verified tarball; raises ``SuiteUnavailable`` with what to do when absent."""
        if suite not in self._tarballs:
            self._tarballs[suite] = checklist_release.locate(
                suite,
                self.search_dirs,
                cache_dir=self.cache_dir / "checklist-release",
                download=self.download,
                download_hint="run the gate with --nlp-download, or point --nlp-suite-dir at "
                "a folder holding it",
            )
        return self._tarballs[suite]

    def sha256(self, suite: str) -> str:
        return checklist_release.RELEASE_SUITES[suite].sha256

    def index(self, suite: str) -> list[TestInfo]:
        if suite not in self._indexes:
            self._indexes[suite] = self._load_index(suite)
        return self._indexes[suite]

    def _load_index(self, suite: str) -> list[TestInfo]:
        path = (
            self.cache_dir
            / "checklist-index"
            / f"{suite}-{self.sha256(suite)[:16]}-v{INDEX_VERSION}.json"
        )
        self.tarball(suite)  # verify presence and checksum even when the index is cached
        if path.exists():
            return [TestInfo(**t) for t in json.loads(path.read_text())]
        infos = [_info(suite, name, test) for name, test in self.suite(suite).tests.items()]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([asdict(i) for i in infos], indent=1))
        tmp.replace(path)  # atomic: concurrent xdist workers never read half a file
        return infos

    def suite(self, suite: str) -> Any:
        if suite not in self._suites:
            self._suites[suite] = checklist_release.load_suite(suite, self.tarball(suite))
            # A decoded suite is millions of container objects that live as long as the
            # worker; without freezing them every full garbage collection walks them all
            # again (4% of a model's pass in full collections before this).
            gc.freeze()
        return self._suites[suite]

    def test(self, suite: str, name: str) -> Any:
        return self.suite(suite).tests[name]


def _info(suite: str, name: str, test: Any) -> TestInfo:
    return TestInfo(
        suite=suite,
        name=name,
        capability=str(test.capability),
        type=type(test).__name__.lower(),
        n_cases=len(test.data),
        description=str(test.description or ""),
    )
