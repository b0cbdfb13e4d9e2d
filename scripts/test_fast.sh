#!/usr/bin/env bash
# The fast subset of the project's own tests: tests/unit/ (no item there is `slow`), on the
# Python that NLP_GATE_PYTHON names (python3.11 by default, python3.12, python3.13), in the
# environment NLP_GATE_VENV names (default .venv). Sets up first, like scripts/test.sh.
# Extra arguments go to pytest. CI: NLP_GATE_VENV=.venv-py313 NLP_GATE_PYTHON=python3.13
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv=${NLP_GATE_VENV:-.venv}
exec "$venv/bin/python" -m pytest tests/unit -n 2 -p no:cacheprovider "$@"
