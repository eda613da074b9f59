"""`wasmbox export DIR`: the app, SDK, embed, runtime and examples as plain files.

Any static host serves the folder as it is, at its root or under a sub-path, with no special
headers: every page refers to its files by relative URL, and the sandbox frame carries its own
policy (wasm_runtime/sdk/frame-doc.ts). `--base-path` adds `<base href>` to the pages, so they also
work when the host serves the folder's URL without its trailing slash.

The folder is written next to DIR and swapped in whole, so a host never serves half an export;
an existing DIR is replaced only if an earlier export made it.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from backend.offline import (
    EXAMPLE_SUFFIXES,
    OfflineError,
    files_under,
    runtime_urls,
    service_worker,
)
from backend.security_headers import app_page_csp
from backend.site_model import DESCRIPTION, MODELS_DIR, ModelShipError, check_model, ship_model
from backend.static import chart_script_sha256s, frame_script_sha256
from wasm_runtime.paths import JS_DIR, REPO_ROOT, RUNTIME_DIR

MARKER = ".wasmbox-export"
# Served by `wasmbox serve` with Content-Encoding; a static host would serve them as odd files.
PRECOMPRESSED_SUFFIXES = (".br", ".gz")
# The sandbox document is made by the SDK (srcdoc); the served frame.html is for `wasmbox serve`.
SKIPPED_NAMES = {"frame.html"}
# At the export's top, so `<script src=".../embed.js">` is the one URL a page needs.
EMBED_FILES = ("embed.js", "embed.js.map")
SAFE_BASE_PATH = re.compile(r"^/([A-Za-z0-9._~!$()*+=:@-]+/)*$")
BASE_TAG_AFTER = "<head>"


class ExportError(Exception):
    """Why an export could not be written; the CLI prints it."""


@dataclass(frozen=True)
class ExportOptions:
    out_dir: Path
    base_path: str | None = None
    # Precache every package wheel, not only the boot files (the rest are cached when first used).
    precache_all: bool = False
    # Ship the package snapshot's three files (large, and static hosts rarely compress them);
    # without them a resumed numpy/pandas session loads those packages as it would with no snapshot.
    package_snapshot: bool = False
    js_dir: Path = JS_DIR
    runtime_dir: Path = RUNTIME_DIR
    web_dir: Path = REPO_ROOT / "web"
    # A GGUF shipped with the site: the app answers with it in the page (backend/site_model.py).
    model: Path | None = None
    model_sha256: str | None = None


@dataclass
class ExportSummary:
    out_dir: Path
    files: int = 0
    bytes: int = 0
    pages: list[str] = field(default_factory=list)


def normalize_base_path(text: str) -> str:
    """`/sub/path/` from `/sub/path` or `sub/path/`; refuse what a URL path cannot hold as is."""
    path = "/" + text.strip().strip("/") + "/" if text.strip("/ ") else "/"
    if not SAFE_BASE_PATH.match(path) or any(part in (".", "..") for part in path.split("/")):
        raise ExportError(
            f"--base-path must be a plain URL path such as /docs/wasmbox/, not {text!r}"
        )
    return path


def export_site(options: ExportOptions) -> ExportSummary:
    """Write the export into `options.out_dir`; raise ExportError with what is missing or wrong."""
    base_path = normalize_base_path(options.base_path) if options.base_path is not None else None
    out = options.out_dir.resolve()
    check_target(out)
    sources = source_folders(options)
    model_sha256 = shipped_model_sha256(options)
    staging = out.with_name(f".{out.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        for source, target in sources:
            copy_tree(source, staging / target)
        if not options.package_snapshot:
            drop_package_snapshot(staging / "runtime")
        shutil.copy2(options.web_dir / "styles.css", staging / "app" / "styles.css")
        for name in EMBED_FILES:
            shutil.copy2(options.js_dir / "embed" / name, staging / name)
        pages = write_pages(options.web_dir, staging, base_path)
        write_app_policy(staging / "index.html", options.js_dir)
        if options.model is not None and model_sha256 is not None:
            ship_model(options.model, model_sha256, staging)
        write_service_worker(options.js_dir, staging, options.precache_all)
        (staging / MARKER).write_text("made by `wasmbox export`; replaced whole by the next one\n")
        swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    files = [p for p in out.rglob("*") if p.is_file()]
    return ExportSummary(out, len(files), sum(p.stat().st_size for p in files), pages)


def shipped_model_sha256(options: ExportOptions) -> str | None:
    """The shipped model's sha256, checked before anything is written (None: no model)."""
    if options.model is None:
        if options.model_sha256 is not None:
            raise ExportError("--model-sha256 needs --model")
        return None
    try:
        return check_model(options.model, options.model_sha256)
    except ModelShipError as exc:
        raise ExportError(str(exc)) from exc


