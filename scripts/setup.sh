#!/usr/bin/env bash
# Create or reuse the project's virtual environment: .venv/ at the repo root (a contract: the
# README's commands and scripts use .venv/bin/python). NLP_GATE_VENV names another one (CI keeps
# its Python 3.13 environment in .venv-py313 so that it never replaces .venv).
#
# NLP_GATE_PYTHON chooses the interpreter: python3.11 (the default; the tiny gates were
# calibrated on 3.11), python3.12 or python3.13, a command name or a path. Any other version is
# refused: the lock below is made for these three (pyproject's requires-python has no upper
# bound, for the package's users; 3.14 cannot be installed on these machines, so no lock is
# tested on it). A pyenv shim for a version that pyenv has installed but not selected is resolved to
# that version's interpreter.
#
# One lock for the three versions: constraints.txt (the pins made on 3.11 hold on 3.12 and 3.13
# as well; the packages only 3.12+ install carry `python_version` markers).
#
# Idempotent: a second run installs nothing. The dependencies are installed again only when the
# interpreter's version, requirements.txt or the lock changed; the project itself (editable,
# without dependencies) only when those or pyproject.toml changed.
#
# An existing environment made by another Python minor version than the one asked for is
# removed and created anew, with a message: a venv cannot change interpreter, and a run must
# use the Python it was asked for (switching back and forth therefore reinstalls; use
# NLP_GATE_VENV to keep one environment per version).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${NLP_GATE_PYTHON:-python3.11}
asked=$PY
VENV=${NLP_GATE_VENV:-.venv}
LOCK=constraints.txt
SUPPORTED="3.11 3.12 3.13"

# shellcheck source=scripts/python_path.sh
. scripts/python_path.sh
PY=$(resolve_python "$PY")
ver=$(py_version "$PY")
if [ -z "$ver" ]; then
  echo "setup: cannot run NLP_GATE_PYTHON=$asked; install Python 3.11, 3.12 or 3.13" \
       "or point NLP_GATE_PYTHON at one" >&2
  exit 1
fi
case " $SUPPORTED " in
  *" $ver "*) ;;
  *) echo "setup: NLP_GATE_PYTHON=$asked is Python $ver; this repository's lock (constraints.txt)" \
          "is tested on Python 3.11, 3.12 and 3.13: set NLP_GATE_PYTHON to one of them" >&2
     exit 1 ;;
esac

if [ -e "$VENV" ]; then
  have=$(py_version "$VENV/bin/python")
  if [ "$have" != "$ver" ]; then
    if [ -n "$have" ]; then what="a Python $have environment"; else what="not a working environment"; fi
    echo "setup: $VENV is $what; Python $ver was asked for (NLP_GATE_PYTHON=$asked):" \
         "removing it and creating it anew"
    rm -rf "$VENV"
  fi
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with Python $ver ($PY)"
  # Without ensurepip's pip (7 s here, most of it compiling pip on one core): the lock's pip
  # replaces it below anyway.  Where the interpreter's own pip cannot install into the new
  # environment, ensurepip's is added after all (ensure_own_pip).
  "$PY" -m venv --without-pip "$VENV"
fi
# ensurepip's pip, where the environment has no pip of its own.
ensure_own_pip() {
  "$VENV/bin/python" -m pip --version >/dev/null 2>&1 \
    || "$VENV/bin/python" -m ensurepip --default-pip >/dev/null
}

