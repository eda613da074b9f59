#!/usr/bin/env bash
# llama-cpp-python's OpenAI-compatible server for the real-model tests and `make bench-agent`, in its
# own virtualenv (~/.cache/wasmbox/llama/venv-$VERSION) so its pins never touch the project's.
# The wheel builds from source (about 10 minutes on 2 cores) once, then comes from the cache.
set -euo pipefail
VERSION=0.3.36
CACHE="${WASMBOX_CACHE:-$HOME/.cache/wasmbox}/llama"
VENV="$CACHE/venv-$VERSION"
PYTHON="${PYTHON:-python3}"
if "$VENV/bin/python" -c "import llama_cpp, llama_cpp.server, sse_starlette, starlette_context" 2>/dev/null; then
  exit 0
fi
mkdir -p "$CACHE"
wheel=$(ls "$CACHE"/llama_cpp_python-$VERSION-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ]; then
  if ! command -v cc >/dev/null || ! command -v c++ >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential >/dev/null
    else
      echo "llama-cpp-python builds from source: install a C/C++ compiler (build-essential)." >&2
      exit 1
    fi
  fi
  echo "Building llama-cpp-python $VERSION (once, about 10 minutes on 2 cores) into $CACHE"
  "$PYTHON" -m pip wheel -q --disable-pip-version-check --no-deps "llama-cpp-python==$VERSION" -w "$CACHE"
  wheel=$(ls "$CACHE"/llama_cpp_python-$VERSION-*.whl | head -n1)
fi
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "$wheel[server]"
"$VENV/bin/python" -c "import llama_cpp.server" 
