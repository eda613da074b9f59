"""An ExecutionResult as the text a model reads (MCP tool results, agent tools in Python)."""

from __future__ import annotations

from wasmbox.results import ExecutionResult

# What a model is shown of long output; the full text stays in the result.
MAX_CHARS = 20_000


def clip(text: str, limit: int = MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [{len(text) - limit} more characters cut]"


def result_text(result: ExecutionResult) -> str:
    """Outcome first, then stdout, stderr, the value, the error and what the run produced."""
    lines = [f"outcome: {result.outcome}"]
    if result.stdout:
        lines.append("stdout:\n" + clip(result.stdout))
    if result.stderr:
        lines.append("stderr:\n" + clip(result.stderr))
    if result.text is not None:
        lines.append("value: " + clip(result.text))
    if result.error is not None:
        lines.append(clip(result.error.traceback or f"{result.error.name}: {result.error.message}"))
    if images := result.images():
        lines.append(f"images: {len(images)} ({', '.join(d.mime for d in images)})")
    if result.files:
        lines.append("files: " + ", ".join(f"{f.path} ({f.size} bytes)" for f in result.files))
    if result.state_lost:
        lines.append("note: the interpreter was restarted, so variables and imports are gone")
    return "\n".join(lines)