pins_stamp=$VENV/.nlp-gate-pins
project_stamp=$VENV/.nlp-gate-project
pins=$( (echo "python $ver"; cat requirements.txt "$LOCK") | sha256sum | cut -d' ' -f1)
project=$( (echo "$pins"; cat pyproject.toml) | sha256sum | cut -d' ' -f1)
uptodate=1
if [ "$(cat "$pins_stamp" 2>/dev/null)" != "$pins" ]; then
  uptodate=0
  echo "setup: installing pinned dependencies into $VENV (Python $ver, $LOCK)"
  rm -f "$project_stamp"
  # uv installs the lock: the same distributions at the same versions as pip's install of it
  # (`pip freeze` of the two environments equal), 24 s instead of pip's 90-120 s here, where
  # pip fetches and installs one wheel at a time.  uv is itself pinned in the lock; pip's
  # configuration is handed to it (scripts/uv_from_pip.sh).  Where uv cannot be had or fails,
  # pip installs the lock as before, after saying so.
  # shellcheck source=scripts/uv_from_pip.sh
  . scripts/uv_from_pip.sh
  # uv into it by the interpreter's own pip (pip 22.3+ installs into another environment with
  # --python), else by the environment's; pip's configuration as that pip reads it.
  if "$PY" -m pip --python "$VENV/bin/python" --version >/dev/null 2>&1; then
    PIP=("$PY" -m pip --python "$VENV/bin/python")
  else
    ensure_own_pip
    PIP=("$VENV/bin/python" -m pip)
  fi
  # pip and setuptools (pinned in the lock) too: setuptools builds the editable install below
  # without build isolation, and a user's `.venv/bin/pip` is the lock's.
  if ! { "${PIP[@]}" install --disable-pip-version-check -q -c "$LOCK" uv \
         && uv_args_from_pip "${PIP[0]}" \
         && "$VENV/bin/uv" pip install --python "$VENV/bin/python" --quiet --no-progress \
              "${UV_ARGS[@]}" -r requirements.txt -c "$LOCK" pip setuptools; }; then
    echo "setup: uv did not install the lock (see above); installing it with pip instead"
    ensure_own_pip
    # pip first, at the lock's version: the one a new venv brings (ensurepip's, 23.2 with
    # Python 3.11.7) took 175 s to resolve and install this lock here, the lock's 44 s.
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -c "$LOCK" pip
    # pip compiles every installed module on one core; compile_ahead.py below, on all.
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-compile \
      -r requirements.txt -c "$LOCK" setuptools
  fi
  # Compiled ahead on every core: the ~7,400 modules of the folders the main job imports
  # (scripts/compile-ahead.txt), 15 s of two cores here instead of 41 s for all but a
  # hand-kept list of packages (~11,800 modules; pip compiles on one).  A module the list
  # misses (a user's RoBERTa, the project's own tests' hypothesis) is compiled by Python on
  # its first import, as any module without bytecode.  Its exit status is ignored, as pip
  # ignores files that do not compile (a few packages ship Python 2 examples).
  "$VENV/bin/python" scripts/compile_ahead.py compile scripts/compile-ahead.txt \
    >/dev/null 2>&1 || true
  echo "$pins" > "$pins_stamp"
fi
if [ "$(cat "$project_stamp" 2>/dev/null)" != "$project" ]; then
  uptodate=0
  echo "setup: installing nlp-gate itself into $VENV (editable, no dependencies)"
  # By uv where the lock put it there (1.5 s instead of pip's 5 s; the same setuptools
  # build), else by pip.
  if ! { [ -x "$VENV/bin/uv" ] && "$VENV/bin/uv" pip install --python "$VENV/bin/python" \
           --quiet --no-progress --no-deps --no-build-isolation -e .; }; then
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q \
      --no-deps --no-build-isolation -e .
  fi
  echo "$project" > "$project_stamp"
fi
# pytest 9.2, beside the lock's pytest in a folder of its own (no dependencies: the
# environment's serve), for tests/integration/test_loadgroup.py, which runs the plugin under it
# (pytest-xdist#1386): installed here, where the lock is fetched, so that no test needs the
# network.  Where it cannot be had, setup goes on (the gate does not need it) and that test
# fails, saying so.
PYTEST_NEXT=9.2.0
if [ ! -d "$VENV/pytest-next/pytest-$PYTEST_NEXT.dist-info" ]; then
  uptodate=0
  echo "setup: installing pytest $PYTEST_NEXT into $VENV/pytest-next (for test_loadgroup.py)"
  rm -rf "$VENV/pytest-next"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps \
      --target "$VENV/pytest-next" "pytest==$PYTEST_NEXT" \
    || echo "setup: pytest $PYTEST_NEXT could not be installed (see above);" \
            "tests/integration/test_loadgroup.py's pytest $PYTEST_NEXT leg will fail"
fi
if [ "$uptodate" = 1 ]; then
  echo "setup: $VENV is up to date (Python $ver)"
fi
