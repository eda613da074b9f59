"""`wasmbox`: build the runtime, serve the app, export it for a static host."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from wasm_runtime.paths import RUNTIME_DIR, default_cache_dir


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["ask"]:
        from wasmbox.ask.cli import main as ask

        return ask(argv[1:])
    parser = argparse.ArgumentParser(prog="wasmbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="assemble the offline Pyodide runtime")
    build.add_argument("--out", type=Path, default=RUNTIME_DIR, help="output folder (%(default)s)")
    build.add_argument("--cache-dir", type=Path, default=default_cache_dir(), help="(%(default)s)")
    build.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="URL_OR_DIR",
        help="a copy of Pyodide's full/ folder, tried before the public sources (repeatable)",
    )
    build.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="NAME",
        help="also ship this official Pyodide package and its dependencies (repeatable)",
    )
    build.add_argument(
        "--refresh", action="store_true", help="re-fetch cached files that fail their hash"
    )
    build.add_argument("--no-cdn", action="store_true", help="never try the official CDN")

    serve = commands.add_parser("serve", help="start the app (builds the runtime first if missing)")
    serve.add_argument("--host", default=None, help="interface to bind (default from settings)")
    serve.add_argument("--port", type=int, default=None, help="port (default from settings)")
    serve.add_argument(
        "--workers",
        type=worker_count,
        default=None,
        help="uvicorn worker processes (default: 1 with the in-memory rate limit, which one "
        "process must own; one per CPU when WASMBOX_RATE_LIMIT_STORAGE is redis://). "
        "Stream caps (WASMBOX_MAX_STREAMS_*) count per process.",
    )
    serve.add_argument(
        "--allow-public",
        action="store_true",
        help="bind a non-loopback interface without WASMBOX_ACCESS_TOKEN (anyone may use the key)",
    )

    export_parser = commands.add_parser(
        "export", help="write the app, SDK, embed and runtime as a folder any static host serves"
    )
    export_parser.add_argument(
        "dir", type=Path, help="output folder (replaced if an earlier export)"
    )
    export_parser.add_argument(
        "--base-path",
        default=None,
        metavar="P",
        help="the URL path the folder will be served under, e.g. /docs/wasmbox/ (adds <base href>)",
    )
    export_parser.add_argument(
        "--precache-all",
        action="store_true",
        help="make every package work offline after one visit (else packages are cached when used)",
    )
    export_parser.add_argument(
        "--package-snapshot",
        action="store_true",
        help="also ship the package snapshot (125 MB, which static hosts rarely compress): resumed "
        "numpy/pandas sessions then start without loading those packages",
    )
    export_parser.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="FILE.gguf",
        help="ship this model: the page answers with it on the user's device, with no endpoint",
    )
    export_parser.add_argument(
        "--model-sha256",
        default=None,
        metavar="HEX",
        help="refuse the model unless its sha256 is this (the page checks it too)",
    )

    mcp = commands.add_parser("mcp", help="serve the sandbox to MCP clients over stdio")
    mcp.add_argument("--timeout", type=float, default=30, help="seconds per run (%(default)s)")
    mcp.add_argument(
        "--session",
        default=None,
        help="keep the sandbox (variables, files) under this name across server restarts",
    )
    mcp.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where named sessions live (default: $WASMBOX_DATA_DIR or ~/.local/share/wasmbox)",
    )

    # Listed for --help; its arguments are its own (wasmbox.ask.cli), parsed there.
    commands.add_parser("ask", help="ask a model; it runs Python in the sandbox to answer")

    args = parser.parse_args(argv)
    console = Console(stderr=True)
    if args.command == "mcp":
        from wasmbox.mcp_server import serve as serve_mcp

        return serve_mcp(timeout=args.timeout, session=args.session, data_dir=args.data_dir)
    if args.command == "export":
        return export_folder(
            args.dir,
            args.base_path,
            console,
            precache_all=args.precache_all,
            package_snapshot=args.package_snapshot,
            model=args.model,
            model_sha256=args.model_sha256,
        )
    if args.command == "serve":
        return serve_app(
            args.host, args.port, console, allow_public=args.allow_public, workers=args.workers
        )
    if args.command == "build":
        # Here, not at the top: `wasmbox mcp` and `ask` start faster without the builder.
        from wasm_runtime.builder import BuildError, BuildOptions, build_runtime

        options = BuildOptions(
            out_dir=args.out,
            cache_dir=args.cache_dir,
            mirrors=args.mirror,
            packages=args.package,
            refresh=args.refresh,
            use_cdn=not args.no_cdn,
        )
        try:
            build_runtime(options, console)
        except BuildError as exc:
            console.print(f"[red]Build failed:[/red] {exc}")
            return 1
    return 0


def export_folder(
    out_dir: Path,
    base_path: str | None,
    console: Console,
    *,
    precache_all: bool = False,
    package_snapshot: bool = False,
    model: Path | None = None,
    model_sha256: str | None = None,
) -> int:
    from backend.site_export import ExportError, ExportOptions, export_site

    try:
        options = ExportOptions(
            out_dir=out_dir,
            base_path=base_path,
            precache_all=precache_all,
            package_snapshot=package_snapshot,
            model=model,
            model_sha256=model_sha256,
        )
        summary = export_site(options)
    except ExportError as exc:
        console.print(f"[red]Export failed:[/red] {exc}")
        return 1
    console.print(
        f"Exported {summary.files} files ({summary.bytes / 1e6:.1f} MB) to {summary.out_dir}: "
        "serve it from any static host, e.g. `python -m http.server -d DIR`."
    )
    return 0


def worker_count(text: str) -> int:
    count = int(text)
    if count < 1:
        raise argparse.ArgumentTypeError("needs at least one worker")
    return count


def default_workers(rate_limit_storage: str) -> int:
    """One process per CPU when Redis holds the shared budget; else one, which owns the budget."""
    if rate_limit_storage.startswith("memory://"):
        return 1
    return os.cpu_count() or 1


APP_FACTORY = "backend.app:create_app"


def run_server(host: str, port: int, *, workers: int = 1, **options: Any) -> None:
    """uvicorn, with the app built by each worker process (its own upstream pool and slots).

    The import string plus `factory=True` is what lets uvicorn fork workers; with one worker it
    costs nothing. uvloop and httptools come with uvicorn[standard] and are picked by "auto".
    """
    import uvicorn

    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        **options,
    )


def serve_app(
    host: str | None,
    port: int | None,
    console: Console,
    *,
    allow_public: bool = False,
    workers: int | None = None,
) -> int:
    from backend.settings import get_settings, unsafe_exposure
    from wasm_runtime.builder import BuildError, BuildOptions, build_runtime
    from wasm_runtime.builder.manifest import MANIFEST

    settings = get_settings()
    if allow_public:
        settings = settings.model_copy(update={"allow_public": True})
    host = host or settings.host
    port = port or settings.port
    if problem := unsafe_exposure(settings, host):
        console.print(f"[red]{problem}[/red]")
        return 2
    if not (settings.runtime_dir / MANIFEST).is_file():
        console.print("The runtime is not built yet: building it first.")
        try:
            build_runtime(BuildOptions(out_dir=settings.runtime_dir), console)
        except BuildError as exc:
            console.print(f"[red]Build failed:[/red] {exc}")
            return 1
    workers = workers or default_workers(settings.rate_limit_storage)
    if workers > 1 and settings.rate_limit_storage.startswith("memory://"):
        console.print(
            f"[yellow]{workers} workers with the in-memory rate limit: each process keeps its own "
            "budget. Set WASMBOX_RATE_LIMIT_STORAGE=redis://… to share one.[/yellow]"
        )
    console.print(f"wasmbox is running at [bold]http://{host}:{port}/[/bold]  (Ctrl+C stops it)")
    run_server(host, port, workers=workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
