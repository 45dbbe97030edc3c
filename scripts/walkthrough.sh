#!/usr/bin/env bash
# Runs the README's curl walk-through (the ```sh blocks between the walkthrough markers) against a
# running server, in a scratch directory:  scripts/walkthrough.sh [BASE_URL]
# (default http://127.0.0.1:8000). tests/platform/test_walkthrough.py runs it against a live
# service, so the README cannot drift from what the server does.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="${1:-http://127.0.0.1:8000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

awk '
  /<!-- walkthrough:start -->/ { on = 1 }
  /<!-- walkthrough:end -->/   { on = 0 }
  on && /^```sh$/              { code = 1; next }
  code && /^```$/              { code = 0; print ""; next }
  code                         { print }
' "$ROOT/README.md" | sed "s|^B=http://127.0.0.1:8000\$|B=$BASE|" > "$WORK/walkthrough.sh"

if ! grep -q "^B=$BASE\$" "$WORK/walkthrough.sh"; then
    echo "walkthrough: no walk-through found in README.md" >&2
    exit 1
fi
cd "$WORK"
exec bash -euo pipefail walkthrough.sh
