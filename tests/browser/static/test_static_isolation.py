"""The sandbox's isolation on a static host with no headers: the network and storage attacks of
tests/browser/sandbox/test_isolation.py, run unchanged against the exported folder (its `sdk`
fixture here is the export's SDK page), at the root and under a sub-path."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.test_isolation import (  # noqa: F401 (pytest collects and uses these)
    attacker,
    open_sandbox,
    test_forged_messages_on_the_page_are_ignored,
    test_no_request_reaches_another_server,
    test_sandbox_frame_is_an_opaque_origin,
    test_the_app_storage_is_out_of_reach,
)

pytestmark = [pytest.mark.browser, pytest.mark.sub_path_in_chromium]
