"""`wasmbox export DIR --model FILE.gguf [--model-sha256 HEX]`: the model ships with the site,
described for the app, with the engine precached; a wrong file is refused before anything is
written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from backend.site_export import ExportError, ExportOptions, export_site
from tests.backend.static_tree import write as write_file
from tests.backend.test_site_export import built  # noqa: F401  (the fixture)
from wasm_runtime.cli import main


def write(path: Path, data: bytes) -> Path:
    write_file(path, data)
    return path


GGUF = b"GGUF\x03\x00\x00\x00" + b"\x00" * 56


def export_with_model(
    dirs: dict[str, Path], out: Path, model: Path, sha256: str | None = None
) -> Path:
    write_file(dirs["js_dir"] / "sdk" / "local-model" / "wllama.js", b"engine")
    write_file(dirs["js_dir"] / "sdk" / "local-model" / "wllama.wasm", b"\0asm")
    export_site(
        ExportOptions(
            out_dir=out,
            js_dir=dirs["js_dir"],
            runtime_dir=dirs["runtime_dir"],
            web_dir=dirs["web_dir"],
            model=model,
            model_sha256=sha256,
        )
    )
    return out


def precached(site: Path) -> set[str]:
    worker = (site / "sw.js").read_text()
    entries = json.loads(worker[len("precacheAndRoute(") : worker.index("]") + 1])
    return {entry["url"] for entry in entries}


def test_the_model_ships_described_and_the_engine_is_precached(
    built: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    model = write(tmp_path / "tiny.gguf", GGUF)
    digest = hashlib.sha256(GGUF).hexdigest()

    site = export_with_model(built, tmp_path / "site", model, digest.upper())

    assert (site / "models" / "tiny.gguf").read_bytes() == GGUF
    description = json.loads((site / "models" / "local-model.json").read_text())
    assert description == {
        "url": "models/tiny.gguf",
        "name": "tiny",
        "sha256": digest,
        "bytes": len(GGUF),
    }
    urls = precached(site)
    assert {
        "sdk/local-model/wllama.js",
        "sdk/local-model/wllama.wasm",
        "models/local-model.json",
    } <= urls
    assert "models/tiny.gguf" not in urls, (
        "the page's model store keeps the weights, not the service worker"
    )


def test_without_a_model_the_engine_is_not_precached(
    built: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    write(built["js_dir"] / "sdk" / "local-model" / "wllama.wasm", b"\0asm")
    site = tmp_path / "site"
    export_site(
        ExportOptions(
            out_dir=site,
            js_dir=built["js_dir"],
            runtime_dir=built["runtime_dir"],
            web_dir=built["web_dir"],
        )
    )

    assert not (site / "models").exists()
    assert not any(url.startswith("sdk/local-model/") for url in precached(site))


def test_a_wrong_sha256_is_refused_naming_both(built: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    model = write(tmp_path / "tiny.gguf", GGUF)
    wrong = "0" * 64

    with pytest.raises(ExportError) as refused:
        export_with_model(built, tmp_path / "site", model, wrong)

    assert wrong in str(refused.value) and hashlib.sha256(GGUF).hexdigest() in str(refused.value)
    assert not (tmp_path / "site").exists(), "nothing is written"


@pytest.mark.parametrize(
    ("content", "sha256", "says"),
    [
        pytest.param(b"not a model", None, "not a GGUF", id="not-gguf"),
        pytest.param(GGUF, "abc", "64 hex digits", id="bad-digest"),
    ],
)
def test_bad_models_are_refused(
    built: dict[str, Path],  # noqa: F811
    tmp_path: Path,
    content: bytes,
    sha256: str | None,
    says: str,
) -> None:
    model = write(tmp_path / "m.gguf", content)
    with pytest.raises(ExportError, match=says):
        export_with_model(built, tmp_path / "site", model, sha256)


def test_the_cli_refuses_a_digest_without_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path / "site"), "--model-sha256", "0" * 64]) == 1
    assert "--model-sha256 needs --model" in capsys.readouterr().err
