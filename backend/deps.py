"""Dependency aliases, so routes say what they need and tests can override it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from backend.settings import Settings, get_settings

SettingsDep = Annotated[Settings, Depends(get_settings)]
