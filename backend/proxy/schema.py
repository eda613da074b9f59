"""The chat-completions body the proxy accepts.

Top-level fields are a closed list (`extra="forbid"`): anything that could steer the request
elsewhere (`api_base`, `base_url`, `api_key`, `headers`, …) is refused with 422. Messages stay open
(`extra="allow"`) because servers add fields such as `reasoning_content` that clients send back.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    messages: list[Message] = Field(min_length=1)
    stream: bool | None = None
    stream_options: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    n: Literal[1] | None = None  # more choices multiply the cost
    stop: str | list[str] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    response_format: dict[str, Any] | None = None
    seed: int | None = None
    reasoning_effort: str | None = None
    user: str | None = None

    def message_chars(self) -> int:
        """Characters across all messages, as they will be sent."""
        return sum(len(message.model_dump_json(exclude_unset=True)) for message in self.messages)

    def upstream_body(
        self, max_tokens: int, default_temperature: float | None = None
    ) -> dict[str, Any]:
        """What is sent upstream: what the client set, with the token budget clamped and the
        server's default temperature when the client set none."""
        body = self.model_dump(mode="json", exclude_unset=True)
        if default_temperature is not None and body.get("temperature") is None:
            body["temperature"] = default_temperature
        for field in ("max_tokens", "max_completion_tokens"):
            if field in body:
                body[field] = min(body[field], max_tokens)
        if "max_tokens" not in body and "max_completion_tokens" not in body:
            body["max_tokens"] = max_tokens
        return body
