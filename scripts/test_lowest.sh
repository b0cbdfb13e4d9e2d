#!/usr/bin/env bash
# The fast subset (tests/unit/) against the LOWEST versions pyproject.toml's ranges allow
# (issue 31): every direct dependency of the core and of the extras held at its lower bound
# (scripts/lowest_constraints.py), every extra installed (.[all]), in its own environment
# .venv-lowest (Python 3.11), so .venv, the lock's environment, never changes.  Their own dependencies resolve as pip
# chooses.  Re-created only when the bounds change.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-lowest
bash scripts/setup.sh >/dev/null   # .venv reads pyproject.toml for the bounds (packaging)
bounds=$(.venv/bin/python scripts/lowest_constraints.py)
spec=".[all]"
stamp=$( (echo "$spec"; echo "$bounds") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.nlp-gate-lowest" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$VENV"
  # shellcheck source=scripts/python_path.sh
  . scripts/python_path.sh
  "$(resolve_python python3.11)" -m venv "$VENV"
  echo "$bounds" > "$VENV/lowest-constraints.txt"
  echo "test_lowest: installing the lower bounds into $VENV:"
  sed 's/^/  /' "$VENV/lowest-constraints.txt"
  # The lock's pip (as scripts/setup.sh): the resolver that chooses here is the same each run.
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q -c constraints.txt pip
  "$VENV/bin/pip" install --disable-pip-version-check -q \
    -c "$VENV/lowest-constraints.txt" -e "$spec"
  echo "$stamp" > "$VENV/.nlp-gate-lowest"
fi
"$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null \
  | grep -iE "^(torch|transformers|datasets|textattack|pytest|pytest-xdist|hypothesis|numpy|checklist-pattern) " \
  | sed 's/^/test_lowest: /'
# A zoo folder of its own: a test here that trains or damages one never touches the shared one.
export NLP_GATE_ZOO_DIR=$PWD/$VENV/zoo
exec "$VENV/bin/python" -m pytest tests/unit -n 2 -p no:cacheprovider "$@"
