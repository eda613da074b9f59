"""A UTC entry in the system time-zone directory, which Pyodide does not have.

Without it `dateutil.tz.gettz("UTC")`, which pandas calls while it is imported, finds no system
zone and parses every zone in dateutil's bundled tarball: about 0.2 s of each sandbox's first
`import pandas`. `zoneinfo.ZoneInfo("UTC")` works with it too. Other zones behave as before.
"""

from __future__ import annotations

import os
import struct
import sys

ZONEINFO = "/usr/share/zoneinfo"


def utc_tzif() -> bytes:
    """UTC in the TZif format (RFC 8536, version 2): no transitions and one local time type."""
    # Counts: UT/local indicators, standard/wall indicators, leap seconds, transitions, types,
    # characters of abbreviations.
    header = b"TZif2" + bytes(15) + struct.pack(">6l", 0, 0, 0, 0, 1, 4)
    data = struct.pack(">lBB", 0, 0, 0) + b"UTC\0"  # offset 0, not DST, abbreviation "UTC"
    # The version 1 block, the version 2 block (the same: no transitions to widen), the TZ rule.
    return header + data + header + data + b"\nUTC0\n"


def ensure_utc_zone(zoneinfo: str = ZONEINFO) -> None:
    """Write `zoneinfo`/UTC in a sandbox that has none; never on a real system."""
    path = os.path.join(zoneinfo, "UTC")
    if sys.platform != "emscripten" or os.path.exists(path):
        return
    os.makedirs(zoneinfo, exist_ok=True)
    with open(path, "wb") as file:
        file.write(utc_tzif())
