"""Replies over a cap end their call with a typed error that names the cap; nothing waits forever.

Each call is raced against a generous timer in the page, so a call that never settles fails the
test as "still waiting" instead of hanging it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

WAIT_MS = 90_000
CAP_BYTES = 100 * 1024 * 1024
MAX_LISTED = 10_000

SETTLE_OR_WAIT = """
async ([id, method, args, code, waitMs]) => {
    const sb = wasmbox.Sandbox.get(id);
    const still = new Promise((resolve) => setTimeout(resolve, waitMs, "still waiting"));
    const ran = await Promise.race([sb.execute(code, { timeoutMs: waitMs }), still]);
    if (ran === "still waiting") return { stage: "execute", ran };
    const call = sb[method](...args).then(
        (value) => ({ value: Array.isArray(value) ? value.length : String(value) }),
        (e) => ({ name: e.name, type: e.type, message: e.message, path: e.path ?? null,
                  size: e.size ?? null, limit: e.limit ?? null }),
    );
    const settled = await Promise.race([call, still]);
    const files = ran.files.length;
    return { stage: method, outcome: ran.outcome, error: ran.error, files, settled };
}
"""


def settle(sdk: SdkPage, sandbox: str, code: str, method: str, *args: Any) -> dict[str, Any]:
    result: dict[str, Any] = sdk.page.evaluate(
        SETTLE_OR_WAIT, [sandbox, method, list(args), code, WAIT_MS]
    )
    return result


def test_a_file_over_the_cap_is_reported_not_waited_on(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    code = f"with open('big.bin', 'wb') as f:\n    f.truncate({CAP_BYTES + 1})"
    out = settle(sdk, sandbox, code, "readFile", "big.bin")
    assert out["stage"] == "readFile", out
    assert out["outcome"] == "OUTCOME_OK" and out["files"] == 1
    error = out["settled"]
    assert error["name"] == "SandboxError" and error["type"] == "limit_exceeded", error
    assert (error["path"], error["size"], error["limit"]) == ("big.bin", CAP_BYTES + 1, CAP_BYTES)
    assert "big.bin" in error["message"] and str(CAP_BYTES) in error["message"]
    assert sdk.run(sandbox, "print('still serving')")["stdout"] == "still serving\n"
    sdk.call(sandbox, "close")


def test_a_listing_over_the_cap_is_reported_not_waited_on(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    code = (
        "import os\nos.mkdir('many')\n"
        f"for i in range({MAX_LISTED + 1}):\n    open(f'many/{{i}}', 'w').close()"
    )
    out = settle(sdk, sandbox, code, "listFiles")
    assert out["stage"] == "listFiles", out
    assert out["outcome"] == "OUTCOME_OK", out
    error = out["settled"]
    assert error["name"] == "SandboxError" and error["type"] == "limit_exceeded", error
    assert error["limit"] == MAX_LISTED and error["size"] > MAX_LISTED
    assert str(MAX_LISTED) in error["message"]
    assert sdk.run(sandbox, "import shutil; shutil.rmtree('many')")["outcome"] == "OUTCOME_OK"
    assert sdk.call(sandbox, "listFiles") == []
    sdk.call(sandbox, "close")