def check_target(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise ExportError(
            f"{out} is not empty and was not made by `wasmbox export`: choose another folder"
        )


def source_folders(options: ExportOptions) -> list[tuple[Path, str]]:
    """(built folder, folder in the export) pairs; each must exist."""
    pairs = [
        (options.js_dir / "app", "app"),
        (options.js_dir / "sdk", "sdk"),
        (options.js_dir / "sandbox", "sandbox"),
        (options.js_dir / "pyscript", "pyscript"),
        (options.js_dir / "charts", "charts"),
        (options.runtime_dir, "runtime"),
        (options.web_dir / "examples", "examples"),
    ]
    missing = [str(source) for source, _ in pairs if not source.is_dir()]
    required_files = [options.runtime_dir / "manifest.json"]
    required_files += [options.js_dir / "embed" / name for name in EMBED_FILES]
    required_files.append(options.js_dir / "sw" / "sw.js")
    missing += [str(path) for path in required_files if not path.is_file()]
    if missing:
        raise ExportError(f"build output missing ({', '.join(missing)}): run `make build` first")
    return pairs


def copy_tree(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        if (
            not path.is_file()
            or path.suffix in PRECOMPRESSED_SUFFIXES
            or path.name in SKIPPED_NAMES
        ):
            continue
        if any(part.startswith(".") for part in path.relative_to(source).parts):
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)


# The manifest's entries for the snapshots with packages (wasm_runtime/builder/package_snapshot.py).
SNAPSHOTS_WITH_PACKAGES = ("packageSnapshot", "plotSnapshot")


def drop_package_snapshot(runtime: Path) -> None:
    """Remove the package and plot-ready snapshots' files and the manifest's mention of them."""
    manifest_path = runtime / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if not any(manifest.get(kind) for kind in SNAPSHOTS_WITH_PACKAGES):
        return
    for kind in SNAPSHOTS_WITH_PACKAGES:
        entry = manifest.get(kind) or {}
        for key in ("file", "record", "bundle"):
            name = entry.get(key)
            if isinstance(name, str) and "/" not in name:
                (runtime / name).unlink(missing_ok=True)
                manifest["files"].pop(name, None)
        if kind in manifest:
            manifest[kind] = None
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    manifest_path.write_text(text, encoding="utf-8")


def write_pages(web_dir: Path, staging: Path, base_path: str | None) -> list[str]:
    """The app's page and the examples, with `<base href>` when a base path is given."""
    pages = [
        "index.html",
        *sorted(f"examples/{p.name}" for p in (web_dir / "examples").glob("*.html")),
    ]
    for page in pages:
        html = (web_dir / page).read_text(encoding="utf-8")
        # Each page's own folder under the base path, so its relative URLs keep their meaning.
        folder = page.rpartition("/")[0]
        base = None if base_path is None else base_path + (f"{folder}/" if folder else "")
        (staging / page).write_text(with_base(html, base), encoding="utf-8")
    return pages


def write_app_policy(page: Path, js_dir: Path) -> None:
    """The app's CSP as a `<meta>`, first in its head: a static host sends no header."""
    frame_hash = frame_script_sha256(js_dir)
    if frame_hash is None:
        raise ExportError(f"{js_dir / 'sandbox' / 'frame.js'} is missing: run `make build` first")
    csp = app_page_csp(frame_hash, in_meta=True, chart_script_sha256s=chart_script_sha256s(js_dir))
    html = page.read_text(encoding="utf-8")
    tag = f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
    page.write_text(html.replace(BASE_TAG_AFTER, f"{BASE_TAG_AFTER}\n  {tag}", 1), encoding="utf-8")


def offline_files(site: Path, precache_all: bool) -> dict[str, Path]:
    """URL (relative to the export's folder) → file, for everything the service worker precaches."""
    files = {"./": site / "index.html", "embed.js": site / "embed.js"}
    files |= files_under(site / "app", "app/", (".js", ".css"))
    files |= files_under(site / "sdk", "sdk/", (".js",))
    files |= files_under(site / "sandbox", "sandbox/", (".js",))
    files |= files_under(site / "examples", "examples/", EXAMPLE_SUFFIXES)
    files |= files_under(site / "pyscript", "pyscript/", (".js", ".css"))
    if (site / MODELS_DIR / DESCRIPTION).is_file():
        # The engine, for offline answers; the weights are kept by the page's own model store.
        files |= files_under(site / "sdk" / "local-model", "sdk/local-model/", (".js", ".wasm"))
        files[f"{MODELS_DIR}/{DESCRIPTION}"] = site / MODELS_DIR / DESCRIPTION
    return files | runtime_urls(site / "runtime", precache_all)


def write_service_worker(js_dir: Path, site: Path, precache_all: bool) -> None:
    try:
        template = (js_dir / "sw" / "sw.js").read_text(encoding="utf-8")
        worker = service_worker(template, offline_files(site, precache_all))
    except (OSError, OfflineError) as exc:
        raise ExportError(f"the service worker could not be made: {exc}") from exc
    (site / "sw.js").write_text(worker, encoding="utf-8")


def with_base(html: str, base_path: str | None) -> str:
    if base_path is None:
        return html
    if BASE_TAG_AFTER not in html:
        raise ExportError("a page has no <head> to put <base href> in")
    return html.replace(BASE_TAG_AFTER, f'{BASE_TAG_AFTER}\n  <base href="{base_path}">', 1)


def swap_in(staging: Path, out: Path) -> None:
    """Replace `out` with `staging`; the old export is removed only once the new one is in place."""
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
