"""Is the sentence that settles a claim in front of the judge and the user? On every labelled sentence of the
product sets that names its source passage (source_index, page, source_quote): the share whose settling passage is
on a retrieved page, among the quotes shown, and inside the windows the judge reads (issue 48, item 1).

Retrieval is the product's (each record's PDFs ingested with the real embedding model, check.py's search), run once
and kept in tmp/settling/; the choice of quote and window (evidence.select_evidence) runs over the kept hits, so a
change to it is measured in seconds. No judge is involved.

    python -m sourcecheck_eval.settling tests/data/chatpdfs/dev.jsonl tests/data/fullpapers/dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sourcecheck.text.words import content_words

from sourcecheck_eval.kept_aside import PACKAGES

WORK = Path("tmp") / "settling"
KEPT_ASIDE = tuple(p.removeprefix("r-cran-") for p in sorted(PACKAGES))  # their PDFs: measured, never tuned on
FOUND = 0.8  # a text holds the settling passage when it has this share of the passage's content words


def holds(text: str, passage: str) -> bool:
    wanted = set(content_words(passage))
    return bool(wanted) and len(wanted & set(content_words(text))) >= FOUND * len(wanted)


def retrieve(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a check of the record retrieves for each of its sentences: {"claims": {index: claim}, "hits":
    {index: [Hit]}, "filenames": {document_id: filename}, "sentences": {index: text}}."""
    from sourcecheck.check import _match_citations, _retrieve
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import MiniLMEmbedding
    from sourcecheck.text.citations import strip_citations
    from sourcecheck.text.sentences import split_sentences

    from sourcecheck_eval.product import papers

    library = Library(None, MiniLMEmbedding(), 120)
    try:
        for filename, data in papers(record):
            library.ingest(library.add_pdf(data, filename)[0]["id"])
        ready = [d for d in library.list() if d["status"] == "ready"]
        checkable = [s for s in split_sentences(record["text"]) if s.checkable]
        claims = {s.index: strip_citations(s.text) for s in checkable}
        cited = {s.index: _match_citations(s.text, ready) for s in checkable}
        hits = _retrieve(library, checkable, claims, cited, [d["id"] for d in ready], 5)
        return {
            "claims": claims,
            "hits": hits,
            "filenames": {d["id"]: d["filename"] for d in ready},
            "sentences": {s.index: s.text for s in checkable},
            "documents": ready,
        }
    finally:
        library.close()


def kept(record: Mapping[str, Any]) -> dict[str, Any]:
    path = WORK / f"{record['id']}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())  # noqa: S301 - our own cache, written just below
    found = retrieve(record)
    WORK.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(found))
    return found


def measure(records: Sequence[Mapping[str, Any]], vectors: Any) -> list[dict[str, Any]]:
    """One row per labelled sentence with a settling passage: {record, kept_aside, page, quote, window, first}."""
    from sourcecheck.evidence import select_evidence, shortlist

    rows = []
    for record in records:
        got = kept(record)
        pdfs = record.get("meta", {}).get("pdfs")
        by_text = {" ".join(t.split()): i for i, t in got["sentences"].items()}
        for label in record["labels"]:
            if label.get("level") != "sentence" or label.get("source_index") is None or not label.get("source_quote"):
                continue
            index = by_text.get(" ".join(label["text"].split()))
            if index is None:
                continue
            claim = got["claims"][index]
            near = shortlist(claim, got["hits"][index], 10)
            evidence = select_evidence(claim, near, got["filenames"], 5, vectors.similarity(claim, near))
            want = pdfs[label["source_index"]] if pdfs else f"paper{label['source_index'] + 1}.pdf"
            mine = [e for e in evidence if e.filename == want]
            quote = label["source_quote"]
            rows.append(
                {
                    "record": record["id"],
                    "kept_aside": any(k in (want or "").lower() for k in KEPT_ASIDE),
                    "y": int(label["label"] == "supported"),
                    "page": any(e.page == label.get("page") for e in mine) if label.get("page") else bool(mine),
                    "quote": any(holds(e.quote, quote) for e in mine),
                    "window": any(holds(e.passage, quote) for e in mine),
                    "first": bool(evidence) and evidence[0].filename == want and holds(evidence[0].passage, quote),
                }
            )
    return rows


def share_interval(rows: Sequence[Mapping[str, Any]], what: str, resamples: int = 1000) -> tuple[float, float, float]:
    """The share of rows where `what` holds, with a 95 % bootstrap interval over the answers (records): one answer's
    sentences share a library and a writer."""
    by_record: dict[str, list[float]] = {}
    for r in rows:
        by_record.setdefault(r["record"], []).append(float(r[what]))
    groups = list(by_record.values())
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(resamples):
        picked = [groups[i] for i in rng.integers(0, len(groups), len(groups))]
        draws.append(sum(map(sum, picked)) / max(1, sum(map(len, picked))))
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return sum(map(sum, groups)) / max(1, len(rows)), float(lo), float(hi)


def table(name: str, rows: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for what in ("page", "quote", "window", "first"):
        if rows:
            mid, lo, hi = share_interval(rows, what)
            out.append(f"{what} {100 * mid:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]")
    return f"{name} (n={len(rows)}): " + ", ".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sourcecheck_eval.settling", description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, help="write the rows as JSON lines")
    args = parser.parse_args(argv)
    from sourcecheck.evidence import SentenceVectors
    from sourcecheck.library.embeddings import MiniLMEmbedding

    vectors = SentenceVectors(MiniLMEmbedding(), limit=200_000)
    everything = []
    for path in args.sets:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
        rows = measure(records, vectors)
        everything += [{"set": str(path), **r} for r in rows]
        tuned = [r for r in rows if not r["kept_aside"]]
        print(table(str(path), rows), flush=True)
        if len(tuned) != len(rows):
            print("  " + table("without the kept-aside packages", tuned), flush=True)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in everything))


if __name__ == "__main__":
    main(sys.argv[1:])
