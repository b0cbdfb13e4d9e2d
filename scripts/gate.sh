#!/usr/bin/env bash
# The main job: set up, put the embedded tiny zoo in place, run the behavioral suite on the
# default profile, write reports/.  Extra arguments go to pytest
# (e.g. `bash scripts/gate.sh -m fairness`).  Exits with the run's status: 1 when a gate is
# missed, 3 when the run has no verdict (an item errored; docs/guide/release-decision.md).
set -uo pipefail
cd "$(dirname "$0")/.."
# The Allure CLI for the HTML report at the end (npm ci, ~5 s of one core) installs beside the
# set-up, whose pip keeps one core only; in a process group of its own (set -m), stopped when
# this job is (allure_html.sh installs it again where that left none).
npm_ci=
if [ ! -x node_modules/.bin/allure ] && command -v npm >/dev/null; then
  set -m
  (npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) &
  npm_ci=$!
  set +m
fi
stop_npm_ci() { [ -z "$npm_ci" ] || { kill -INT -- "-$npm_ci" 2>/dev/null; wait "$npm_ci" 2>/dev/null; }; }
trap 'stop_npm_ci; echo "gate: interrupted" >&2; exit 130' INT
trap 'stop_npm_ci; echo "gate: stopped (SIGTERM)" >&2; exit 143' TERM
bash scripts/setup.sh || { stop_npm_ci; exit 1; }
# What the offline TextAttack recipes read: Debian packages (installed when this job may;
# apt may take a minute on a fresh machine), beside the embedded default's install: the zoo
# and the attacks' masked LM are shipped files, sha256 checked and copied into .cache/
# (nlp_gate/zoo/embedded.py): nothing is trained here.  A recipe whose resource is still
# missing skips, named.  In a process group of its own (set -m): a non-interactive shell's
# background job ignores Ctrl-C, so the trap interrupts it when this job is interrupted.
set -m
(bash scripts/provision_attacks.sh debian 2>&1 | cat) &
debian=$!
set +m
stop_provision() {
  kill -INT -- "-$debian" 2>/dev/null
  wait "$debian" 2>/dev/null
  stop_npm_ci
}
trap 'stop_provision; echo "gate: interrupted" >&2; exit 130' INT
trap 'stop_provision; echo "gate: stopped (SIGTERM)" >&2; exit 143' TERM
.venv/bin/python -m nlp_gate.zoo build --quiet && bash scripts/provision_attacks.sh stand-ins
installed=$?
# A damaged shipped file: the zoo's one message (exit 4), as a run that meets it stops.
if [ "$installed" -ne 0 ]; then stop_provision; exit "$installed"; fi
wait "$debian"
# From here pytest answers Ctrl-C itself (an interrupted run's verdict and results.json, then
# the report below, as ever).
trap stop_npm_ci INT TERM
mkdir -p reports
.venv/bin/python -m pytest tests_behavioral -n 2 -p no:cacheprovider \
  --alluredir reports/allure-results --clean-alluredir "$@"
rc=$?
[ -z "$npm_ci" ] || wait "$npm_ci" 2>/dev/null
trap - INT TERM
bash scripts/allure_html.sh || echo "gate: Allure HTML report not generated (see above)" >&2
exit $rc
