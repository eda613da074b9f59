"""The pydantic `ExecutionResult` reads the same recorded results the TS parser is checked on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from wasmbox import Environment, ExecutionResult

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "execution-results").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_round_trips(path: Path) -> None:
    wire = json.loads(path.read_text())
    result = ExecutionResult.model_validate(wire)
    assert result.wire() == wire


def test_a_field_only_one_side_knows_is_refused() -> None:
    wire = json.loads(FIXTURES[0].read_text())
    with pytest.raises(ValidationError, match="extra"):
        ExecutionResult.model_validate({**wire, "newField": 1})
    del wire["stateLost"]
    with pytest.raises(ValidationError, match="stateLost"):
        ExecutionResult.model_validate(wire)


def test_an_unknown_outcome_is_refused() -> None:
    wire = json.loads(FIXTURES[0].read_text())
    with pytest.raises(ValidationError, match="outcome"):
        ExecutionResult.model_validate({**wire, "outcome": "OUTCOME_MAYBE"})


def test_convenience_views() -> None:
    by_name = {p.stem: ExecutionResult.model_validate_json(p.read_text()) for p in FIXTURES}
    assert by_name["ok-value"].ok and by_name["ok-value"].text == "42"
    assert not by_name["failed-error"].ok and by_name["failed-error"].text is None
    assert [d.mime for d in by_name["display-and-file"].images()] == ["image/png"]


ENVIRONMENTS = sorted((Path(__file__).parent.parent / "fixtures" / "environment").glob("*.json"))


@pytest.mark.parametrize("path", ENVIRONMENTS, ids=[p.stem for p in ENVIRONMENTS])
def test_environment_fixture_round_trips(path: Path) -> None:
    wire = json.loads(path.read_text())
    env = Environment.model_validate(wire)
    assert env.wire() == wire
    with pytest.raises(ValidationError, match="extra"):
        Environment.model_validate({**wire, "newField": 1})


GOLDEN = sorted((Path(__file__).parent.parent / "fixtures" / "results").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_real_kernels_results_read_as_execution_results(path: Path) -> None:
    """The kernel's golden results plus the SDK's two fields are an ExecutionResult, unchanged."""
    wire = {**json.loads(path.read_text()), "durationMs": 1.5, "stateLost": False}
    assert ExecutionResult.model_validate(wire).wire() == wire
