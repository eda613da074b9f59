"""`wasmbox export`: the folder's layout, base paths, and what it refuses to overwrite."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from backend.site_export import ExportError, ExportOptions, export_site, normalize_base_path
from tests.backend.static_tree import SECRET, write
from wasm_runtime.cli import main


@pytest.fixture
def built(tmp_path: Path) -> dict[str, Path]:
    """Build output and web sources, laid out as `make build` leaves them."""
    runtime, js, web = tmp_path / "runtime", tmp_path / "js", tmp_path / "web"
    write(
        runtime / "manifest.json",
        b'{"packages": {"wasmbox-kernel": {"file": "k-1.0-py3-none-any.whl"}}}',
    )
    write(runtime / "k-1.0-py3-none-any.whl", b"kernel")
    for name in (
        "pyodide-lock.json",
        "python_stdlib.zip",
        "pyodide.asm.js",
        "pyodide.js",
        "snapshot.bin",
    ):
        write(runtime / name, name.encode())
    write(runtime / "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", b"numpy")
    write(runtime / "pyodide.asm.wasm", b"\0asm")
    write(runtime / "pyodide.asm.wasm.br", b"compressed")
    write(runtime / ".hidden", SECRET)
    write(js / "sandbox" / "frame.html", b"<!doctype html>")
    write(js / "sandbox" / "frame.js", b"frame")
    write(js / "sandbox" / "worker.js", b"worker")
    write(js / "sdk" / "wasmbox.js", b"sdk")
    write(js / "app" / "app.js", b"app")
    write(js / "embed" / "embed.js", b"embed")
    write(js / "embed" / "embed.js.map", b"{}")
    write(js / "pyscript" / "core.js", b"pyscript")
    write(js / "charts" / "plotly-0123456789ab.js", b"plotly")
    write(js / "charts" / "plotly-0123456789ab.js.br", b"compressed")
    write(js / "charts" / "charts.json", json.dumps({"plotly": {"sha256": "cGxvdGx5"}}).encode())
    write(js / "sw" / "sw.js", b"precacheAndRoute(self.__WB_MANIFEST, __WASMBOX_WHEEL_CACHE__)")
    write(web / "index.html", b"<html><head><title>app</title></head></html>")
    write(web / "styles.css", b"body {}")
    write(web / "examples" / "embed.html", b"<html><head></head><body></body></html>")
    return {"runtime_dir": runtime, "js_dir": js, "web_dir": web}


def export(
    built: dict[str, Path], out: Path, base_path: str | None = None, package_snapshot: bool = False
) -> Path:
    dirs = built
    export_site(
        ExportOptions(
            out_dir=out,
            base_path=base_path,
            package_snapshot=package_snapshot,
            js_dir=dirs["js_dir"],
            runtime_dir=dirs["runtime_dir"],
            web_dir=dirs["web_dir"],
        )
    )
    return out


def files_of(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_the_layout_is_the_contract(built: dict[str, Path], tmp_path: Path) -> None:
    out = export(built, tmp_path / "site")
    assert files_of(out) == {
        ".wasmbox-export",
        "sw.js",
        "index.html",
        "embed.js",
        "embed.js.map",
        "app/app.js",
        "app/styles.css",
        "sdk/wasmbox.js",
        "sandbox/frame.js",
        "sandbox/worker.js",
        "runtime/manifest.json",
        "runtime/pyodide.asm.wasm",
        "runtime/k-1.0-py3-none-any.whl",
        "runtime/pyodide-lock.json",
        "runtime/python_stdlib.zip",
        "runtime/pyodide.asm.js",
        "runtime/pyodide.js",
        "runtime/snapshot.bin",
        "runtime/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "examples/embed.html",
        "pyscript/core.js",
        "charts/plotly-0123456789ab.js",
        "charts/charts.json",
    }


def test_a_base_path_goes_into_each_page(built: dict[str, Path], tmp_path: Path) -> None:
    out = export(built, tmp_path / "site", base_path="docs/wasmbox")
    assert '<base href="/docs/wasmbox/">' in (out / "index.html").read_text()
    assert '<base href="/docs/wasmbox/examples/">' in (out / "examples/embed.html").read_text()
    plain = export(built, tmp_path / "plain")
    assert "<base" not in (plain / "index.html").read_text()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("/", "/", id="root"),
        pytest.param("/a/b", "/a/b/", id="no-trailing-slash"),
        pytest.param("a/b/", "/a/b/", id="no-leading-slash"),
    ],
)
def test_base_paths_are_normalized(given: str, expected: str) -> None:
    assert normalize_base_path(given) == expected


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param("/a/../b/", id="dot-dot"),
        pytest.param('/a"><script>/', id="markup"),
        pytest.param("/a b/", id="space"),
        pytest.param("https://example.org/a/", id="absolute-url"),
    ],
)
def test_bad_base_paths_are_refused(bad: str) -> None:
    with pytest.raises(ExportError, match="--base-path"):
        normalize_base_path(bad)


def test_an_earlier_export_is_replaced_whole(built: dict[str, Path], tmp_path: Path) -> None:
    out = export(built, tmp_path / "site")
    (out / "stale.js").write_text("from the last build")
    export(built, out)
    assert not (out / "stale.js").exists()
    assert not list(tmp_path.glob(".site.*")), "no staging folder is left behind"


def test_a_folder_it_did_not_make_is_left_alone(built: dict[str, Path], tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    write(mine / "thesis.tex", b"years of work")
    with pytest.raises(ExportError, match="not made by `wasmbox export`"):
        export(built, mine)
    assert (mine / "thesis.tex").read_bytes() == b"years of work"


def test_missing_build_output_says_to_build(built: dict[str, Path], tmp_path: Path) -> None:
    (built["js_dir"] / "embed" / "embed.js").unlink()
    with pytest.raises(ExportError, match="make build"):
        export(built, tmp_path / "site")


def test_the_cli_reports_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "mine" / "notes.txt", b"mine")
    assert main(["export", str(tmp_path / "mine")]) == 1
    assert "Export failed" in capsys.readouterr().err


def test_the_service_worker_precaches_the_boot_files(
    built: dict[str, Path], tmp_path: Path
) -> None:
    out = export(built, tmp_path / "site")
    worker = (out / "sw.js").read_text()
    entries = json.loads(worker[len("precacheAndRoute(") : worker.index("]") + 1])
    urls = {entry["url"] for entry in entries}
    assert {"./", "embed.js", "sdk/wasmbox.js", "runtime/snapshot.bin"} <= urls
    assert "runtime/k-1.0-py3-none-any.whl" in urls, "the kernel boots every sandbox"
    assert "runtime/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl" not in urls
    assert all(len(entry["revision"]) == 20 for entry in entries)
    assert '"wasmbox-wheels-' in worker


def test_a_changed_file_changes_its_revision_only(built: dict[str, Path], tmp_path: Path) -> None:
    def revisions() -> dict[str, str]:
        worker = (export(built, tmp_path / "site") / "sw.js").read_text()
        entries = json.loads(worker[len("precacheAndRoute(") : worker.index("]") + 1])
        return {entry["url"]: entry["revision"] for entry in entries}

    before = revisions()
    write(built["js_dir"] / "sdk" / "wasmbox.js", b"sdk, next build")
    after = revisions()
    assert {url for url in before if before[url] != after[url]} == {"sdk/wasmbox.js"}


def test_the_app_carries_its_policy_in_a_meta(built: dict[str, Path], tmp_path: Path) -> None:
    out = export(built, tmp_path / "site", base_path="/sub/")
    html = (out / "index.html").read_text()
    frame_hash = base64.b64encode(hashlib.sha256(b"frame").digest()).decode()
    meta = html.index('<meta http-equiv="Content-Security-Policy"')
    assert f"script-src 'self' 'wasm-unsafe-eval' 'sha256-{frame_hash}' 'sha256-cGxvdGx5'" in html
    assert "frame-ancestors" not in html, "a meta policy cannot hold it"
    assert "base-uri 'self'" in html and meta < html.index('<base href="/sub/">')
    assert "Content-Security-Policy" not in (out / "examples" / "embed.html").read_text()


def with_package_snapshot(runtime: Path) -> None:
    """The manifest and files of a build that made the package and plot-ready snapshots."""
    manifest = json.loads((runtime / "manifest.json").read_text())
    manifest["files"] = {"snapshot.bin": {"sha256": "1" * 64, "size": 1}}
    for kind, stem, packages in (
        ("packageSnapshot", "snapshot-pandas", ["numpy", "pandas"]),
        ("plotSnapshot", "snapshot-plot", ["matplotlib", "numpy"]),
    ):
        names = {"file": f"{stem}.bin", "record": f"{stem}.json", "bundle": f"{stem}-files.bin"}
        for name in names.values():
            write(runtime / name, name.encode())
            manifest["files"][name] = {"sha256": "0" * 64, "size": 1}
        manifest[kind] = {**names, "packages": packages}
    (runtime / "manifest.json").write_text(json.dumps(manifest))


def test_the_package_snapshot_is_left_out_unless_asked_for(
    built: dict[str, Path], tmp_path: Path
) -> None:
    with_package_snapshot(built["runtime_dir"])
    site = export(built, tmp_path / "site")
    manifest = json.loads((site / "runtime" / "manifest.json").read_text())
    assert manifest["packageSnapshot"] is None
    assert manifest["plotSnapshot"] is None
    assert set(manifest["files"]) == {"snapshot.bin"}
    assert not list((site / "runtime").glob("snapshot-pandas*"))
    assert not list((site / "runtime").glob("snapshot-plot*"))
    assert "snapshot-pandas" not in (site / "sw.js").read_text()
    assert "snapshot-plot" not in (site / "sw.js").read_text()
    # The build itself is untouched.
    assert (built["runtime_dir"] / "snapshot-pandas.bin").is_file()


def test_the_package_snapshot_ships_when_asked_for(built: dict[str, Path], tmp_path: Path) -> None:
    with_package_snapshot(built["runtime_dir"])
    out = export(built, tmp_path / "site", package_snapshot=True)
    manifest = json.loads((out / "runtime" / "manifest.json").read_text())
    assert manifest["packageSnapshot"]["bundle"] == "snapshot-pandas-files.bin"
    assert manifest["plotSnapshot"]["bundle"] == "snapshot-plot-files.bin"
    assert {p.name for p in (out / "runtime").glob("snapshot-pandas*")} == {
        "snapshot-pandas.bin",
        "snapshot-pandas.json",
        "snapshot-pandas-files.bin",
    }
