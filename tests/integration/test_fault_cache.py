"""A damaged, edited or full prediction cache never falsifies a verdict (issue #29, point 3).

Every stored row carries a checksum, checked on read: a probability or an outcome edited in
place is recomputed, never used.  A file SQLite cannot read (random bytes over a page, cut to
half) is moved aside and the run computes what it would have answered; a full disk stops the
cache for the rest of the run.  Each says so once (``PredictionCacheWarning``), and the fail
rates are those of a run without a cache.

Its fast tests: ``tests/unit/test_fault_cache.py``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from fixtures.cache_file import cache_sql
from fixtures.gate_run import RunGate
from fixtures.user_repo import LABELS, write_gates, write_models

WARNING = "PredictionCacheWarning"


def _args(tmp: Path, cache: str) -> list[str]:
    models = write_models(
        tmp / "models.yaml",
        {
            "lexicon": {
                "predict": "fixtures.lexicon_model:predict_proba",
                "fingerprint": "lexicon-1",
                "labels": LABELS,
            }
        },
    )
    gates = write_gates(tmp / "gates.yaml", {"checklist": {"default": 100}})
    return [
        "--nlp-models-file",
        str(models),
        "--nlp-thresholds",
        str(gates),
        "--nlp-sample",
        "200",
        "--nlp-prediction-cache",
        cache,
        "-m",
        "sentiment and vocabulary and mft and not native",
    ]


def _rates(run: object) -> dict[str, tuple[int, int, float]]:
    return {r["test"]: (r["n_failed"], r["n_cases"], r["fail_rate"]) for r in run.records}  # type: ignore[attr-defined]  # the fixture's run object


def test_rows_edited_in_place_are_recomputed_not_used(run_gate: RunGate, tmp_path: Path) -> None:
    truth = _rates(run_gate(*_args(tmp_path, "off")))
    cache = tmp_path / "cache.sqlite"
    filled = run_gate(*_args(tmp_path, str(cache)))
    assert _rates(filled) == truth

    # What an integrity check cannot see: valid rows, other values.
    with cache_sql(cache) as db:
        rows = db.execute("SELECT fingerprint, input, probs, dtype FROM predictions").fetchall()
        db.executemany(
            "UPDATE predictions SET probs=? WHERE fingerprint=? AND input=?",
            [
                (np.frombuffer(probs, dtype=dtype)[::-1].tobytes(), fp, key)
                for fp, key, probs, dtype in rows
            ],
        )  # the columns swapped
        for fp, key, text in db.execute(
            "SELECT fingerprint, key, outcome FROM outcomes"
        ).fetchall():
            outcome = json.loads(text)
            outcome = {
                **outcome,
                "n_failed": outcome["n_failed"] + 1,
                "fail_rate": outcome["fail_rate"] + 1,
            }
            db.execute(
                "UPDATE outcomes SET outcome=? WHERE fingerprint=? AND key=?",
                (json.dumps(outcome), fp, key),
            )
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    edited = run_gate(*_args(tmp_path, str(cache)))
    out = edited.result.stdout.str()
    assert _rates(edited) == truth, out[-3000:]
    engine = edited.json["engine"][0]
    assert engine["forward_passes"] > 0 and engine["cache_rejected"] > 0
    assert engine["checklist_stored_outcomes"] == 0
    assert out.count(WARNING) == 1 and "do not match their checksum" in out
    assert "Traceback" not in out


def test_random_bytes_in_the_middle_of_the_file(run_gate: RunGate, tmp_path: Path) -> None:
    truth = _rates(run_gate(*_args(tmp_path, "off")))
    cache = tmp_path / "cache.sqlite"
    run_gate(*_args(tmp_path, str(cache)))
    with cache_sql(cache) as db:  # so that the run must read the predictions
        db.execute("DELETE FROM outcomes")
        db.commit()
        db.execute("VACUUM")
        page, pages = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count"))
    assert pages > 8
    with cache.open("r+b") as f:  # 4 KiB of noise over a page in the middle
        f.seek(pages // 2 * page)
        f.write(random.Random(0).randbytes(4096))

    damaged = run_gate(*_args(tmp_path, str(cache)))
    out = damaged.result.stdout.str()
    assert damaged.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert _rates(damaged) == truth
    assert out.count(WARNING) == 1 and "is damaged" in out and "--nlp-prediction-cache off" in out
    assert "Traceback" not in out
    assert list(tmp_path.glob("cache.sqlite.corrupt-*"))  # moved aside, named in the warning

    fresh = run_gate(*_args(tmp_path, str(cache)))  # the next run starts a fresh cache
    assert _rates(fresh) == truth and WARNING not in fresh.result.stdout.str()
