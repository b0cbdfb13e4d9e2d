#!/usr/bin/env bash
# Create or reuse .venv-mlflow: the full `mlflow` package, for the tracking server
# (`mlflow server`) that the write-back tests (tests/integration/test_option_mlflow_log.py)
# start over HTTP.  An environment of its own because mlflow 3.17 requires pyarrow<26 and
# .venv's lock pins 26.0.1 (constraints.txt): .venv keeps mlflow-skinny, the client nlp-gate
# uses; this one serves.  The same MLflow version as that client (constraints.txt's pin).
#
# Idempotent: a second run installs nothing while the version is the same (72 s the first
# time on a 2-core machine, ~850 MB).  Without it the server tests skip, naming this script.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-mlflow  # where fixtures/mlflow_server.py looks
version=$(sed -n 's/^mlflow-skinny==//p' constraints.txt)
if [ -z "$version" ]; then
  echo "mlflow_server_venv: no mlflow-skinny pin in constraints.txt" >&2
  exit 1
fi
stamp=$VENV/.nlp-gate-mlflow
if [ -x "$VENV/bin/mlflow" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "mlflow_server_venv: $VENV is up to date (mlflow $version)"
  exit 0
fi
# shellcheck source=scripts/python_path.sh
. scripts/python_path.sh
PY=$(resolve_python "${NLP_GATE_PYTHON:-python3.11}")
echo "mlflow_server_venv: creating $VENV with mlflow $version"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
# Not constraints.txt: its pyarrow is the conflict this environment exists for.
"$VENV/bin/python" -m pip install --disable-pip-version-check -q "mlflow==$version"
echo "$version" > "$stamp"
