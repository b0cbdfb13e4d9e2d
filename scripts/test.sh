#!/usr/bin/env bash
# The project's own tests: set up, then run tests/.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The attack items' tests need what the offline recipes read (Debian word lists, the zoo's
# masked LM); without them those items skip and the tests that expect them fail.  Once per
# clone (a no-op after); it never fails this job.
bash scripts/provision_attacks.sh
# The MLflow tracking server that the write-back tests start over HTTP
# (tests/integration/test_option_mlflow_log.py): the full mlflow, in .venv-mlflow (once per
# clone, ~70 s; a no-op after).  Without it those tests skip, naming the script.
bash scripts/mlflow_server_venv.sh > /tmp/nlp-gate-mlflow-venv.log 2>&1 \
  || echo "test: .venv-mlflow not made (see /tmp/nlp-gate-mlflow-venv.log); the MLflow server tests will skip"
# The pinned Allure CLI the browser test draws the report with (package-lock.json), before
# the run: installed midway by a test's report script, it would make that test skip or run
# depending on the order.  Without npm the test skips, naming it.
if command -v npm >/dev/null 2>&1 && [ ! -x node_modules/.bin/allure ]; then
  npm ci --no-audit --no-fund > /tmp/nlp-gate-npm.log 2>&1 \
    || echo "test: npm ci failed (see /tmp/nlp-gate-npm.log); the browser test will skip"
fi
exec .venv/bin/python -m pytest tests -n 2 -p no:cacheprovider "$@"
