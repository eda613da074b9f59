"""The pydantic `ExecutionResult` has the SDK's result schema's fields, and reads the same recorded
results the TS parser is checked on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from wasmbox import Environment, ExecutionResult
from wasmbox.results import OUTCOMES, result_json_schema

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "sdk-results").glob("*.json"))


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


ENVIRONMENTS = sorted(
    (Path(__file__).parent.parent / "fixtures" / "sdk-environments").glob("*.json")
)


@pytest.mark.parametrize("path", ENVIRONMENTS, ids=[p.stem for p in ENVIRONMENTS])
def test_environment_fixture_round_trips(path: Path) -> None:
    wire = json.loads(path.read_text())
    env = Environment.model_validate(wire)
    assert env.wire() == wire
    with pytest.raises(ValidationError, match="extra"):
        Environment.model_validate({**wire, "newField": 1})


GOLDEN = sorted((Path(__file__).parent.parent / "fixtures" / "kernel-results").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_real_kernels_results_read_as_execution_results(path: Path) -> None:
    """The kernel's golden results plus the SDK's two fields are an ExecutionResult, unchanged."""
    wire = {**json.loads(path.read_text()), "durationMs": 1.5, "stateLost": False}
    assert ExecutionResult.model_validate(wire).wire() == wire


def fields(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """An object schema as {field: (required, its fields)}, recursively; lists by their items.

    Nullable fields and $refs (pydantic's) are looked through, so two schemas of one shape
    compare equal whatever their style."""
    if "$ref" in schema:
        return fields(root["$defs"][schema["$ref"].rsplit("/", 1)[1]], root)
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
        assert len(branches) == 1, schema
        return fields(branches[0], root)
    if schema.get("type") == "array":
        return [fields(schema["items"], root)]
    if "properties" in schema:
        required = set(schema.get("required", []))
        return {
            name: (name in required, fields(field, root))
            for name, field in schema["properties"].items()
        }
    # JSON has one number type: Python's int fields (byte counts) read what the SDK's numbers hold.
    return "number" if schema.get("type") == "integer" else schema.get("type")


def test_the_model_has_the_sdk_schemas_fields() -> None:
    """Field names (camelCase), which are required, and their nesting, as protocol/schema.ts."""
    sdk = result_json_schema()
    model = ExecutionResult.model_json_schema(by_alias=True)
    assert fields(model, model) == fields(sdk, sdk)


def test_the_comparison_sees_a_missing_nested_field() -> None:
    sdk = result_json_schema()
    model = ExecutionResult.model_json_schema(by_alias=True)
    del model["$defs"]["StateRestored"]["properties"]["reason"]
    assert fields(model, model) != fields(sdk, sdk)


def test_the_outcomes_are_the_protocols() -> None:
    assert OUTCOMES[0] == "OUTCOME_OK" and len(OUTCOMES) == len(set(OUTCOMES)) == 6
    for outcome in OUTCOMES:
        wire = {**json.loads(FIXTURES[0].read_text()), "outcome": outcome}
        assert ExecutionResult.model_validate(wire).outcome == outcome


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_is_valid_for_the_sdk_schema(path: Path) -> None:
    jsonschema.validate(json.loads(path.read_text()), result_json_schema())
