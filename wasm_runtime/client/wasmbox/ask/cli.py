"""`wasmbox ask "question" [--file F ...] [--model M] [--json]`: the SDK's Agent, from a terminal.

The agent runs in the page that holds the sandbox (wasmbox.ask.agent); its model requests are made
here with the `openai` package on OPENAI_BASE_URL / OPENAI_API_KEY. Events print as they happen
(wasmbox.ask.show); files the code writes and images it shows are saved in --out.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from wasmbox.ask import agent
from wasmbox.ask.chat import ChatStreams, openai_client
from wasmbox.ask.show import JsonParts, Saved, Terminal
from wasmbox.errors import WasmboxError
from wasmbox.sandbox import Sandbox

# Exit statuses: the model answered (or reached the step limit, said on the console), a request or
# the sandbox failed, bad usage, Ctrl+C.
ANSWERED, FAILED, USAGE, STOPPED = 0, 1, 2, 130


def parser() -> argparse.ArgumentParser:
    ask = argparse.ArgumentParser(
        prog="wasmbox ask", description="Ask a model; it runs Python in the sandbox to answer."
    )
    ask.add_argument("question")
    ask.add_argument("--file", action="append", default=[], type=Path, help="(repeatable)")
    ask.add_argument("--model", default=None, help="default: the first of WASMBOX_MODELS")
    ask.add_argument("--json", action="store_true", help="print the turn's parts as JSON lines")
    ask.add_argument(
        "--max-steps", type=int, default=8, help="model requests for the answer (%(default)s)"
    )
    ask.add_argument("--timeout", type=float, default=30, help="seconds per run (%(default)s)")
    ask.add_argument("--out", type=Path, default=Path("wasmbox-out"), help="(%(default)s)")
    return ask


async def ask(args: argparse.Namespace, console: Console, default_model: Callable[[], str]) -> int:
    saved = Saved(args.out, console)
    shown = (JsonParts if args.json else Terminal)(console, saved)
    async with await Sandbox.create(timeout=args.timeout) as sandbox:
        for path in args.file:
            await sandbox.write_file(path.name, path.read_bytes())
        try:
            outcome = await agent.ask(
                sandbox,
                ChatStreams(openai_client()),
                args.question,
                model=args.model or default_model(),
                max_steps=args.max_steps,
                on_event=shown.event,
            )
        finally:
            shown.end()
        await saved.files_of(sandbox)
    if outcome.ungrounded:
        numbers = ", ".join(outcome.ungrounded)
        console.print(f"[yellow]not computed by any run: {escape(numbers)}[/yellow]")
    if outcome.error is not None:
        error = outcome.error
        console.print(f"[red]The model request failed: {escape(error['message'])}[/red]")
        console.print(escape(error["hint"]))
        return FAILED
    return ANSWERED


def main(argv: list[str] | None = None, *, default_model: Callable[[], str]) -> int:
    """`default_model`: the model without --model (the `wasmbox` command, wasm_runtime/cli.py,
    gives the backend's first of WASMBOX_MODELS: the client does not import the backend)."""
    args = parser().parse_args(argv)
    console = Console(stderr=True)
    if not (os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")):
        console.print("[red]Set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server.[/red]")
        return USAGE
    if args.max_steps < 1:
        console.print("[red]--max-steps must be at least 1[/red]")
        return USAGE
    missing = [str(f) for f in args.file if not f.is_file()]
    if missing:
        console.print(f"[red]no such file: {escape(', '.join(missing))}[/red]")
        return USAGE
    try:
        return asyncio.run(ask(args, console, default_model))
    except KeyboardInterrupt:
        console.print("[yellow]stopped[/yellow]")
        return STOPPED
    except WasmboxError as exc:
        console.print(f"[red]{escape(str(exc))}[/red]")
        return FAILED
