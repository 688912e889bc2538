#!/usr/bin/env python3
"""Validate the hand-labelled chat answers about full papers (tests/data/fullpapers/{dev,test}.jsonl).

Usage: .venv/bin/python tests/data/fullpapers/validate.py [FILE.jsonl ...]   (default: dev.jsonl test.jsonl)
The PDFs must be fetched first: .venv/bin/python -m sourcecheck_eval.papers fetch

A record: {"id": "paper-q<N>", "dataset": "fullpapers-dev" | "fullpapers-test", "task": "chat_answer_pdfs",
"sources": [], "text": the answer, "labels": [response label, sentence labels...], "spans": [],
"meta": {"pdfs": [file names of papers.json, the library the answer is checked against], "question": "..."}}

Checks (any failure -> exit code 1): ids unique; the dataset matches the half of every listed PDF's package
(papers.json); one response label first, agreeing with the sentence labels; sentence labels indexed 0..n-1,
text an exact substring of the answer, in order, without overlap; raw_label `true` or a FAVA type; a true
sentence and an entity/relation/contradictory error name `source_index` (into meta.pdfs), `page` (1-based)
and a `source_quote` found on that page of that PDF (compared after joining hyphenated line breaks,
expanding ligatures and collapsing white space); entity/relation/contradictory carry `claim_value` (a
substring of the sentence) and `source_value` (a substring of the quote), differing.
"""

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent
PAPERS = HERE.parents[2] / "tmp" / "papers"
TYPES = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
NEEDS_VALUES = ("entity", "relation", "contradictory")
_pages = {}


def norm(text):
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    text = text.replace("\u2212", "-").replace("\u2019", "'").replace("\u2018", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.split())


def page_text(pdf, page):
    key = (pdf, page)
    if key not in _pages:
        doc = pymupdf.open(PAPERS / pdf)
        _pages.update({(pdf, i + 1): norm(p.get_text()) for i, p in enumerate(doc)})
        doc.close()
    return _pages.get(key)


def check(rec, where, err, halves):
    for key in ("id", "dataset", "task", "sources", "text", "labels", "spans", "meta"):
        if key not in rec:
            return err(f"missing {key}")
    if not re.fullmatch(r"paper-q\d+", rec["id"]):
        err("id must be paper-q<N>")
    pdfs = rec["meta"].get("pdfs") or []
    if not pdfs or any(p not in halves for p in pdfs):
        return err(f"meta.pdfs must list PDFs of papers.json: {pdfs}")
    if {halves[p] for p in pdfs} != {rec["dataset"].removeprefix("fullpapers-")}:
        err(f"dataset {rec['dataset']} does not match the half of {pdfs}")
    response, *sentences = rec["labels"]
    if response.get("level") != "response":
        err("the first label must be the response label")
    pos, kinds = 0, []
    for i, lab in enumerate(sentences):
        w = f"sentence {i}"
        if lab.get("level") != "sentence" or lab.get("index") != i:
            err(f"{w}: level/index")
        at = rec["text"].find(lab.get("text", ""), pos)
        if not lab.get("text") or at < 0:
            err(f"{w}: text is not in the answer (in order): {lab.get('text')!r}")
        else:
            pos = at + len(lab["text"])
        raw = lab.get("raw_label")
        if raw not in ("true", *TYPES):
            err(f"{w}: raw_label {raw!r}")
            continue
        kinds.append(raw)
        want = "supported" if raw == "true" else "unsupported"
        if lab.get("label") != want or lab.get("error_types") != ([] if raw == "true" else [raw]):
            err(f"{w}: label/error_types do not fit raw_label {raw}")
        if raw == "true" or raw in NEEDS_VALUES:
            si, page, quote = lab.get("source_index"), lab.get("page"), lab.get("source_quote")
            if not isinstance(si, int) or not 0 <= si < len(pdfs) or not isinstance(page, int) or not quote:
                err(f"{w}: needs source_index, page and source_quote")
                continue
            text = page_text(pdfs[si], page)
            if text is None or norm(quote) not in text:
                err(f"{w}: quote not on page {page} of {pdfs[si]}: {quote!r}")
        if raw in NEEDS_VALUES:
            cv, sv = lab.get("claim_value"), lab.get("source_value")
            if not cv or cv not in lab["text"] or not sv or norm(sv) not in norm(lab.get("source_quote") or ""):
                err(f"{w}: claim_value must be in the sentence, source_value in the quote")
            elif norm(cv) == norm(sv):
                err(f"{w}: claim_value equals source_value")
    errors = sorted({k for k in kinds if k != "true"})
    want = ("supported", []) if not errors else ("unsupported", errors)
    if (response.get("label"), sorted(response.get("error_types") or [])) != want:
        err(f"response label must be {want}")
    return kinds


def main(paths):
    halves = {
        p["file"]: pkg["half"]
        for pkg in json.loads((HERE / "papers.json").read_text())["packages"]
        for p in pkg["pdfs"]
    }
    errs, seen, counts, records = [], set(), Counter(), 0
    for path in paths:
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            rec = json.loads(line)
            where = f"{Path(path).name}:{n} {rec.get('id')}"
            if rec.get("id") in seen:
                errs.append(f"{where}: duplicate id")
            seen.add(rec.get("id"))
            counts.update(check(rec, where, lambda m, w=where: errs.append(f"{w}: {m}"), halves) or [])
            records += 1
    print(f"{records} records, {sum(counts.values())} sentences: {dict(sorted(counts.items()))}")
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or [HERE / "dev.jsonl", HERE / "test.jsonl"]))
