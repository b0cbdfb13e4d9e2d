#!/usr/bin/env bash
# Render <reports>/allure-results into the single-file Allure 3 report
# <reports>/allure-report/index.html, offline, with the CLI pinned in package.json /
# package-lock.json (npm ci installs it once; generating needs no network).  History is kept
# in <reports>/allure-history.jsonl.  Usage: bash scripts/allure_html.sh [reports-dir]
set -euo pipefail
reports=$(realpath -m "${1:-reports}")
cd "$(dirname "$0")/.."
python=${NLP_GATE_PYTHON_BIN:-.venv/bin/python}
if ! command -v npx >/dev/null 2>&1; then
  echo "allure_html: Node.js (npx) not found; install nodejs and npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if [ ! -x node_modules/.bin/allure ]; then
  echo "allure_html: installing the pinned Allure CLI (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ ! -d "$reports/allure-results" ]; then
  echo "allure_html: $reports/allure-results not found; run the gate with --alluredir first" >&2
  exit 1
fi
rm -rf "$reports/allure-report"
NLP_GATE_REPORTS="$reports" npx --no-install allure generate "$reports/allure-results" \
  --config allurerc.mjs
# The page embeds a Google Analytics snippet; a release report must not phone home.
"$python" -m nlp_gate.report strip-analytics "$reports/allure-report/index.html"
echo "allure_html: $reports/allure-report/index.html"
