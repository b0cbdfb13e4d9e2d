"""Reviewer tables (nlp_gate.report): the seed's row order, bold-lower, missing cells, custom
model names, and Markdown / CSV / HTML saying the same thing.  Integration tests run the real
gate: on a user's models file with and without xdist (tables and plots byte for byte equal),
and on the default profile (every test a row, 6 and 4 fail-rate columns).

Its fast tests; the slow ones, and the story, in ``tests/integration/test_report_tables.py``."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fixtures.report_data import (
    ALL_FILTERED,
    EXTRA_TESTS,
    fabricated_results,
    parse_markdown,
)
from fixtures.report_data import NOT_RUN as NOT_RUN_KEY
from nlp_gate.kinds.checklist.layout import SEED_ROWS
from nlp_gate.kinds.report_part import NOT_RUN, NOTHING_TESTED, Table
from nlp_gate.report import write_reports
from nlp_gate.report.formats.allure import CATEGORIES, environment
from nlp_gate.report.formats.csv_tables import to_csv
from nlp_gate.report.formats.html_pages import to_html
from nlp_gate.report.formats.markdown import to_markdown
from nlp_gate.report.tables import build_tables
from nlp_gate.report.verdict import verdict
from nlp_gate.suites import SUITE_NAMES, default_search_dirs
from nlp_gate.suites.catalog import SuiteCatalog

REPO_ROOT = Path(__file__).resolve().parents[2]

TEST_COLUMN = 1  # capability, test, [seed_label (CSV only)], then dataset x model


def tables_by_name(results: dict) -> dict[str, Table]:
    return {t.name: t for t in build_tables(results)}


def row_tests(table: Table) -> list[str]:
    return [row[TEST_COLUMN].text for row in table.rows]


# -- parsers for the three formats, back to a grid of (text, bold) ---------------------------


class _HtmlGrid(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, bool]]] = []
        self._cell: list[str] | None = None
        self._bold = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell, self._bold = [], False
        elif tag == "b" and self._cell is not None:
            self._bold = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.rows[-1].append(("".join(self._cell), self._bold))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parse_html(text: str) -> list[list[tuple[str, bool]]]:
    grid = _HtmlGrid()
    grid.feed(text)
    return [row for row in grid.rows if row]  # header rows hold <th> only


# -- row order ---------------------------------------------------------------------------
@pytest.mark.parametrize("suite, name", [("sentiment", "table2"), ("qqp", "table3")])
def test_rows_follow_the_seed_then_omitted_tests_marked(suite: str, name: str) -> None:
    table = tables_by_name(fabricated_results())[name]
    seed_tests = [test for _, _, test in SEED_ROWS[suite]]
    extra = [test for _, test in EXTRA_TESTS[suite]]
    assert row_tests(table) == seed_tests + extra
    marked = [row[TEST_COLUMN].text for row in table.rows if row[TEST_COLUMN].mark == " †"]
    assert marked == extra
    assert f"| {extra[-1]} † |" in to_markdown(table)
    assert any("not in the seed report" in note for note in table.notes)


def test_seed_order_wins_over_suite_order() -> None:
    # The fabricated suite order puts Temporal before Fairness; the seed prints Fairness first.
    capabilities = [row[0].text for row in tables_by_name(fabricated_results())["table2"].rows]
    assert capabilities.index("Fairness") < capabilities.index("Temporal")


def test_only_tests_that_ran_are_rows() -> None:
    results = fabricated_results()
    results["records"] = [r for r in results["records"] if r["capability"] == "Fairness"]
    table = tables_by_name(results)["table2"]
    assert row_tests(table) == [
        "protected: race",
        "protected: sexual",
        "protected: religion",
        "protected: nationality",
    ]
    assert not any("not in the seed" in note for note in table.notes)


def test_every_seed_label_names_a_release_suite_test(tmp_path: Path) -> None:
    # Each released suite's index of tests, decoded as a run decodes it (about a second for
    # both) into a folder of its own: never an index an earlier run left in .cache.
    catalog = SuiteCatalog(default_search_dirs(REPO_ROOT), tmp_path, download=False)
    assert set(SEED_ROWS) <= set(SUITE_NAMES)
    for suite, rows in SEED_ROWS.items():
        capability = {t.name: t.capability for t in catalog.index(suite)}
        for cap, _, test in rows:
            assert capability.get(test) == cap, (suite, test)


# -- columns, bold, missing --------------------------------------------------------------
def test_columns_are_dataset_by_model_in_profile_order() -> None:
    tables = tables_by_name(fabricated_results())
    assert [c.key for c in tables["table2"].columns if c.group] == [
        "rotten_tomatoes/bert",
        "rotten_tomatoes/albert",
        "yelp_polarity/bert",
        "yelp_polarity/albert",
        "sst2/bert",
        "sst2/albert",
    ]
    assert [c.key for c in tables["table3"].columns if c.group] == [
        "qqp/bert",
        "qqp/albert",
        "mrpc/bert",
        "mrpc/albert",
    ]


def row_cells(table: Table, test: str) -> list[tuple[str, bool]]:
    row = next(r for r in table.rows if r[TEST_COLUMN].text == test)
    return [(c.text, c.bold) for c, col in zip(row, table.columns) if col.group]


def test_lower_of_each_pair_is_bold_ties_and_lone_values_are_not() -> None:
    fixed = {
        ("sentiment", "protected: race", "rotten_tomatoes", "bert"): 31.5,
        ("sentiment", "protected: race", "rotten_tomatoes", "albert"): 60.2,
        ("sentiment", "protected: race", "yelp_polarity", "bert"): 55.8,
        ("sentiment", "protected: race", "yelp_polarity", "albert"): 20.7,
        ("sentiment", "protected: race", "sst2", "bert"): 100.0,
        ("sentiment", "protected: race", "sst2", "albert"): 100.0,
        # equal at the shown precision: neither is bold
        ("sentiment", "typos", "rotten_tomatoes", "bert"): 3.84,
        ("sentiment", "typos", "rotten_tomatoes", "albert"): 3.76,
        ("sentiment", "typos", "sst2", "bert"): 7.4,  # sst2/albert did not run
    }
    table = tables_by_name(fabricated_results(fixed=fixed))["table2"]
    assert row_cells(table, "protected: race") == [
        ("31.5", True),
        ("60.2", False),
        ("55.8", False),
        ("20.7", True),
        ("100.0", False),
        ("100.0", False),
    ]
    typos = row_cells(table, "typos")
    assert typos[:2] == [("3.8", False), ("3.8", False)]
    assert typos[4:] == [("7.4", False), (NOT_RUN, False)]


def test_missing_cells_are_marked_never_zero() -> None:
    results = fabricated_results()
    tables = tables_by_name(results)
    _, test, dataset, model = NOT_RUN_KEY
    column = [c.key for c in tables["table2"].columns if c.group].index(f"{dataset}/{model}")
    assert row_cells(tables["table2"], test)[column] == (NOT_RUN, False)
    _, test, dataset, model = ALL_FILTERED
    column = [c.key for c in tables["table3"].columns if c.group].index(f"{dataset}/{model}")
    assert row_cells(tables["table3"], test)[column] == (NOTHING_TESTED, False)
    # In CSV: empty (not run) and n/a, so no tool reads them as 0.
    rows = list(csv.DictReader(io.StringIO(to_csv(tables["table2"]))))
    assert next(r for r in rows if r["test"] == "typos")["sst2/albert"] == ""
    rows = list(csv.DictReader(io.StringIO(to_csv(tables["table3"]))))
    assert next(r for r in rows if r["test"] == ALL_FILTERED[1])["mrpc/bert"] == NOTHING_TESTED


def test_a_models_file_with_other_names_gets_its_own_columns() -> None:
    results = fabricated_results(models=("roberta", "distilbert"))
    tables = tables_by_name(results)
    assert [c.label for c in tables["table2"].columns if c.group] == ["roberta", "distilbert"] * 3
    markdown = to_markdown(tables["table2"])
    assert "| rotten_tomatoes roberta | rotten_tomatoes distilbert |" in markdown
    assert {r[2].text for r in tables["attacks"].rows} == {"roberta", "distilbert"}
    assert [r[0].text for r in tables["table1"].rows] == ["roberta", "distilbert"]


# -- the formats agree -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["table1", "table2", "table3", "attacks", "comparison"])
def test_markdown_csv_and_html_agree(name: str) -> None:
    table = tables_by_name(fabricated_results())[name]
    shown = [i for i, c in enumerate(table.columns) if not c.csv_only]
    expected = [[(row[i].shown, row[i].bold) for i in shown] for row in table.rows]

    header, md = parse_markdown(to_markdown(table))
    assert len(header) == len(shown)
    html = parse_html(to_html(table))
    csv_rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert csv_rows[0] == [c.key for c in table.columns]
    for grid in (md, html):
        assert len(grid) == len(expected)
        for got, want in zip(grid, expected):
            # Display formats print a repeated first label (capability, recipe) once.
            assert got[1:] == want[1:]
            assert got[0] in (want[0], ("", False))
    for got, row in zip(csv_rows[1:], table.rows):
        assert got == ["" if c.text == NOT_RUN else c.text for c in row]


def test_attack_table_marks_the_more_robust_model_and_substitutes() -> None:
    table = tables_by_name(fabricated_results())["attacks"]
    column = {c.key: i for i, c in enumerate(table.columns)}
    textfooler = [r for r in table.rows if r[0].text == "textfooler"]
    assert [
        (r[2].text, r[column["attack_success_rate"]].bold, r[column["accuracy_under_attack"]].bold)
        for r in textfooler
    ] == [("bert", True, True), ("albert", False, False)]
    assert textfooler[0][column["substitutes"]].text == "embedding: minilm"
    assert (
        next(r for r in table.rows if r[0].text == "deepwordbug")[column["substitutes"]].text
        == "no"
    )
    skipped = next(r for r in table.rows if r[0].text == "bae")
    assert skipped[column["status"]].text == "skipped"
    assert skipped[column["attack_success_rate"]].text == NOT_RUN
    assert "bert-base-uncased" in skipped[column["reason"]].text


def test_skipped_attacks_are_not_gate_failures() -> None:
    counts = verdict(fabricated_results()).counts
    assert counts["attacks"] == (7, 0)
    assert counts["comparisons"] == (1, 1)


def test_sections_absent_means_no_table() -> None:
    results = fabricated_results()
    for section in ("attacks", "accuracy", "comparisons"):
        del results[section]
    assert sorted(tables_by_name(results)) == ["table2", "table3"]


# -- files, allure extras ------------------------------------------------------------------
def test_write_reports_files_and_allure_extras(tmp_path: Path) -> None:
    results_path = tmp_path / "results.json"
    results_path.write_text(json.dumps(fabricated_results()))
    alluredir = tmp_path / "allure-results"
    reports = write_reports(results_path, alluredir=alluredir)
    for stem in ("table1", "table2", "table3", "attacks", "comparison"):
        for suffix in (".md", ".csv", ".html"):
            assert (tmp_path / "tables" / f"{stem}{suffix}").is_file()
    assert sorted(p.name for p in reports.plots) == [
        "qqp_capabilities.png",
        "qqp_tests.png",
        "sentiment_capabilities.png",
        "sentiment_tests.png",
    ]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in reports.plots)
    env = (alluredir / "environment.properties").read_text()
    assert "profile=tiny" in env and "model.rte.bert=zoo\\:rte/bert@abc123" in env
    assert "version.torch=2.13.0" in env
    summaries = list(alluredir.glob("*-result.json"))
    assert len(summaries) == 1
    # Regenerating replaces the summary (and its attachments) instead of adding one.
    write_reports(results_path, alluredir=alluredir)
    assert len(list(alluredir.glob("*-result.json"))) == 1
    summary = json.loads(next(alluredir.glob("*-result.json")).read_text())
    types = {a["type"] for a in summary["attachments"]}
    assert types == {"text/html", "text/markdown", "image/png"}
    assert all((alluredir / a["source"]).is_file() for a in summary["attachments"])
    assert len(list(alluredir.glob("*-attachment*"))) == len(summary["attachments"])


def test_a_later_run_without_qqp_leaves_no_stale_table3(tmp_path: Path) -> None:
    results = fabricated_results()
    results_path = tmp_path / "results.json"
    results_path.write_text(json.dumps(results))
    write_reports(results_path)
    results["records"] = [r for r in results["records"] if r["suite"] == "sentiment"]
    results_path.write_text(json.dumps(results))
    write_reports(results_path)
    assert not (tmp_path / "tables" / "table3.md").exists()
    assert not (tmp_path / "plots" / "qqp_tests.png").exists()


def test_unchanged_figures_are_copied_from_the_plot_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nlp_gate.kinds.checklist import plots

    results = fabricated_results()
    results_path = tmp_path / "results.json"
    results_path.write_text(json.dumps(results))
    cache = tmp_path / "plot-cache"
    first = {p.name: p.read_bytes() for p in write_reports(results_path, plot_cache=cache).plots}
    assert len(list(cache.glob("*.png"))) == 4

    drawn: list[str] = []
    for kind, draw in list(plots.FIGURES.items()):

        def counting(
            suite: str, *args: object, kind: str = kind, draw: plots.Figure = draw
        ) -> Path:
            drawn.append(f"{suite}_{kind}")
            return draw(suite, *args)  # type: ignore[arg-type]  # hypothesis draw, untyped here

        monkeypatch.setitem(plots.FIGURES, kind, counting)
    again = write_reports(results_path, plot_cache=cache).plots
    assert drawn == []  # same records: nothing drawn, the same PNGs
    assert {p.name: p.read_bytes() for p in again} == first

    changed = next(
        r for r in results["records"] if r["suite"] == "qqp" and r["fail_rate"] is not None
    )
    changed["fail_rate"] = 100 - changed["fail_rate"]
    results_path.write_text(json.dumps(results))
    write_reports(results_path, plot_cache=cache)
    assert sorted(drawn) == ["qqp_capabilities", "qqp_tests"]  # only the changed suite


GATE_MESSAGE = (
    "sentiment/typos/sst2/bert: fail rate 61.0% exceeds the gate 50.0%\n"
    "61 of 100 cases failed; first failing cases:\nit was not bad"
)
INFRA_MESSAGE = "model refused: zoo:sst2/albert: no checkpoint under .cache/zoo (not found)"


@pytest.mark.parametrize(
    "message, status, category",
    [
        (GATE_MESSAGE, "failed", 0),
        ("sentiment/typos/sst2/bert: no threshold configured for it", "failed", 0),
        (INFRA_MESSAGE, "failed", 1),
        ("RuntimeError: CUDA out of memory", "broken", 2),
    ],
)
def test_categories_separate_gate_failures_from_infrastructure(
    message: str, status: str, category: int
) -> None:
    """First matching rule, with Java's whole-message semantics (re.fullmatch)."""
    rules = json.loads(CATEGORIES.read_text())

    def matches(rule: dict) -> bool:
        return status in rule["matchedStatuses"] and (
            "messageRegex" not in rule or re.fullmatch(rule["messageRegex"], message)
        )

    assert next(i for i, rule in enumerate(rules) if matches(rule)) == category


def test_environment_lists_models_seeds_and_versions() -> None:
    env = environment(fabricated_results()["run"])
    assert env["profile"] == "tiny" and env["seed"] == "1"
    assert env["model.sst2.albert"] == "zoo:sst2/albert"
    assert env["version.python"] == "3.11"


def test_a_native_suite_gets_its_own_table_without_seed_marks() -> None:
    results = fabricated_results()
    native = [
        {**r, "suite": "native_sentiment", "test": f"native {r['test']}"}
        for r in results["records"]
        if r["suite"] == "sentiment"
    ][:6]
    results["records"] = [*results["records"], *native]
    table = tables_by_name(results)["checklist_native_sentiment"]
    assert row_tests(table) == list(dict.fromkeys(r["test"] for r in native))
    assert "†" not in to_markdown(table)
    assert "†" in to_markdown(tables_by_name(results)["table2"])  # the seed table keeps its marks
