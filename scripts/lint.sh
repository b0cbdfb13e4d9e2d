#!/usr/bin/env bash
# The project's lint, format and type checks, as CI runs them first (.ci/run) and
# .pre-commit-config.yaml runs them on a commit: ruff (lint and import order), ruff's formatter
# (--check: it changes nothing), mypy (strict on plugins/nlp_gate and workshop/).  Configured in
# pyproject.toml ([tool.ruff], [tool.mypy]); the tools are pinned in constraints.txt and
# installed into .venv by scripts/setup.sh.  Exits non-zero when any of them fails.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=${NLP_GATE_VENV:-.venv}
rc=0
"$VENV/bin/ruff" check . || rc=1
"$VENV/bin/ruff" format --check . || rc=1
"$VENV/bin/mypy" || rc=1
exit $rc
