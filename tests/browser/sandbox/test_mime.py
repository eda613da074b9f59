"""One MIME table: a file's `mime` in `listFiles()` (the worker) is its `mime` in `result.files`
(the kernel), for known, upper-case and unknown extensions alike."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

NAMES = [
    "t.csv",
    "n.md",
    "d.parquet",
    "p.GIF",
    "x.jsonl",
    "s.sqlite",
    "a.unknownext",
    "dir.v2/noext",
]


def test_listing_and_result_agree_on_mime(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    code = "import os\nos.makedirs('dir.v2')\n" + "".join(
        f"open({name!r}, 'w').write('x')\n" for name in NAMES
    )
    result = sdk.run(sandbox, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    from_run = {f["path"]: f["mime"] for f in result["files"]}
    listed = {f["path"]: f["mime"] for f in sdk.call(sandbox, "listFiles")}
    assert sorted(from_run) == sorted(NAMES)
    assert listed == from_run
    assert (
        from_run["p.GIF"] == "image/gif" and from_run["a.unknownext"] == "application/octet-stream"
    )
    sdk.call(sandbox, "close")
