"""`wasmbox build`: assembles the offline Pyodide distribution served under `/runtime/`.

Steps, in order: core files from the npm package → official wheels verified against the npm
package's pyodide-lock.json → pinned pure-Python extras from PyPI → the kernel wheel → a pruned
lock with the extras and the kernel added by `pyodide-lock` → pre-compressed variants → manifest.
"""

from wasm_runtime.builder.build import BuildOptions, build_runtime
from wasm_runtime.builder.errors import BuildError, HashMismatchError

__all__ = ["BuildError", "BuildOptions", "HashMismatchError", "build_runtime"]
