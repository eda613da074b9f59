#!/usr/bin/env bash
# Makes sure the browser tests have a Chromium: $WASMBOX_BROWSER, Playwright's own, or Debian's.
# Installs Debian's chromium with apt-get when none is present and we may (root, apt available).
set -euo pipefail
cd "$(dirname "$0")/.."
if .venv/bin/python -m tests.support.browser >/dev/null 2>&1; then
  exit 0
fi
if [ -n "${WASMBOX_BROWSER:-}" ]; then
  echo "WASMBOX_BROWSER=$WASMBOX_BROWSER is not an executable file." >&2
  exit 1
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "No Chromium found: installing Debian's chromium (apt-get)."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "No Chromium found. Install one (apt-get install chromium, or 'playwright install chromium')," >&2
echo "or point WASMBOX_BROWSER at a Chromium executable." >&2
exit 1
