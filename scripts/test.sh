#!/usr/bin/env bash
# The project's own tests: set up, then run tests/.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The attack items' tests need what the offline recipes read (Debian word lists, the zoo's
# masked LM); without them those items skip and the tests that expect them fail.  Once per
# clone (a no-op after); it never fails this job.
bash scripts/provision_attacks.sh
exec .venv/bin/python -m pytest tests -n 2 -p no:cacheprovider "$@"
