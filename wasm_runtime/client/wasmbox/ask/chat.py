"""The model requests of the page's Agent, made here with the `openai` package.

The page starts a request (`start`), then pulls what has arrived (`next`) until the reply is done;
`cancel` closes it. Deltas have the shape of the SDK's `ChatDelta` (`choices[0].delta` plus
`finishReason`; a non-streamed reply is one delta), and every failure is a `ChatError`'s fields
(`type`: http, network, empty-stream, cut-stream, malformed), so the Agent treats these requests
exactly as its own over HTTP: the non-stream fallback, the `content: null` retry, the hints.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam, ChatCompletionToolParam

Delta = dict[str, Any]


def openai_client() -> openai.AsyncOpenAI:
    """The official client on OPENAI_BASE_URL / OPENAI_API_KEY (a local server needs no key).

    It does not retry: the Agent decides what a failure means (a refused `content: null` is sent
    again with `""`, an empty stream again without streaming) and shows the rest, as over its own
    HTTP; the client's retries sent each refused request three times."""
    key = os.environ.get("OPENAI_API_KEY") or (
        "unused" if os.environ.get("OPENAI_BASE_URL") else None
    )
    return openai.AsyncOpenAI(api_key=key, max_retries=0)


class ChatFailure(Exception):
    """A failed request, as the fields of the SDK's ChatError."""

    def __init__(
        self,
        kind: str,
        message: str,
        status: int | None = None,
        code: str | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.fields = {
            "type": kind,
            "message": message,
            "status": status,
            "code": code,
            "retryAfterS": retry_after_s,
        }


@dataclass
class Reply:
    """One request in flight: its deltas queue up until the page takes them."""

    task: asyncio.Task[None] | None = None
    queue: asyncio.Queue[Delta | ChatFailure | None] = field(default_factory=asyncio.Queue)


class ChatStreams:
    """The requests one Agent makes, by id."""

    def __init__(self, client: openai.AsyncOpenAI) -> None:
        self.client = client
        self._replies: dict[int, Reply] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # cancelled ones too, until they let go
        self._ids = itertools.count(1)

    def start(self, request: dict[str, Any]) -> int:
        reply_id = next(self._ids)
        reply = Reply()
        reply.task = asyncio.ensure_future(self._produce(request, reply.queue))
        self._tasks.add(reply.task)
        reply.task.add_done_callback(self._tasks.discard)
        self._replies[reply_id] = reply
        return reply_id

    async def next(self, reply_id: int) -> dict[str, Any]:
        """What arrived since the last call (waiting for at least one thing)."""
        reply = self._replies.get(reply_id)
        if reply is None:
            return {"deltas": [], "done": True, "error": None}
        items = [await reply.queue.get()]
        while not reply.queue.empty():
            items.append(reply.queue.get_nowait())
        deltas = [item for item in items if isinstance(item, dict)]
        error = next((item.fields for item in items if isinstance(item, ChatFailure)), None)
        done = error is not None or None in items
        if done:
            del self._replies[reply_id]
        return {"deltas": deltas, "done": done, "error": error}

    def cancel(self, reply_id: int) -> None:
        reply = self._replies.pop(reply_id, None)
        if reply is not None and reply.task is not None:
            reply.task.cancel()

    async def close(self) -> None:
        """Cancel every request still in flight, and wait until they have let go."""
        tasks = list(self._tasks)
        self._replies.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _produce(self, request: dict[str, Any], queue: asyncio.Queue[Any]) -> None:
        received = 0
        try:
            async for delta in self._deltas(request):
                received += 1
                queue.put_nowait(delta)
            queue.put_nowait(None)
        except ChatFailure as failure:
            queue.put_nowait(failure)
        except openai.APIStatusError as exc:
            queue.put_nowait(status_failure(exc))
        except (openai.APIConnectionError, httpx.TransportError) as exc:
            kind = "cut-stream" if received else "network"
            queue.put_nowait(ChatFailure(kind, f"{type(exc).__name__}: {exc}"))
        except openai.APIError as exc:  # an error sent inside the stream
            queue.put_nowait(ChatFailure("cut-stream", exc.message, code=text_or_none(exc.code)))
        except ValueError as exc:  # JSON that does not parse
            queue.put_nowait(ChatFailure("malformed", f"the model's answer is not JSON: {exc}"))
        except asyncio.CancelledError:
            queue.put_nowait(None)  # a `next` waiting on it returns: the page stops reading
            raise

    async def _deltas(self, request: dict[str, Any]) -> AsyncIterator[Delta]:
        messages = cast("list[ChatCompletionMessageParam]", request["messages"])
        tools = cast("list[ChatCompletionToolParam]", request.get("tools") or openai.omit)
        options: dict[str, Any] = {"tool_choice": request.get("tool_choice") or openai.omit}
        if "temperature" in request:
            options["temperature"] = request["temperature"]
        if not request.get("stream"):
            completion = await self.client.chat.completions.create(
                model=request["model"], messages=messages, tools=tools, stream=False, **options
            )
            yield message_delta(completion)
            return
        stream = await self.client.chat.completions.create(
            model=request["model"], messages=messages, tools=tools, stream=True, **options
        )
        received = 0
        finished = False
        async with stream:
            async for chunk in stream:
                if not chunk.choices:
                    continue  # a usage-only chunk
                choice = chunk.choices[0]
                received += 1
                finished = finished or bool(choice.finish_reason)
                yield {**choice.delta.to_dict(), "finishReason": choice.finish_reason}
        if not received:
            raise ChatFailure("empty-stream", "the LLM server sent an empty stream")
        if not finished:
            raise ChatFailure("cut-stream", "the model's stream stopped before the model finished")


def message_delta(completion: object) -> Delta:
    """A non-streamed completion's message as one delta."""
    if not isinstance(completion, ChatCompletion) or not completion.choices:
        raise ChatFailure("malformed", "the model's answer has no message")
    choice = completion.choices[0]
    calls = choice.message.tool_calls or []
    return {
        "content": choice.message.content,
        "tool_calls": [{**call.to_dict(), "index": index} for index, call in enumerate(calls)],
        "finishReason": choice.finish_reason,
    }


def status_failure(exc: openai.APIStatusError) -> ChatFailure:
    """An HTTP error with the server's own message and code when it gave them."""
    body = exc.body if isinstance(exc.body, dict) else {}
    message = text_or_none(body.get("message")) or f"HTTP {exc.status_code}"
    code = text_or_none(body.get("code")) or text_or_none(body.get("type"))
    try:
        retry_after: float | None = float(exc.response.headers.get("retry-after", ""))
    except ValueError:
        retry_after = None
    return ChatFailure("http", message, exc.status_code, code, retry_after)


def text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
