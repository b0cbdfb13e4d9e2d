"""Report formats: the one place where they register.

Each format implements ``nlp_gate.report.formats.base.ReportFormat`` in a module of its own
and writes the kinds' tables (and the plots, the verdict) its way; ``write_reports`` runs
them in this order.  Adding a format is one module and one line here.
"""

from __future__ import annotations

from nlp_gate.report.formats.allure import Allure
from nlp_gate.report.formats.base import ReportFormat, ReportInput
from nlp_gate.report.formats.csv_tables import Csv
from nlp_gate.report.formats.html_pages import Html
from nlp_gate.report.formats.markdown import Markdown

__all__ = ["FORMATS", "ReportFormat", "ReportInput"]

FORMATS: tuple[ReportFormat, ...] = (
    Markdown(),
    Csv(),
    Html(),
    Allure(),  # after Markdown: it attaches the .md tables
)
