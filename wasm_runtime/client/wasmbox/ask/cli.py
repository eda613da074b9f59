"""`wasmbox ask "question" [--file F ...] [--model M] [--json]`: the loop in a terminal.

Text streams to stdout as the model writes it, code and results as they happen (or, with --json,
one Gemini-shaped part per line). Files the code writes and images it shows are saved in --out.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
from pathlib import Path

import openai
from rich.console import Console

from wasmbox.ask.loop import AskLoop, Hooks, Part, part_json
from wasmbox.errors import WasmboxError
from wasmbox.results import ExecutionResult
from wasmbox.sandbox import Sandbox

EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/svg+xml": ".svg",
}


class Output:
    """Saves what runs produce into `out_dir` and prints parts for a person or as JSON lines."""

    def __init__(self, out_dir: Path, console: Console, as_json: bool) -> None:
        self.out_dir = out_dir
        self.console = console
        self.as_json = as_json
        self.images = 0
        self.streamed_text = False

    def text_delta(self, text: str) -> None:
        if not self.as_json:
            sys.stdout.write(text)
            sys.stdout.flush()
            self.streamed_text = True

    def part(self, part: Part) -> None:
        if self.as_json:
            print(part_json(part), flush=True)
            return
        if "text" in part:
            if not self.streamed_text:  # a note from the loop itself, never streamed
                print(part["text"], flush=True)
            print(flush=True)
        elif code := part.get("executable_code"):
            self.console.rule("code", style="dim")
            print(code["code"].rstrip(), flush=True)
        elif result := part.get("code_execution_result"):
            self.console.rule(result["outcome"], style="dim")
            print(result["output"].rstrip(), flush=True)
            self.console.rule(style="dim")
        self.streamed_text = False

    async def saved(self, sandbox: Sandbox, result: ExecutionResult) -> None:
        """Write the run's images and the files it wrote into the out folder."""
        for image in result.images():
            self.images += 1
            name = f"image-{self.images}{EXTENSIONS.get(image.mime, '.bin')}"
            svg = image.mime == "image/svg+xml"
            self.write(name, image.data.encode() if svg else base64.b64decode(image.data))
        for info in result.files:
            self.write(info.path, await sandbox.read_file(info.path))

    def write(self, rel_path: str, data: bytes) -> None:
        target = (self.out_dir / rel_path).resolve()
        if not target.is_relative_to(self.out_dir.resolve()):
            return  # the SDK refuses such names already; never write outside the folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.console.print(f"[dim]saved {self.out_dir / rel_path}[/dim]")


def default_model() -> str:
    from backend.settings import Settings

    return Settings().models[0]


def openai_client() -> openai.AsyncOpenAI:
    """The official client on OPENAI_BASE_URL / OPENAI_API_KEY (a local server needs no key)."""
    key = os.environ.get("OPENAI_API_KEY") or (
        "unused" if os.environ.get("OPENAI_BASE_URL") else None
    )
    return openai.AsyncOpenAI(api_key=key)


async def ask(args: argparse.Namespace, console: Console) -> int:
    missing = [str(f) for f in args.file if not f.is_file()]
    if missing:
        console.print(f"[red]no such file: {', '.join(missing)}[/red]")
        return 2
    output = Output(args.out, console, args.json)
    async with await Sandbox.create(timeout=args.timeout) as sandbox:
        for path in args.file:
            await sandbox.write_file(path.name, path.read_bytes())

        async def save(result: ExecutionResult) -> None:
            await output.saved(sandbox, result)

        hooks = Hooks(part=output.part, text_delta=output.text_delta, result=save)
        loop = AskLoop(
            openai_client(), args.model or default_model(), sandbox, hooks, args.max_steps
        )
        await loop.ask(args.question, [p.name for p in args.file])
    return 0


def run_ask(args: argparse.Namespace, console: Console) -> int:
    if not (os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")):
        console.print("[red]Set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server.[/red]")
        return 2
    try:
        return asyncio.run(ask(args, console))
    except openai.OpenAIError as exc:
        console.print(f"[red]the model server failed: {type(exc).__name__}: {exc}[/red]")
        return 1
    except WasmboxError as exc:
        console.print(f"[red]{exc}[/red]")
        return 1
