#!/usr/bin/env bash
# Creates .venv at the repository root and installs the pinned dependencies; installs Debian's bubblewrap
# (the sandbox) and chromium (browser tests) where we are root and they are missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$( (cat requirements.lock pyproject.toml) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.lock
  .venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
  echo "$want" > "$stamp"
fi

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]} from Debian's packages"
    (apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; }) ||
      echo "setup: could not install ${missing[*]}; the sandbox falls back to unshare and browser tests skip"
  else
    echo "setup: please install ${missing[*]} (Debian: apt-get install ${missing[*]})"
  fi
fi
