"""Is the sentence that settles a claim in front of the judge and the user? On every labelled sentence of the
product sets that names its source passage (source_index, page, source_quote): the share whose settling passage is
on a retrieved page, among the quotes shown, and inside the windows the judge reads (issue 48, item 1).

Retrieval is the product's (each record's PDFs ingested with the real embedding model, check.py's search), run once
and kept in tmp/settling/; the choice of quote and window (evidence.select_evidence) runs over the kept hits, so a
change to it is measured in seconds. No judge is involved.

With --distractors DIR every PDF of DIR is in each record's library too, as in a user's library of many papers
(tests/data/distractors: 55 near-topic R vignettes, ~1,000 pages, fetched by `python -m sourcecheck_eval.papers fetch
--manifest tests/data/distractors/papers.json --dest tmp/distractors`). They are ingested once into an index kept in
tmp/settling-distractors/, where the records' PDFs join them and the hits are kept apart from the plain measure's.

    python -m sourcecheck_eval.settling tests/data/chatpdfs/dev.jsonl tests/data/fullpapers/dev.jsonl
    python -m sourcecheck_eval.settling --distractors tmp/distractors tests/data/fullpapers/dev.jsonl
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
DISTRACTED = Path("tmp") / "settling-distractors"  # with --distractors: the shared index and the hits
KEPT_ASIDE = tuple(p.removeprefix("r-cran-") for p in sorted(PACKAGES))  # their PDFs: measured, never tuned on
FOUND = 0.8  # a text holds the settling passage when it has this share of the passage's content words


def holds(text: str, passage: str) -> bool:
    wanted = set(content_words(passage))
    return bool(wanted) and len(wanted & set(content_words(text))) >= FOUND * len(wanted)


def retrieve(record: Mapping[str, Any], library: Any = None, others: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """What a check of the record retrieves for each of its sentences: {"claims": {index: claim}, "hits":
    {index: [Hit]}, "filenames": {document_id: filename}, "sentences": {index: text}}. library: a shared one holding
    `others` (the distractors), searched among them and the record's PDFs; by default a fresh one in memory."""
    from sourcecheck.check import _match_citations, _retrieve
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import MiniLMEmbedding
    from sourcecheck.text.citations import strip_citations
    from sourcecheck.text.sentences import split_sentences

    from sourcecheck_eval.product import papers

    fresh = library is None
    if library is None:
        library = Library(None, MiniLMEmbedding(), 120)
    own: dict[str, str] = {}
    try:
        # the record's names, not the stored ones: in a shared library the same bytes (a chat set's abstract) may
        # have come first as another record's paper2.pdf
        for filename, data in papers(record):
            doc = library.add_pdf(data, filename)[0]
            if doc["status"] != "ready":  # a shared library ingests each PDF once, whichever record brings it
                library.ingest(doc["id"])
            own.setdefault(doc["id"], filename)
        mine = [{**d, "filename": own[d["id"]]} for d in map(library.get, own) if d["status"] == "ready"]
        ready = mine + [d for d in others if d["id"] not in own]
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
            "distractors": sorted(d["id"] for d in others),
        }
    finally:
        if fresh:
            library.close()
        else:  # the next record's search must not see these: the lexical score counts words over the whole index
            for doc_id in set(own) - {d["id"] for d in others}:
                library.delete(doc_id)


class Distractors:
    """The PDFs of a folder in a persistent library (work/index), ingested the first time it is needed: a record's
    retrieval then searches them beside its own PDFs. The index is kept as read: after a change to how PDFs are read
    or chunked, delete work/ (index and kept hits) to measure the change."""

    def __init__(self, folder: Path, work: Path = DISTRACTED) -> None:
        from sourcecheck.library import Library

        self.paths = sorted(folder.glob("*.pdf"))
        if not self.paths:
            raise SystemExit(f"no PDF in {folder}")
        self.ids = sorted({Library.id_for(p.read_bytes()) for p in self.paths})  # the cache's key, no index opened
        self.work = work
        self.library: Any = None
        self.ready: list[dict[str, Any]] = []

    def open(self) -> None:
        from sourcecheck.library import Library
        from sourcecheck.library.embeddings import MiniLMEmbedding

        self.library = Library(self.work / "index", MiniLMEmbedding(), 120)
        for d in self.library.list():  # a record's PDFs left by a run that stopped: they would weigh in its words
            if d["id"] not in self.ids:
                self.library.delete(d["id"])
        docs = [self.library.add_pdf(p.read_bytes(), p.name)[0] for p in self.paths]
        todo = [d["id"] for d in docs if d["status"] != "ready"]
        for d in self.library.ingest_many(todo):  # read-ahead: the next PDF is parsed while this one is embedded
            print(f"  distractor {d['filename']}: {d['status']}", file=sys.stderr, flush=True)
        self.ready = [d for d in map(self.library.get, self.ids) if d["status"] == "ready"]
        if len(self.ready) < len(self.ids):  # a PDF that cannot be read would leave the measure's libraries smaller
            raise SystemExit(f"{len(self.ids) - len(self.ready)} distractors failed to ingest in {self.work / 'index'}")

    def close(self) -> None:
        if self.library is not None:
            self.library.close()


def kept(record: Mapping[str, Any], distractors: Distractors | None = None) -> dict[str, Any]:
    """The record's retrieval, from the cache when it was run with the same distractors (none for the plain one)."""
    path = (distractors.work if distractors else WORK) / f"{record['id']}.pickle"
    if path.exists():
        found = pickle.loads(path.read_bytes())  # noqa: S301 - our own cache, written just below
        if found.get("distractors", []) == (distractors.ids if distractors else []):
            return found
    if distractors is None:
        found = retrieve(record)
    else:
        if distractors.library is None:
            distractors.open()
        found = retrieve(record, distractors.library, distractors.ready)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(found))
    return found


def measure(
    records: Sequence[Mapping[str, Any]], vectors: Any, distractors: Distractors | None = None
) -> list[dict[str, Any]]:
    """One row per labelled sentence with a settling passage: {record, kept_aside, page, quote, window, first}."""
    from sourcecheck.evidence import select_evidence, shortlist

    rows = []
    for record in records:
        got = kept(record, distractors)
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
    parser.add_argument("--distractors", type=Path, metavar="DIR", help="add every PDF of DIR to each library")
    args = parser.parse_args(argv)
    from sourcecheck.evidence import SentenceVectors
    from sourcecheck.library.embeddings import MiniLMEmbedding

    vectors = SentenceVectors(MiniLMEmbedding(), limit=200_000)
    distractors = Distractors(args.distractors) if args.distractors else None
    everything = []
    try:
        for path in args.sets:
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
            rows = measure(records, vectors, distractors)
            everything += [{"set": str(path), **r} for r in rows]
            tuned = [r for r in rows if not r["kept_aside"]]
            print(table(str(path), rows), flush=True)
            if len(tuned) != len(rows):
                print("  " + table("without the kept-aside packages", tuned), flush=True)
    finally:
        if distractors:
            distractors.close()
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in everything))


if __name__ == "__main__":
    main(sys.argv[1:])
