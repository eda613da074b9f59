"""The backend's commands: `wasmbox serve` and `wasmbox export` (parsed in wasm_runtime/cli.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.console import Console


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
