#!/usr/bin/env bash
# What the offline TextAttack recipes read, provisioned as far as this machine allows
# (called by scripts/gate.sh, beside the zoo build, and by .ci/run, after scripts/setup.sh):
#   1. the Debian packages of nlp_gate.kinds.attacks.resources.DEBIAN_PACKAGES (WordNet, a
#      stop list, Unicode confusables), installed when we may: as root, or with sudo that
#      needs no password; otherwise one line saying which command to run;
#   2. `fetch_attack_resources.py --from-debian`: those laid out in the resource bundle;
#   3. `fetch_attack_resources.py --stand-ins`: the zoo's masked LM (minutes, once; from the
#      zoo's recipe, so it needs no built zoo), its progress on stderr, which the `sed`
#      below leaves alone (stage lines already start with `attacks: masked LM:`).
# Usage: bash scripts/provision_attacks.sh [debian|stand-ins]: steps 1-2, or step 3 alone
# (scripts/gate.sh runs them apart); no argument: all three.
# Never fails the caller: a recipe whose resource is missing skips, named, and the release
# gate verdict says how many attack items ran.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
phase=${1:-all}
case "$phase" in
  all|debian|stand-ins) ;;
  *) echo "provision_attacks: unknown step '$phase' (debian, stand-ins, or none for both)" >&2
     exit 0 ;;
esac
debian_resources() {
  local packages missing=() as_root=() install p
  read -r -a packages <<<"$($PY -c 'from nlp_gate.kinds.attacks.resources import DEBIAN_PACKAGES as p; print(*p)')"
  for p in "${packages[@]}"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" -ne 0 ] && as_root=(sudo -n)
    install=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq
             --no-install-recommends "${missing[@]}")
    if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
      "${install[@]}" >/tmp/nlp-gate-apt.log 2>&1 \
        || { "${as_root[@]}" apt-get update -qq >>/tmp/nlp-gate-apt.log 2>&1 \
             && "${install[@]}" >>/tmp/nlp-gate-apt.log 2>&1; } \
        || echo "attacks: apt-get install ${missing[*]} failed (see /tmp/nlp-gate-apt.log)"
    else
      echo "attacks: not installed: ${missing[*]}; run \`sudo apt-get install ${missing[*]}\`" \
           "and this job again, or the recipes that read them skip (named in the report)"
    fi
  fi
  $PY scripts/fetch_attack_resources.py --from-debian >/dev/null \
    || echo "attacks: Debian resources not laid out; the recipes that need them skip"
}

stand_ins() {
  $PY scripts/fetch_attack_resources.py --stand-ins | sed 's/^/attacks: stand-in /' \
    || echo "attacks: the zoo's masked LM was not built; bae/bert-attack/clare-offline skip"
}

[ "$phase" = stand-ins ] || debian_resources
[ "$phase" = debian ] || stand_ins
exit 0
