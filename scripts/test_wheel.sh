#!/usr/bin/env bash
# The package as a team gets it (issue 31): build the wheel, install it with NO constraints
# into a fresh virtual environment *inside* a new repository, and run the README's user
# sequence there with the plain `pytest` command:
#
#   1. core (no extras), on Python 3.11 and 3.13: a pure-Python `module:function` classifier
#      over the released and the native CheckList tests; torch, textattack and datasets
#      must not be installed by the core; the function is edited and the run repeated, and
#      the fail rates must follow the edit;
#   2. `[hf]`, on Python 3.11: the same repository gains a checkpoint model (the zoo's
#      sst2/bert, a directory), gated with the function as its baseline.
#
# torch: a team that installs `[hf]` brings its own torch; this leg installs torch==2.13.0
# first (on these machines pip takes it from a CPU wheel on disk; any other torch pulls
# gigabytes of CUDA), and `[hf]`'s range admits it, so pip installs no other.
#
# Needs the zoo built (`python -m nlp_gate.zoo build`) for step 2 and CheckList's released
# suites (NLP_GATE_SUITE_DIR, default ../shared/reference/checklist-release).  Exits non-zero
# at the first step that fails.  The repositories live in a temporary folder, removed at the
# end unless NLP_GATE_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
suites=${NLP_GATE_SUITE_DIR:-$here/../shared/reference/checklist-release}
suites=$(cd "$suites" && pwd)
checkpoint=$here/.cache/zoo/sst2/bert
work=$(mktemp -d /tmp/nlp-gate-wheel.XXXXXX)
if [ "${NLP_GATE_KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; fi
say() { echo "test_wheel: $*"; }
# shellcheck source=scripts/python_path.sh
. scripts/python_path.sh

say "building the wheel"
.venv/bin/pip wheel --disable-pip-version-check -q --no-deps --no-build-isolation -w "$work/dist" .
wheel=$(ls "$work"/dist/nlp_gate-*.whl)
say "built $(basename "$wheel")"

# A new repository with the README's pytest.ini and a classifier of the team's own: cue-word
# counts, smoothed, over [negative, positive].  $2 swaps the columns (the "edit").
write_repo() {
  local repo=$1
  mkdir -p "$repo"
  git -C "$repo" init -q
  cat > "$repo/pytest.ini" <<INI
[pytest]
nlp_gate_release_suites = true
nlp_gate_native_suites = true
addopts = --nlp-suite-dir=$suites -p no:cacheprovider
INI
  write_function "$repo" 0
}
write_function() {
  local repo=$1 swap=$2
  cat > "$repo/mymod.py" <<PY
GOOD = {"good", "great", "love", "excellent", "happy", "nice", "amazing", "best", "like"}
BAD = {"bad", "terrible", "hate", "awful", "sad", "worst", "boring", "not", "never", "no"}


def predict(texts):
    rows = []
    for text in texts:
        words = text.lower().split()
        good = 1 + sum(w in GOOD for w in words)
        bad = 1 + sum(w in BAD for w in words)
        row = [bad / (good + bad), good / (good + bad)]
        rows.append(row[::-1] if $swap else row)
    return rows
PY
}
# The fail rates of a run, one line per item, from the run's own results.json.
fail_rates() {
  "$1/.venv/bin/python" - "$1/reports/results.json" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
for record in data["records"]:
    print(record["suite"], record["test"], record["model"], record["fail_rate"])
PY
}
run_pytest() {  # repo, then pytest arguments; a verdict: exit 0 (gates met) or 1 (a gate missed)
  local repo=$1; shift
  local rc=0
  (cd "$repo" && .venv/bin/pytest "$@") > "$repo/last-run.log" 2>&1 || rc=$?
  tail -n 3 "$repo/last-run.log"
  if [ "$rc" -gt 1 ]; then
    say "pytest exited $rc in $repo"; cat "$repo/last-run.log"; exit 1
  fi
  grep -q "release gate \(PASSED\|FAILED\)" "$repo/last-run.log" \
    || { say "no verdict line in $repo/last-run.log"; cat "$repo/last-run.log"; exit 1; }
}

for py in python3.11 python3.13; do
  repo=$work/repo-$py
  write_repo "$repo"
  say "$py: core install (no extras, no constraints) into $repo/.venv"
  "$(resolve_python "$py")" -m venv "$repo/.venv"
  start=$SECONDS
  "$repo/.venv/bin/pip" install --disable-pip-version-check -q "$wheel"
  say "$py: core installed in $((SECONDS - start)) s, $(du -sm "$repo/.venv" | cut -f1) MiB"
  # transformers is not among them: checklist-pattern itself declares it (a core run does not
  # import it: tests/integration/test_core_imports.py).
  for heavy in torch textattack datasets; do
    if "$repo/.venv/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$heavy') is None)"; then
      say "$py: the core install brought $heavy"; exit 1
    fi
  done
  args=(--nlp-model "sentiment=mymod:predict" -m "vocabulary or negation" --nlp-sample 20 -n 2)
  run_pytest "$repo" "${args[@]}"
  fail_rates "$repo" > "$repo/first.txt"
  grep -q "native" "$repo/first.txt" || { say "$py: no native test ran"; exit 1; }
  grep -q "^sentiment " "$repo/first.txt" || { say "$py: no released test ran"; exit 1; }
  write_function "$repo" 1
  run_pytest "$repo" "${args[@]}"
  fail_rates "$repo" > "$repo/second.txt"
  if cmp -s "$repo/first.txt" "$repo/second.txt"; then
    say "$py: the edited function gave the same fail rates"; exit 1
  fi
  say "$py: core leg passed ($(wc -l < "$repo/first.txt") items, fail rates follow the edit)"
  # The [hf] leg below needs only the 3.11 repository: free the other's 1.2 GiB before it.
  if [ "$py" != python3.11 ] && [ "${NLP_GATE_KEEP:-0}" != 1 ]; then rm -rf "$repo"; fi
done

repo=$work/repo-python3.11
say "python3.11: adding [hf] (torch==2.13.0 first, as a team brings its own)"
start=$SECONDS
"$repo/.venv/bin/pip" install --disable-pip-version-check -q torch==2.13.0
"$repo/.venv/bin/pip" install --disable-pip-version-check -q "$wheel[hf]"
say "python3.11: [hf] installed in $((SECONDS - start)) s, $(du -sm "$repo/.venv" | cut -f1) MiB"
if [ ! -f "$checkpoint/config.json" ]; then
  say "no zoo checkpoint at $checkpoint: run .venv/bin/python -m nlp_gate.zoo build first"; exit 1
fi
write_function "$repo" 0
run_pytest "$repo" --nlp-model "sentiment=mymod:predict" --nlp-model "sentiment=$checkpoint" \
  -m "vocabulary and not native" --nlp-sample 20 -n 2
say "python3.11: [hf] leg passed"
say "all legs passed"
