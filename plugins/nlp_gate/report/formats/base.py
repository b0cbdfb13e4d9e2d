"""The writer interface every report format implements (``ReportFormat``), and what a format
is given to write (``ReportInput``): the results, the kinds' tables, the plots drawn and the
verdict, all from results.json."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from nlp_gate.kinds.report_part import Table
from nlp_gate.report.verdict import ReleaseVerdict


@dataclass(frozen=True)
class ReportInput:
    results: dict[str, Any]
    tables: list[Table]
    plots: list[Path]  # PNG files under ``out_dir/plots``
    verdict: ReleaseVerdict
    out_dir: Path  # the report folder
    alluredir: Path | None = None  # where Allure's results go, when asked for

    @property
    def table_dir(self) -> Path:
        return self.out_dir / "tables"


class ReportFormat(Protocol):
    """One report format.  Registered in ``nlp_gate.report.formats.FORMATS``; each writes in
    registration order (a later format may attach an earlier one's files)."""

    # Glob patterns of its files under ``tables/`` (an earlier run's are removed first) and
    # the names of its files in the report folder (removed with an earlier run's reports).
    table_files: tuple[str, ...]
    report_files: tuple[str, ...]
    # Writes outside the report folder (the terminal names it after results.json).
    elsewhere: bool

    def write(self, report: ReportInput) -> dict[str, Path]:
        """Write its files; returns what it wrote, for the terminal (name -> path)."""
        ...
