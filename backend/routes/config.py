"""What the web page needs to know before it talks to the model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from backend.deps import SettingsDep
from backend.settings import HOW_TO_CONFIGURE

router = APIRouter()


@router.get("/config")
def config(settings: SettingsDep) -> dict[str, Any]:
    return {
        "models": settings.models,
        "streaming": settings.streaming,
        "llmConfigured": settings.llm_configured,
        "howToConfigure": None if settings.llm_configured else HOW_TO_CONFIGURE,
        "accessTokenRequired": settings.access_token is not None,
        "limits": {
            "maxBodyBytes": settings.max_body_bytes,
            "maxMessages": settings.max_messages,
            "maxMessageChars": settings.max_message_chars,
            "maxTokens": settings.max_tokens,
            "rateLimit": settings.rate_limit,
            "maxStreamsPerClient": settings.max_streams_per_client,
        },
    }
