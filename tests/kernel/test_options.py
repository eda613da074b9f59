from __future__ import annotations

import pytest
from wasmbox_kernel import Kernel, KernelOptions


def test_defaults_match_the_design():
    options = KernelOptions()
    assert (options.stdout_limit, options.stderr_limit) == (1_000_000, 1_000_000)
    assert (options.stream_batch_bytes, options.stream_interval_s) == (8192, 0.05)
    assert (options.cwd, options.policy) == ("/home/pyodide", "default")
    assert options.allow_install is False
    assert options.cell_prefix == "cell"


def test_from_dict_builds_the_same_options():
    built = KernelOptions.from_dict({"stdout_limit": 10, "policy": "off", "cwd": "/tmp/x"})
    assert built == KernelOptions(stdout_limit=10, policy="off", cwd="/tmp/x")


def test_from_dict_rejects_unknown_keys():
    with pytest.raises(ValueError, match=r"unknown KernelOptions key\(s\): stdoutLimit"):
        KernelOptions.from_dict({"stdoutLimit": 10})


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"stdout_limit": -1}, id="negative-limit"),
        pytest.param({"stdout_limit": True}, id="bool-limit"),
        pytest.param({"recursion_limit": 10}, id="tiny-recursion-limit"),
        pytest.param({"stream_interval_s": "fast"}, id="interval-not-a-number"),
        pytest.param({"cell_prefix": "my cell"}, id="prefix-not-an-identifier"),
        pytest.param({"available_packages": {"numpy": 2}}, id="version-not-a-string"),
    ],
)
def test_bad_values_are_refused(data):
    with pytest.raises(ValueError):
        KernelOptions.from_dict(data)


@pytest.mark.parametrize(
    "policy",
    [
        pytest.param("strict", id="unknown-name"),
        pytest.param({"allowModules": ["js"], "blockAll": True}, id="unknown-key"),
        pytest.param({"denyModules": "js"}, id="not-a-list"),
        pytest.param({"allowModules": ["js"], "denyModules": ["js"]}, id="allowed-and-denied"),
        pytest.param({"maxCodeBytes": 0}, id="zero-code-size"),
    ],
)
def test_bad_policies_are_refused_when_the_kernel_is_made(policy, tmp_path):
    with pytest.raises(ValueError):
        Kernel(KernelOptions(cwd=str(tmp_path), policy=policy))
