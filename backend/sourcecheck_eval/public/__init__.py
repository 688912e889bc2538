"""The public benchmark sets without the private benchmarks folder: check out each set's GitHub repositories at their
pinned commits and convert the data files into the uniform JSONL schema, writing only the development portion.

`python -m sourcecheck_eval.public fetch [SET ...] [--out DIR] [--source OWNER/REPO=URL_OR_PATH ...]`

Each set is a module here with REPOS (repo, pinned commit, licence), FILES (the paths convert() reads, per repo),
SELECTION (the rule that keeps the dev side) and convert(roots) -> the dev records, in the shared dev.jsonl order.
"""

import importlib
import json
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from sourcecheck.config import checkout_root, user_data_dir

from sourcecheck_eval.public import git

SETS = (
    "lfqa_verification",
    "tofueval",
    "wice",
    "factcheck_gpt",
    "summedits",
    "faithbench",
    "halueval_summarization",
)

# Where the sets go by default: a checkout's tmp/ (git-ignored), else the per-user data folder (an installed
# package's site-packages is no place for them).
_ROOT = checkout_root()
DEFAULT_OUT = _ROOT / "tmp" / "benchmarks" if _ROOT else user_data_dir() / "benchmarks"


def module(name: str) -> ModuleType:
    # Imported on demand: a set's module is only loaded when that set is fetched.
    if name not in SETS:
        raise SystemExit(f"unknown set {name!r}; the sets are: {', '.join(SETS)}")
    return importlib.import_module(f"{__name__}.{name}")


def source_md(name: str, mod: ModuleType, count: int) -> str:
    repos = "; ".join(
        f"https://github.com/{r['repo']} at commit {r['commit']} (licence: {r['licence']}), files "
        + ", ".join(f"`{p}`" for p in mod.FILES.get(r["repo"], []))
        for r in mod.REPOS
    )
    selection = getattr(mod, "SELECTION", None) or (mod.__doc__ or "").strip()
    return (
        f"# {name}: development portion\n\n"
        f"{count} records converted to the uniform schema by `python -m sourcecheck_eval.public fetch {name}` "
        f"from {repos}. Selection: {' '.join(selection.split())}\n"
    )


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)  # a run that fails half-way leaves no half-written file
    finally:
        tmp.unlink(missing_ok=True)


def write(folder: Path, name: str, mod: ModuleType, records: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "dev.jsonl"
    # SOURCE.md first: a dev.jsonl is taken as current only when the SOURCE.md beside it names its pinned commits.
    _write(folder / "SOURCE.md", source_md(name, mod, len(records)))
    # The byte format of the shared dev.jsonl files: default separators, non-ASCII kept, one record per line.
    _write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def current(out: Path, name: str) -> bool:
    """Whether OUT/<name>/dev.jsonl was converted from the commits the set pins now (its SOURCE.md names them)."""
    source = Path(out) / name / "SOURCE.md"
    if not (Path(out) / name / "dev.jsonl").is_file() or not source.is_file():
        return False
    text = source.read_text(encoding="utf-8")
    return all(f"commit {r['commit']}" in text for r in module(name).REPOS)


def fetch(
    out: Path,
    sets: Iterable[str] | None = None,
    sources: Mapping[str, str] | None = None,
    log: Callable[[str], Any] = print,
) -> dict[str, Path]:
    """Check out and convert each set (all of SETS by default) into OUT/<set>/dev.jsonl and OUT/<set>/SOURCE.md;
    return set -> dev.jsonl. `sources` maps OWNER/REPO to a URL or local path to fetch from instead of GitHub
    (a mirror, or a local clone); the pinned commit must be in it."""
    out = Path(out)
    sources = dict(sources or {})
    names = list(sets or SETS)
    mods = {name: module(name) for name in names}  # an unknown name fails before anything is fetched
    for repo in sorted(set(sources) - {r["repo"] for mod in mods.values() for r in mod.REPOS}):
        log(f"--source {repo}: no set being fetched uses that repository")
    written = {}
    for name, mod in mods.items():
        # The checkouts hold the held-out records too (a repository's files are whole): they live in a temporary
        # folder only while the set converts, and only the development portion is written.
        with tempfile.TemporaryDirectory(prefix=f"sourcecheck-{name}-") as tmp:
            roots = {}
            for spec in mod.REPOS:
                repo, commit = spec["repo"], spec["commit"]
                log(f"{name}: {repo} @ {commit[:12]}")
                dest = Path(tmp) / repo.replace("/", "__")
                roots[repo] = git.checkout(repo, commit, dest, url=sources.get(repo), paths=mod.FILES.get(repo))
            records = mod.convert(roots)
        written[name] = write(out / name, name, mod, records)
        log(f"{name}: {len(records)} records -> {written[name]}")
    return written
