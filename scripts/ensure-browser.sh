#!/usr/bin/env bash
# Makes sure the browser tests have every engine WASMBOX_BROWSERS names (default: chromium):
# Chromium ($WASMBOX_BROWSER, Playwright's own, or Debian's), Firefox (firefox-esr, driven over
# WebDriver BiDi), WebKit (webkit2gtk-driver's MiniBrowser, with xvfb for its display).
# Installs the missing Debian packages with apt-get when we may (root, apt available).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
IFS=',' read -ra engines <<<"${WASMBOX_BROWSERS:-chromium}"
for engine in "${engines[@]}"; do
  case "$engine" in
    chromium)
      if ! .venv/bin/python -m tests.support.browser >/dev/null 2>&1; then
        if [ -n "${WASMBOX_BROWSER:-}" ]; then
          echo "WASMBOX_BROWSER=$WASMBOX_BROWSER is not an executable file." >&2
          exit 1
        fi
        missing+=(chromium)
      fi ;;
    firefox)
      command -v firefox-esr >/dev/null || [ -n "${WASMBOX_FIREFOX:-}" ] || missing+=(firefox-esr) ;;
    webkit)
      command -v WebKitWebDriver >/dev/null || missing+=(webkit2gtk-driver)
      command -v Xvfb >/dev/null || missing+=(xvfb) ;;
    "") ;;
    *) echo "WASMBOX_BROWSERS names an unknown engine: $engine (chromium, firefox, webkit)" >&2; exit 1 ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing ${missing[*]} (apt-get) for the browser engines: ${WASMBOX_BROWSERS:-chromium}."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "Missing for the browser engines (${WASMBOX_BROWSERS:-chromium}): ${missing[*]}." >&2
echo "Install them (apt-get install ${missing[*]}), or choose engines with WASMBOX_BROWSERS;" >&2
echo "WASMBOX_BROWSER may point at a Chromium executable." >&2
exit 1
