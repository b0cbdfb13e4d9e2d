#!/usr/bin/env bash
# The main job: set up, build the embedded tiny zoo if needed, run the behavioral suite on
# the default profile, write reports/.  Extra arguments go to pytest
# (e.g. `bash scripts/gate.sh -m fairness`).  Exits with pytest's status: non-zero when a
# gate is missed.
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
# What the offline TextAttack recipes read: Debian packages (installed when this job may),
# the zoo's masked LM; a recipe whose resource is still missing skips, named.  Both run
# beside the zoo build.  The masked LM trains on one core from the zoo's recipe (2 cores busy
# instead of one for the zoo's minutes) and may still be training when the zoo is done:
# pytest starts then all the same (on a machine with a spare core that saves the masked LM's
# last minute; on two cores the three share them), and the attack items that read it (the
# run's last, minutes later) wait for its build (nlp_gate.kinds.attacks.resources.
# StandIn.await_build).  Piped, so that progress comes as whole lines, never rewritten in
# place over the zoo's line on a terminal.  Each runs in a process group of its own (set -m):
# a non-interactive shell's background job ignores Ctrl-C, so the trap interrupts them
# (SIGINT: their builds remove their private folders) when this job is interrupted, and
# they never outlive a failed zoo build.
set -m
(bash scripts/provision_attacks.sh debian 2>&1 | cat) &
debian=$!
(bash scripts/provision_attacks.sh stand-ins 2>&1 | cat) &
stand_ins=$!
set +m
stop_provision() {
  kill -INT -- "-$debian" "-$stand_ins" 2>/dev/null
  wait "$debian" "$stand_ins" 2>/dev/null
  stop_npm_ci
}
trap 'stop_provision; echo "gate: interrupted" >&2; exit 130' INT
trap 'stop_provision; echo "gate: stopped (SIGTERM)" >&2; exit 143' TERM
.venv/bin/python -m nlp_gate.zoo build
zoo=$?
if [ "$zoo" -ne 0 ]; then stop_provision; exit 1; fi
wait "$debian"
# No attack item may look before the masked LM's build holds its lock (a rebuild replaces a
# stale one): go on once the build holds it (flock(1) cannot take it then) or has ended.
lock=${NLP_GATE_CACHE:-.cache}/attack-resources/stand-ins/.masked-lm.lock
if command -v flock >/dev/null; then
  until ! kill -0 "$stand_ins" 2>/dev/null || { [ -e "$lock" ] && ! flock -n "$lock" true; }; do
    sleep 0.2
  done
else
  wait "$stand_ins"
fi
# From here pytest answers Ctrl-C itself (an interrupted run's verdict and results.json, then
# the report below, as ever); the trap only stops a build still under way.
trap stop_provision INT TERM
mkdir -p reports
.venv/bin/python -m pytest tests_behavioral -n 2 -p no:cacheprovider \
  --alluredir reports/allure-results --clean-alluredir "$@"
rc=$?
wait "$stand_ins" 2>/dev/null
[ -z "$npm_ci" ] || wait "$npm_ci" 2>/dev/null
trap - INT TERM
bash scripts/allure_html.sh || echo "gate: Allure HTML report not generated (see above)" >&2
exit $rc
