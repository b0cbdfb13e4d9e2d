#!/usr/bin/env bash
# Build the documentation site (docs/, mkdocs.yml) into site/ with `mkdocs build --strict`: a
# warning (a broken link or anchor, a page missing from the nav, a snippet that is not there)
# fails the build, and so CI (.ci/run).  Extra arguments go to mkdocs build.
#
# The site's tools live in their own environment, .venv-docs (NLP_GATE_DOCS_VENV names another),
# so the project's .venv never changes for them: requirements-docs.txt, pinned by
# constraints.txt.  Idempotent like scripts/setup.sh: they are installed again only when the
# interpreter's version, requirements-docs.txt or the lock changed (a stamp file in the venv).
# NLP_GATE_DOCS_PYTHON chooses the interpreter (default python3.11, as the pins were made on).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${NLP_GATE_DOCS_PYTHON:-python3.11}
VENV=${NLP_GATE_DOCS_VENV:-.venv-docs}
LOCK=constraints.txt

ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
if [ -z "$ver" ]; then
  echo "docs: cannot run $PY; install Python 3.11 or point NLP_GATE_DOCS_PYTHON at one" >&2
  exit 1
fi
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$ver" ]; then
  echo "docs: $VENV was made by another Python than $ver: creating it anew"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "docs: creating $VENV with Python $ver ($PY)"
  "$PY" -m venv "$VENV"
fi

stamp=$VENV/.nlp-gate-docs-pins
pins=$( (echo "python $ver"; cat requirements-docs.txt "$LOCK") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$pins" ]; then
  echo "docs: installing the site's tools into $VENV (requirements-docs.txt, $LOCK)"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q \
    -r requirements-docs.txt -c "$LOCK"
  echo "$pins" > "$stamp"
fi
NO_MKDOCS_2_WARNING=1 exec "$VENV/bin/mkdocs" build --strict --site-dir site "$@"
