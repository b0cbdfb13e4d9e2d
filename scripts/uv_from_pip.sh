# Sourced by scripts/setup.sh: pip's configuration, as uv's command-line options.
#
# uv reads no pip configuration, and where packages come from is in it: a team's mirror
# (index-url), a folder of wheels (find-links: this machine's CPU torch, without which uv
# would bring torch with gigabytes of CUDA), a machine-wide constraints file, a CA bundle.
# `pip config list` shows what pip itself would use, from its files ("global.KEY" and
# "install.KEY") and from PIP_* variables (":env:.KEY"); for each key, the one pip gives
# precedence to (the variable over the [install] section over [global]) is handed on.
#
# uv_args_from_pip PYTHON: fills the array UV_ARGS and exports SSL_CERT_FILE for a `cert`;
# returns 1, naming the key, for a pip setting that would change what is installed and that
# uv cannot be told (the caller then installs with pip).
uv_args_from_pip() {
  local listing line scope key value r v
  local -A chosen=() rank=()
  listing=$("$1" -m pip config list 2>/dev/null) || listing=
  while IFS= read -r line; do
    [[ $line =~ ^([^.]*|:env:)\.([a-z-]+)=\'(.*)\'$ ]] || continue
    scope=${BASH_REMATCH[1]} key=${BASH_REMATCH[2]} value=${BASH_REMATCH[3]}
    case $scope in
      :env:) r=3 ;;
      install) r=2 ;;
      global) r=1 ;;
      *) continue ;;  # another command's section
    esac
    if [ "${rank[$key]:-0}" -lt "$r" ]; then
      chosen[$key]=$value rank[$key]=$r
    fi
  done <<< "$listing"
  # pip takes the best version from all its indexes; uv's default is the first index that
  # has the package at all.
  UV_ARGS=(--index-strategy unsafe-best-match)
  for key in "${!chosen[@]}"; do
    # A value written over several lines of a config file is listed with "\n" between them.
    value=${chosen[$key]//\\n/ }
    case $key in
      index-url) UV_ARGS+=(--index-url "$value") ;;
      extra-index-url) for v in $value; do UV_ARGS+=(--extra-index-url "$v"); done ;;
      find-links) for v in $value; do UV_ARGS+=(--find-links "$v"); done ;;
      constraint) for v in $value; do UV_ARGS+=(--constraint "$v"); done ;;
      trusted-host) for v in $value; do UV_ARGS+=(--allow-insecure-host "$v"); done ;;
      no-index) case $value in 1|true|yes|on) UV_ARGS+=(--no-index) ;; esac ;;
      cert) export SSL_CERT_FILE=$value ;;
      # What only changes how pip talks or prints.
      timeout|default-timeout|retries|disable-pip-version-check|progress-bar|quiet|verbose|\
no-color|no-input|cache-dir|no-cache-dir|root-user-action|break-system-packages) ;;
      config-file) ;;  # where pip read the settings listed beside it
      *) echo "setup: pip's configuration sets '$key', which uv is not told" >&2; return 1 ;;
    esac
  done
}
