"""The UTC zone file written for sandboxes: valid for both readers, and never on a real system."""

from __future__ import annotations

import io
import zoneinfo
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from dateutil.tz import tzfile  # type: ignore[import-untyped]
from wasmbox_kernel import timezones


@pytest.fixture
def in_a_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "emscripten")


@pytest.mark.usefixtures("in_a_sandbox")
def test_the_written_zone_is_utc_for_dateutil_and_zoneinfo(tmp_path: Path) -> None:
    timezones.ensure_utc_zone(str(tmp_path / "zoneinfo"))
    data = (tmp_path / "zoneinfo" / "UTC").read_bytes()
    moment = datetime(2024, 7, 1, 12)

    for zone in (tzfile(io.BytesIO(data)), zoneinfo.ZoneInfo.from_file(io.BytesIO(data))):
        assert zone.utcoffset(moment) == timedelta(0)
        assert zone.dst(moment) == timedelta(0)
        assert zone.tzname(moment) == "UTC"


@pytest.mark.usefixtures("in_a_sandbox")
def test_an_existing_zone_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "UTC").write_bytes(b"a real database")
    timezones.ensure_utc_zone(str(tmp_path))
    assert (tmp_path / "UTC").read_bytes() == b"a real database"


def test_nothing_is_written_outside_a_sandbox(tmp_path: Path) -> None:
    timezones.ensure_utc_zone(str(tmp_path / "zoneinfo"))
    assert not (tmp_path / "zoneinfo").exists()
