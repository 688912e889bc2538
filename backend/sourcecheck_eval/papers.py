"""The full-paper product set's PDFs (tests/data/fullpapers): R-package vignettes from Debian, fetched with
`apt-get download` and unpacked with `dpkg -x` (R need not be installed), each checked against its sha256 in
papers.json. Nothing is committed but the list: `python -m sourcecheck_eval.papers fetch [--dest DIR]`. Another
list in the same format (--manifest): tests/data/distractors/papers.json, the near-topic vignettes the settling
measure adds to each library (`--manifest tests/data/distractors/papers.json --dest tmp/distractors`).
"""

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout (backend/sourcecheck_eval/papers.py)
MANIFEST = ROOT / "tests" / "data" / "fullpapers" / "papers.json"
DEST = ROOT / "tmp" / "papers"


def manifest(path: str | Path = MANIFEST) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def pdf_path(name: str, dest: str | Path = DEST) -> Path:
    """Where a fetched PDF lives: DEST/<file name> (the names are unique across the packages)."""
    return Path(dest) / name


def fetch(dest: str | Path = DEST, path: str | Path = MANIFEST, log: Callable[[str], object] = print) -> list[Path]:
    """Download each package of the manifest (the pinned version, else the archive's current one, whose PDFs must
    still match their sha256), unpack it and copy its listed PDFs into dest; returns the paths."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for pkg in manifest(path)["packages"]:
        wanted = {p["file"]: p["sha256"] for p in pkg["pdfs"]}
        if all(_sha(pdf_path(f, dest)) == s for f, s in wanted.items()):
            out += [pdf_path(f, dest) for f in wanted]
            continue
        with tempfile.TemporaryDirectory() as tmp:
            name = pkg["package"]
            got = subprocess.run(["apt-get", "download", f"{name}={pkg['version']}"], cwd=tmp, capture_output=True)
            if got.returncode:
                log(f"{name}={pkg['version']} is not in the archive; trying its current version")
                subprocess.run(["apt-get", "download", name], cwd=tmp, check=True, capture_output=True)
            deb = next(Path(tmp).glob("*.deb"))
            subprocess.run(["dpkg", "-x", str(deb), str(Path(tmp) / "x")], check=True)
            for f, sha in wanted.items():
                found = next(Path(tmp, "x").rglob(f"doc/{f}"), None)
                if found is None or _sha(found) != sha:
                    raise SystemExit(f"{name}: {f} is missing or differs from the one the set was written on")
                shutil.copyfile(found, pdf_path(f, dest))
                out.append(pdf_path(f, dest))
        log(f"{pkg['package']}: {', '.join(wanted)}")
    return out


def _sha(path: str | Path) -> str | None:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).exists() else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sourcecheck_eval.papers")
    parser.add_argument("command", choices=["fetch"])
    parser.add_argument("--dest", default=str(DEST))
    parser.add_argument("--manifest", default=str(MANIFEST), help="a list of packages and PDFs (papers.json)")
    args = parser.parse_args(argv)
    fetch(args.dest, args.manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
