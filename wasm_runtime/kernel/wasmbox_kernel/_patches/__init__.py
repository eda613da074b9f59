"""Work-arounds that reach into private APIs, kept here so an upgrade knows what to check.

Each targets Pyodide 0.27.7 (CPython 3.12.7). `tests/runtime/test_private_hooks.py` boots that
Pyodide in Node and checks that every hook below still exists with the shape used here.

- `zip_cache`: zipimport's `_zip_directory_cache` and `zipimporter._files` (CPython 3.12; 3.13
  stopped the eager re-reads this avoids, so the patch can go with it).
- `wheel_unpack`: `pyodide._package_loader.unpack_buffer`'s signature and its helpers
  `set_wheel_installer`, `install_datafiles`, `should_load_dynlib`, `to_js` (Pyodide 0.27.7).

The TypeScript side's private hooks are in `wasm_runtime/sandbox/pyodide-private.ts`.
"""
