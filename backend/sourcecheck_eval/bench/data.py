"""The bench's input: where it works, the FAVE abstracts it builds its library from, and the answer it checks."""

import gzip
import json
import shutil
import time
from pathlib import Path
from typing import Any

ROOT = Path.cwd()  # scripts/bench runs from the repository root
WORK = ROOT / "tmp" / "bench"  # git-ignored; the PDFs and the 100k-chunk index are built once and kept
INDEX = WORK / "index-fave"  # the library of the bench's PDFs (make_pdfs)
ANSWER_QUERY = "fave-q17"  # the FAVE query whose papers the answer (ANSWER) is about
# The FAVE paper set (github.com/elicit/fave-dataset, commit 03f3f26, MIT, Copyright 2023 Ought): one line per
# query, {"id", "query", "sources": ["title\n\nabstract", ...]}, all sources for the first QUERIES queries (the
# library) and the first for the rest (the search bench's words). Query fave-q3 is left out: it is kept aside for
# held-out checks of the product.
FAVE = Path(__file__).with_name("fave.jsonl.gz")
QUERIES, PAPERS_PER_PAGE, SEARCH_CHUNKS = 75, 2, 100_000
# A summary of the papers of FAVE query 17 (in the library): 5 supported, 3 wrong numbers, 2 invented.
ANSWER = [
    (
        "A national telephone survey of 4549 children aged 0 to 17 found that 60.6% had experienced at least one "
        "direct or witnessed victimization in the previous year.",
        "supported",
    ),
    ("Almost half of the children (56.3%) had experienced a physical assault in the study year.", "wrong number"),
    (
        "In a representative German survey, 13.5% of male and 16.1% of female respondents had been victims of "
        "severe physical or sexual abuse during childhood.",
        "supported",
    ),
    (
        "Of 2361 children seen by the Child Development Community Policing Program, 1209 received a direct, "
        "in-person response.",
        "wrong number",
    ),
    (
        "An acute clinical response was more likely for incidents of gang involvement, with an odds ratio of 8.12.",
        "supported",
    ),
    (
        "A randomized trial in 12 cities found that police training halved the trauma symptoms of child witnesses.",
        "invented",
    ),
    (
        "Child protection agencies failed to learn of approximately 35% of the cases involving parent or caretaker "
        "offenders.",
        "supported",
    ),
    ("The Second National Survey of Children's Exposure to Violence was conducted in 2015.", "wrong number"),
    ("Police departments that used body cameras reported 30% fewer repeat calls for domestic violence.", "invented"),
    (
        "Witnessing violence and victimization before age 10 predicted delinquency and violent behaviors in "
        "adolescence.",
        "supported",
    ),
]
TEXT = " ".join(s for s, _ in ANSWER)


def now() -> float:
    return time.perf_counter()


def fave_records(fave: str | Path = FAVE) -> list[dict[str, Any]]:
    """The FAVE queries the bench reads, in order (FAVE above)."""
    return [json.loads(line) for line in gzip.decompress(Path(fave).read_bytes()).decode("utf-8").splitlines()]


def make_pdfs(fave: str | Path = FAVE) -> list[Path]:
    """The library: ~300 pages of real abstracts, two per page, one PDF per FAVE query."""
    import pymupdf

    out = WORK / "pdfs-fave"  # one PDF per query, named by its id (fave-q17.pdf: the answer's papers)
    if (out / "done").exists():
        return sorted(out.glob("*.pdf"))
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    records = fave_records(fave)[:QUERIES]
    for r in records:
        doc = pymupdf.open()
        for p in range(0, len(r["sources"]), PAPERS_PER_PAGE):
            text = "\n\n".join(r["sources"][p : p + PAPERS_PER_PAGE])
            for size in (10, 9, 8, 7, 6, 5):  # insert_textbox writes nothing when the text does not fit
                page = doc.new_page()
                if page.insert_textbox(pymupdf.Rect(50, 50, 545, 790), text, fontsize=size) >= 0:
                    break
                doc.delete_page(-1)
        doc.set_metadata({"title": r["query"]})
        doc.save(str(out / f"{r['id']}.pdf"))
        doc.close()
    (out / "done").touch()
    return sorted(out.glob("*.pdf"))
