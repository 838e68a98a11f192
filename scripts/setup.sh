#!/usr/bin/env bash
# Makes the machine ready to run the companion (or its tests): Debian packages,
# a virtual environment in .venv and the Python packages from pyproject.toml.
# Idempotent and quiet when there is nothing to do.
# Usage: scripts/setup.sh [runtime|dev|hall]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
profile="${1:-runtime}"
cd "$root"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages, one per line (comments allowed): scripts/debian-packages.txt,
# what the companion needs on the Pi; for the tests also
# scripts/debian-packages-dev.txt (a browser, a sound server, systemd's tools),
# never installed by `setup.sh` alone (./run). Without their recommends: on a
# fresh Debian those pulled in GTK, a notification daemon, printer set-up and a
# C compiler (docs/club-setup.md, "The two commands").
lists=(scripts/debian-packages.txt)
[ "$profile" = dev ] && lists+=(scripts/debian-packages-dev.txt)
[ "$profile" = hall ] && lists+=(scripts/debian-packages-hall.txt)  # the hall's machine (docs/hall.md)
missing=()
while read -r pkg _; do
  [ -z "$pkg" ] || [ "${pkg#\#}" != "$pkg" ] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < <(cat "${lists[@]}")
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

python=""
for candidate in python3 python3.13 python3.12 python3.11; do
  if command -v "$candidate" >/dev/null \
     && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python="$candidate"; break
  fi
done
[ -n "$python" ] || { echo "setup: Python 3.11 or newer is needed" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $python" >&2
  "$python" -m venv .venv
fi

extra=""; [ "$profile" = dev ] && extra="[dev]"
stamp=".venv/.installed-$profile"
want="$(cat pyproject.toml "${lists[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing Python packages ($profile); log in .venv/setup.log" >&2
  if ! { .venv/bin/python -m pip install -q --upgrade pip \
         && .venv/bin/python -m pip install -q -e ".$extra"; } >.venv/setup.log 2>&1; then
    tail -n 20 .venv/setup.log >&2
    echo "setup: installing Python packages failed; see .venv/setup.log" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi
