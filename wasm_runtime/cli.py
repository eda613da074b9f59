"""The `wasmbox` command: the one module that composes the backend and the Python client.

Neither package imports the other (tests/backend/test_import_graph.py checks it). The backend
serves and exports the app; the client drives the SDK from Python. This module parses the command
line for both; wasm_runtime/client_page.py gives the client the page server its browser loads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from wasm_runtime.paths import RUNTIME_DIR, default_cache_dir

DESCRIPTION = "`wasmbox`: build the runtime, serve the app, export it for a static host."


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["ask"]:
        from wasmbox.ask.cli import main as ask

        return ask(argv[1:], default_model=default_model)
    parser = argparse.ArgumentParser(prog="wasmbox", description=DESCRIPTION)
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
        "--with",
        dest="with_",
        action="append",
        default=[],
        metavar="REQUIREMENT",
        help='add a package from PyPI, e.g. "faker==33.1.0", and its dependencies; it must have '
        "a pure-Python wheel (repeatable)",
    )
    build.add_argument(
        "--requirements",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="add the packages a requirements file names, as --with does (repeatable)",
    )
    build.add_argument(
        "--wheel",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="add a wheel you bring: pure Python, or built for Pyodide and Python 3.12 "
        "(repeatable)",
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
        "numpy/pandas sessions then start without loading those packages; and the plot-ready "
        "snapshot (119 MB): spares then boot with matplotlib imported",
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
        from backend.commands import export_folder

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
        from backend.commands import serve_app

        return serve_app(
            args.host, args.port, console, allow_public=args.allow_public, workers=args.workers
        )
    if args.command == "build":
        # Here, not at the top: `wasmbox mcp` and `ask` start faster without the builder.
        from wasm_runtime.builder import BuildError, BuildOptions, build_runtime
        from wasm_runtime.builder.added import AddRequest, check_requirement, read_requirements_file

        try:
            requirements = [check_requirement(text) for text in args.with_]
            for file in args.requirements:
                requirements += read_requirements_file(file)
            options = BuildOptions(
                out_dir=args.out,
                cache_dir=args.cache_dir,
                mirrors=args.mirror,
                packages=args.package,
                refresh=args.refresh,
                use_cdn=not args.no_cdn,
                added=AddRequest(tuple(requirements), tuple(args.wheel)),
            )
            build_runtime(options, console)
        except BuildError as exc:
            console.print(f"[red]Build failed:[/red] {exc}")
            return 1
    return 0


def worker_count(text: str) -> int:
    count = int(text)
    if count < 1:
        raise argparse.ArgumentTypeError("needs at least one worker")
    return count


def default_model() -> str:
    """`wasmbox ask`'s model without --model: the first of the backend's WASMBOX_MODELS."""
    from backend.settings import Settings

    return Settings().models[0]


if __name__ == "__main__":
    sys.exit(main())
