#!/usr/bin/env bash
# Create or reuse the virtual environment at .venv/ (repo root).
# Idempotent: installs only when requirements.txt or constraints.txt changed since the last
# install, so a second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${NLP_GATE_PYTHON:-python3.11}
if ! command -v "$PY" >/dev/null 2>&1; then
  echo "setup: $PY not found; install Python 3.11 or set NLP_GATE_PYTHON" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.nlp-gate-pins
want=$(cat requirements.txt constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing pinned dependencies into .venv (constraints.txt)"
  .venv/bin/python -m pip install --disable-pip-version-check -q \
    -r requirements.txt -c constraints.txt
  echo "$want" > "$stamp"
else
  echo "setup: .venv is up to date"
fi
