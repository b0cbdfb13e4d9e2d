#!/usr/bin/env bash
# The project's own tests: set up, then run tests/.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest tests -n 2 -p no:cacheprovider "$@"
