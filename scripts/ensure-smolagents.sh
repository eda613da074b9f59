#!/usr/bin/env bash
# smolagents (the peer row of `make bench-agent`) in its own virtualenv
# (~/.cache/wasmbox/smolagents/venv-$VERSION), never in the project's dependencies. numpy, pandas
# and matplotlib go in too, so its native executor can run what the tasks ask for.
set -euo pipefail
VERSION=1.25.0
VENV="${WASMBOX_CACHE:-$HOME/.cache/wasmbox}/smolagents/venv-$VERSION"
PYTHON="${PYTHON:-python3}"
if "$VENV/bin/python" -c "import smolagents, openai, numpy, pandas, matplotlib" 2>/dev/null; then
  exit 0
fi
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "smolagents[openai]==$VERSION" numpy pandas matplotlib
"$VENV/bin/python" -c "import smolagents"
