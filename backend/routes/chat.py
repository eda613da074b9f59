"""`POST /api/chat/completions`: the OpenAI-compatible proxy, with the server's key."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack

from fastapi import APIRouter, Depends, Request, Response
from pydantic import ValidationError

from backend.deps import ProxyDep, SettingsDep
from backend.guards import client_key, read_body, refuse_cross_site, require_access
from backend.proxy.errors import BodyTooLarge, InvalidBody, ModelNotAllowed, NotConfigured
from backend.proxy.schema import ChatRequest
from backend.proxy.streaming import RelayResponse
from backend.proxy.upstream import complete, open_stream
from backend.settings import HOW_TO_CONFIGURE, Settings

log = logging.getLogger("wasmbox.proxy")


router = APIRouter(dependencies=[Depends(refuse_cross_site), Depends(require_access)])


def parse_chat(raw: bytes, settings: Settings) -> ChatRequest:
    try:
        body = ChatRequest.model_validate_json(raw)
    except ValidationError as exc:
        # Only where and why: the input itself (the prompt) is not echoed back.
        errors = [{"loc": e["loc"], "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        raise InvalidBody(
            "the body is not a chat-completions request this server accepts", errors
        ) from None
    if body.model not in settings.models:
        offered = ", ".join(settings.models)
        raise ModelNotAllowed(f"model {body.model[:100]!r} is not offered here; choose: {offered}")
    if len(body.messages) > settings.max_messages:
        raise BodyTooLarge(f"more than {settings.max_messages} messages")
    if body.message_chars() > settings.max_message_chars:
        raise BodyTooLarge(f"the messages are over {settings.max_message_chars} characters")
    return body


@router.post("/chat/completions")
async def chat_completions(
    request: Request,
    settings: SettingsDep,
    proxy: ProxyDep,
) -> Response:
    if not settings.llm_configured:
        raise NotConfigured(HOW_TO_CONFIGURE)
    client = client_key(request)
    await proxy.budget.spend(client)
    body = parse_chat(await read_body(request, settings.max_body_bytes), settings)
    forwarded = body.upstream_body(settings.max_tokens, settings.default_temperature)
    # Never the messages themselves: prompts and generated code stay out of the logs.
    log.info("chat model=%s stream=%s messages=%d", body.model, body.stream, len(body.messages))
    if not body.stream:
        answer = await complete(proxy.upstream, forwarded)
        return Response(answer, media_type="application/json")

    proxy.slots.acquire(client)
    cleanup = AsyncExitStack()
    cleanup.callback(proxy.slots.release, client)
    try:
        chunks = await cleanup.enter_async_context(open_stream(proxy.upstream, forwarded))
    except BaseException:
        await cleanup.aclose()
        raise
    return RelayResponse(chunks, on_close=cleanup.aclose)
