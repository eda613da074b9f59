"""allowInstall: micropip confined to names the runtime ships (a stand-in micropip, CPython)."""

from __future__ import annotations

import types
from typing import Any

import pytest
from wasmbox_kernel.installs import InstallRefused, confine_micropip, refusal


def fake_micropip() -> tuple[types.ModuleType, list[Any]]:
    """A module with micropip's two functions, recording what reaches them."""
    calls: list[Any] = []
    module = types.ModuleType("micropip")

    async def install(requirements: Any, *args: Any, **kwargs: Any) -> None:
        calls.append(("install", requirements, args, kwargs))

    def set_index_urls(urls: Any) -> None:
        calls.append(("set_index_urls", urls))

    module.install = install  # type: ignore[attr-defined]
    module.set_index_urls = set_index_urls  # type: ignore[attr-defined]
    module.package_index = types.SimpleNamespace(  # type: ignore[attr-defined]
        DEFAULT_INDEX_URLS=["https://pypi.org/simple"]
    )
    return module, calls


@pytest.mark.parametrize(
    "requirement",
    [
        "https://example.com/evil-1.0-py3-none-any.whl",
        "http://127.0.0.1:9/x.whl",
        "emfs:/home/pyodide/x-1.0-py3-none-any.whl",
        "x-1.0-py3-none-any.whl",
        "evil @ https://example.com/evil.tar.gz",
        "file:///etc/passwd",
    ],
)
def test_locations_are_refused(requirement: str) -> None:
    assert refusal(requirement, None, None) is not None
    assert refusal(["six", requirement], None, None) is not None
    assert refusal("six", None, [requirement]) is not None


def test_names_and_versions_pass() -> None:
    assert refusal(["six", "tabulate==0.10.0", "pandas>=2; python_version>'3'"], None, None) is None


def test_an_index_is_refused() -> None:
    assert "index_urls" in str(refusal("six", ["https://pypi.org/simple"], None))


def test_confined_micropip_empties_the_index_and_refuses_before_installing(
    run_async: Any,
) -> None:
    module, calls = fake_micropip()
    confine_micropip(module)
    confine_micropip(module)  # a second kernel in the same worker changes nothing

    assert calls == [("set_index_urls", [])]
    assert module.package_index.DEFAULT_INDEX_URLS == []
    run_async(module.install("six"))
    assert calls[-1][:2] == ("install", "six")
    with pytest.raises(InstallRefused, match="URLs, paths and wheel files are refused"):
        run_async(module.install("https://example.com/x-1.0-py3-none-any.whl"))
    with pytest.raises(InstallRefused, match="index_urls"):
        run_async(module.install("six", index_urls="https://pypi.org/simple"))
    with pytest.raises(InstallRefused):
        module.set_index_urls(["https://pypi.org/simple"])
    assert len(calls) == 2


def test_the_note_says_what_installs_can_do(make_kernel: Any) -> None:
    allowed = " ".join(make_kernel(allow_install=True).environment()["notes"])
    refused = " ".join(make_kernel().environment()["notes"])
    assert "micropip.install(name) installs only packages listed here" in allowed
    assert "No package installs" in refused
