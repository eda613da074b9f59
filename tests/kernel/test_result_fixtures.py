"""Golden results: what the real kernel returns for one cell of each kind, kept as JSON under
tests/fixtures/kernel-results/. tests/js/contract.test.ts feeds the same files through the host's
validator, so the kernel and the host's schema cannot drift apart unnoticed.

`WASMBOX_UPDATE_FIXTURES=1 pytest tests/kernel/test_result_fixtures.py` rewrites them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel-results"

CASES = [
    pytest.param("print('hello')", {}, id="print-success"),
    pytest.param("x = {'a': [1, 2]}\nx", {}, id="json-value"),
    pytest.param("def f():\n    return 1 / 0\nf()", {}, id="error-with-traceback"),
    pytest.param(
        "class Both:\n    def _repr_html_(self):\n        return '<b>x</b>'\n"
        "    def __repr__(self):\n        return 'Both()'\ndisplay(Both())",
        {},
        id="display",
    ),
    pytest.param("open('out/r.csv', 'w').write('a,b\\n')", {"mkdir": "out"}, id="file-written"),
    pytest.param("print('x' * 50)", {"stdout_limit": 10}, id="truncated"),
    pytest.param("import js", {}, id="policy-violation"),
    pytest.param("import sys\nprint('warn', file=sys.stderr)\n42", {}, id="stderr-and-value"),
    pytest.param("d = {'price': 1, 'item': 2}\nd['prices']", {}, id="error-with-hint"),
    pytest.param("x = 1", {}, id="ok-with-hint"),
]


@pytest.mark.parametrize(("code", "setup"), CASES)
def test_golden_result(
    request: pytest.FixtureRequest,
    make_kernel: Any,
    run: Any,
    tmp_path: Path,
    code: str,
    setup: dict[str, Any],
) -> None:
    if "mkdir" in setup:
        (tmp_path / setup.pop("mkdir")).mkdir()
    result = run(make_kernel(**setup), code)
    name = request.node.callspec.id
    path = FIXTURES / f"{name}.json"
    text = json.dumps(result, indent=2, sort_keys=True) + "\n"
    if os.environ.get("WASMBOX_UPDATE_FIXTURES") == "1":
        FIXTURES.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: run with WASMBOX_UPDATE_FIXTURES=1"
    assert json.loads(path.read_text()) == json.loads(text)
