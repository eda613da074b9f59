"""What `wasmbox ask` prints of the page Agent's events, as they happen, and what it saves.

For a person: the model's text streams to stdout, each run's code, live output, value and error
follow, ruled by the console (stderr). With --json: stdout holds only the turn's parts, one
Gemini-shaped JSON object per line, each printed once complete. Either way notices, calls that could
not be run and the step limit are said on the console.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from wasmbox.errors import SandboxError
from wasmbox.results import ExecutionResult
from wasmbox.sandbox import Sandbox

Event = dict[str, Any]
EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/svg+xml": ".svg",
}


class Saved:
    """The images runs show, saved as they come, and the files they write, read once the turn
    is over (so a file written twice is saved as it ended)."""

    def __init__(self, out_dir: Path, console: Console) -> None:
        self.out_dir = out_dir
        self.console = console
        self.images = 0
        self.files: dict[str, None] = {}

    def result(self, result: ExecutionResult) -> None:
        for image in result.images():
            self.images += 1
            name = f"image-{self.images}{EXTENSIONS.get(image.mime, '.bin')}"
            svg = image.mime == "image/svg+xml"
            self.write(name, image.data.encode() if svg else base64.b64decode(image.data))
        self.files.update(dict.fromkeys(info.path for info in result.files))

    async def files_of(self, sandbox: Sandbox) -> None:
        for path in self.files:
            try:
                data = await sandbox.read_file(path)
            except SandboxError as exc:  # removed or renamed by a later run
                self.console.print(f"[yellow]not saved: {escape(path)}: {escape(str(exc))}[/]")
                continue
            self.write(path, data)

    def write(self, rel_path: str, data: bytes) -> None:
        target = (self.out_dir / rel_path).resolve()
        if not target.is_relative_to(self.out_dir.resolve()):
            return  # the SDK refuses such names already; never write outside the folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.console.print(f"[dim]saved {escape(str(self.out_dir / rel_path))}[/dim]")


class Shown:
    """The events the console shows in both modes; the subclasses print the rest."""

    def __init__(self, console: Console, saved: Saved) -> None:
        self.console = console
        self.saved = saved

    def event(self, event: Event) -> None:
        kind = event.get("type")
        if kind == "result":
            result = ExecutionResult.model_validate(event["result"])
            self.result(event, result)
            self.saved.result(result)
        elif kind == "invalid-call":
            problem = escape(event["problem"])
            self.note(f"[yellow]a call could not be run ({problem}); the model is told why[/]")
        elif kind == "notice":
            self.note(f"[dim]{escape(event['text'])}[/dim]")
        elif kind == "step-limit":
            self.note(f"[yellow]stopped at the step limit ({event['steps']} model requests)[/]")
        elif kind in ("text", "code", "output"):
            getattr(self, kind)(event)

    def note(self, markup: str) -> None:
        self.console.print(markup)

    def text(self, event: Event) -> None: ...
    def code(self, event: Event) -> None: ...
    def output(self, event: Event) -> None: ...
    def result(self, event: Event, result: ExecutionResult) -> None: ...
    def end(self) -> None: ...


class Terminal(Shown):
    """For a person: text and output as they stream, each run between rules."""

    def __init__(self, console: Console, saved: Saved) -> None:
        super().__init__(console, saved)
        self.line_open = False  # the last thing written to stdout did not end its line
        self.streamed: set[str] = set()

    def write(self, text: str, stream: Any = None) -> None:
        if text:
            (stream or sys.stdout).write(text)
            (stream or sys.stdout).flush()
            self.line_open = not text.endswith("\n")

    def end_line(self) -> None:
        if self.line_open:
            self.write("\n")

    def note(self, markup: str) -> None:
        self.end_line()
        super().note(markup)

    def text(self, event: Event) -> None:
        self.write(event["text"])

    def code(self, event: Event) -> None:
        self.end_line()
        self.console.rule("code", style="dim")
        self.write(event["code"].rstrip() + "\n")
        self.console.rule(style="dim")

    def output(self, event: Event) -> None:
        self.streamed.add(event["callId"])
        self.write(event["text"], sys.stderr if event["stream"] == "stderr" else None)

    def result(self, event: Event, result: ExecutionResult) -> None:
        if event["callId"] not in self.streamed:  # nothing came live: say it all now
            self.write(result.stdout)
            self.write(result.stderr, sys.stderr)
        if result.text is not None:
            self.end_line()
            self.write(result.text + "\n")
        if result.error is not None:
            self.end_line()
            self.write(result.error.traceback or f"{result.error.name}: {result.error.message}")
        self.end_line()
        self.console.rule(event["outcome"], style="dim")

    def end(self) -> None:
        self.end_line()


class JsonParts(Shown):
    """--json: the turn's parts, `{"text"}`, `{"executable_code"}`, `{"code_execution_result"}`."""

    def __init__(self, console: Console, saved: Saved) -> None:
        super().__init__(console, saved)
        self.text_part = ""

    def print(self, part: dict[str, Any]) -> None:
        print(json.dumps(part, ensure_ascii=False), flush=True)

    def text(self, event: Event) -> None:
        self.text_part += event["text"]

    def end_text(self) -> None:
        if self.text_part:
            self.print({"text": self.text_part})
            self.text_part = ""

    def code(self, event: Event) -> None:
        self.end_text()
        self.print({"executable_code": {"language": "PYTHON", "code": event["code"]}})

    def result(self, event: Event, result: ExecutionResult) -> None:
        self.print(
            {"code_execution_result": {"outcome": event["outcome"], "output": event["output"]}}
        )

    def end(self) -> None:
        self.end_text()
