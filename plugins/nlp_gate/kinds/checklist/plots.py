"""PNG figures for the report (matplotlib, Agg backend: no display on CI machines).

Per CheckList suite: mean fail rate per capability for each model (grouped bars, one panel per
dataset) and every test's fail rate per model (a dot plot, one panel per dataset, rows in the
seed table's order).  Items without a fail rate (not run, or every case filtered) are left out
of means and drawn as no dot, never as 0.

A figure is a pure function of its records, the run's model order, this code and matplotlib:
with a cache folder, a figure whose inputs did not change (a re-run of unchanged models) is
copied from the last run instead of drawn again, which is most of a warm run's report time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from statistics import mean
from typing import Any, BinaryIO

from nlp_gate.engine.file_cache import mark_used, publish
from nlp_gate.kinds.checklist.layout import ordered_rows

Record = dict[str, Any]
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
# Shrinking shapes, so equal fail rates (a dot on a dot) still show every model.
MARKERS = (("o", 40), ("D", 18), ("s", 8), ("^", 8), ("v", 8), ("x", 8))


def _datasets_and_models(records: list[Record], run: Record) -> tuple[list[str], list[str]]:
    """Panels and colours in the profile's order (the run metadata), not the order records
    arrived in, so a model keeps its colour from run to run."""
    declared = [(m["dataset"], m["model"]) for m in run.get("models", ())]
    pairs = {(r["dataset"], r["model"]) for r in records}
    ordered = [p for p in declared if p in pairs] + sorted(pairs - set(declared))
    return list(dict.fromkeys(d for d, _ in ordered)), list(dict.fromkeys(m for _, m in ordered))


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _pyplot() -> Any:
    """matplotlib, imported on the first figure actually drawn (its import alone takes ~1 s)."""
    import matplotlib

    matplotlib.use("Agg")  # no display on CI machines
    import matplotlib.pyplot as plt

    return plt


def capability_bars(suite: str, records: list[Record], run: Record, path: Path) -> Path:
    plt = _pyplot()
    datasets, models = _datasets_and_models(records, run)
    rows = ordered_rows(suite, ((r["capability"], r["test"]) for r in records))
    capabilities = list(dict.fromkeys(row.capability for row in rows))
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(4.2 * len(datasets) + 1, 4.2), sharey=True, squeeze=False
    )
    width = 0.8 / len(models)
    for ax, dataset in zip(axes[0], datasets):
        for k, model in enumerate(models):
            means = []
            for capability in capabilities:
                rates = [
                    r["fail_rate"]
                    for r in records
                    if r["dataset"] == dataset
                    and r["model"] == model
                    and r["capability"] == capability
                    and r["fail_rate"] is not None
                ]
                means.append(mean(rates) if rates else float("nan"))
            xs = [i + (k - (len(models) - 1) / 2) * width for i in range(len(capabilities))]
            ax.bar(xs, means, width, label=model, color=COLORS[k % len(COLORS)])
            for x, m in zip(xs, means):  # no result is not a 0% bar: say so
                if m != m:  # NaN
                    ax.text(x, 1, "—", ha="center", va="bottom", fontsize=11, color="#444")
        ax.set_title(dataset)
        ax.set_xticks(range(len(capabilities)), capabilities, rotation=40, ha="right")
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("mean fail rate over tests (%)")
    axes[0][-1].legend(title="model")
    fig.suptitle(f"CheckList {suite}: mean fail rate per capability (lower is better; — no result)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def per_test_dots(suite: str, records: list[Record], run: Record, path: Path) -> Path:
    plt = _pyplot()
    datasets, models = _datasets_and_models(records, run)
    rows = ordered_rows(suite, ((r["capability"], r["test"]) for r in records))
    labels = [
        _short(f"{row.capability}: {row.test}", 58) + ("" if row.seed_label else " †")
        for row in rows
    ]
    rate = {(r["test"], r["dataset"], r["model"]): r["fail_rate"] for r in records}
    fig, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(3.2 * len(datasets) + 4.5, 0.24 * len(rows) + 1.6),
        sharey=True,
        squeeze=False,
    )
    ys = list(range(len(rows)))
    for ax, dataset in zip(axes[0], datasets):
        for y, row in zip(ys, rows):  # a thin line joins one test's models: the gap reads at once
            xs = [v for m in models if (v := rate.get((row.test, dataset, m))) is not None]
            if len(xs) > 1:
                ax.plot([min(xs), max(xs)], [y, y], color="#bbb", lw=1, zorder=1)
        for k, model in enumerate(models):
            points = [
                (v, y)
                for y, row in zip(ys, rows)
                if (v := rate.get((row.test, dataset, model))) is not None
            ]
            marker, size = MARKERS[k % len(MARKERS)]
            ax.scatter(
                [p[0] for p in points],
                [p[1] for p in points],
                s=size,
                marker=marker,
                zorder=2 + k,
                color=COLORS[k % len(COLORS)],
                label=model,
            )
        ax.set_title(dataset)
        ax.set_xlim(-3, 103)
        ax.set_xlabel("fail rate (%)")
        ax.grid(axis="x", alpha=0.3)
    seed_rows = sum(1 for row in rows if row.seed_label)
    if 0 < seed_rows < len(rows):  # a rule between the seed's rows and the ones it omitted
        for ax in axes[0]:
            ax.axhline(seed_rows - 0.5, color="#888", lw=0.8, ls="--")
    axes[0][0].set_yticks(ys, labels, fontsize=7)
    axes[0][0].invert_yaxis()  # first seed row on top, as in the table
    # Legend above the panels: inside, it would hide the dots of the last rows.
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, title="model", loc="upper right", ncol=len(models))
    fig.suptitle(f"CheckList {suite}: fail rate per test († not in the seed's table)", x=0.4)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110, bbox_inches="tight")  # keeps the long test names whole
    plt.close(fig)
    return path


Figure = Callable[[str, list[Record], Record, Path], Path]
FIGURES: dict[str, Figure] = {"capabilities": capability_bars, "tests": per_test_dots}
CACHE_KEEP = 64  # cached figures kept (least recently used go first): a few MB


def figure_digest(kind: str, records: list[Record], run: Record) -> str:
    """Everything a figure depends on: its data, the model order, the drawing code."""
    h = hashlib.sha256(
        json.dumps([kind, records, run.get("models", [])], sort_keys=True, default=str).encode()
    )
    for module in (Path(__file__), Path(__file__).with_name("layout.py")):
        h.update(module.read_bytes())
    h.update(version("matplotlib").encode())
    return h.hexdigest()


def _copy_into(source: Path, target: BinaryIO) -> None:
    target.write(source.read_bytes())


def write_plots(results: Record, out_dir: Path, cache_dir: Path | None = None) -> list[Path]:
    records, run = results.get("records", []), results.get("run", {})
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for suite in dict.fromkeys(r["suite"] for r in records):
        mine = [r for r in records if r["suite"] == suite]
        for kind, draw in FIGURES.items():
            path = out_dir / f"{suite}_{kind}.png"
            if cache_dir is None:
                paths.append(draw(suite, mine, run, path))
                continue
            cached = cache_dir / f"{figure_digest(kind, mine, run)}.png"
            if cached.is_file():
                shutil.copyfile(cached, path)
                mark_used(cached)
            else:
                draw(suite, mine, run, path)
                publish(cached, functools.partial(_copy_into, path), CACHE_KEEP)
            paths.append(path)
    return paths
