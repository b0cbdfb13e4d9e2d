# Sourced by the scripts that create environments: find the interpreter a name asks for.
#
# py_version CMD: the interpreter's X.Y, or nothing when it does not run.
# resolve_python NAME: prints the command or path to run for NAME (python3.11, a path, ...).
# A pyenv shim answers "command not found" for a version pyenv has installed but not
# selected; then that version's own interpreter (the newest patch release) is printed.
py_version() {
  "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}
resolve_python() {
  local name=$1 cand root
  if [ -n "$(py_version "$name")" ]; then echo "$name"; return; fi
  if [[ $name =~ ^python(3\.[0-9]+)$ ]]; then
    root=${PYENV_ROOT:-$HOME/.pyenv}
    for cand in $(ls -d "$root"/versions/"${BASH_REMATCH[1]}".*/bin/"$name" 2>/dev/null | sort -V -r); do
      if [ -n "$(py_version "$cand")" ]; then echo "$cand"; return; fi
    done
  fi
  echo "$name"
}
