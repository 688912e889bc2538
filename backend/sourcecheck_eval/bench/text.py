"""scripts/bench --only text: a check's text work is linear (issue 25). 20,000 characters of the worst kind for the
splitter, the citation finder or the conflict finder, each timed against plain prose of that length (the best of a
few runs of each, in turn, the garbage collector off, so a loaded machine slows both sides alike), and against a
quarter of itself (4x the text: 4x the time when linear, 16x when quadratic). Before the fix, splitting alone took
350 to 14,000 times as long as prose on the worst of these, and about half an hour on the first (it was cubic).
The cases are the test suite's too (tests/unit/test_text_work.py checks what they give, not how fast)."""

from __future__ import annotations

import gc
import random
import re
import time
from collections.abc import Callable
from typing import Any

from sourcecheck_eval.bench.data import ROOT

N = 20_000  # the default MAX_TEXT_CHARS
BOUND = 2  # what issue 25 asks: a hostile text within 2x of plain prose (per place a sentence may end)


def fill(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def plain(n: int = N) -> str:
    """Paragraphs of ordinary sentences, about 130 to check in 20,000 characters (the limit is 200)."""
    return fill(
        "The Golden Gate Bridge opened to traffic on May 27, 1937, after four years of work by a crew of "
        "several hundred people on both sides of the strait. Its main span is 1,280 meters long, and for 27 "
        "years it was the longest suspension bridge span anywhere in the world. Engineers chose the orange "
        "colour so that passing ships could see the towers through the thick fog of the bay.\n\n",
        n,
    )


def dna(n: int) -> str:
    rng = random.Random(1)
    return "".join(rng.choice("ACGT") for _ in range(n))


def lines(text: str, width: int = 60) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def claim(body: str, n: int) -> str:
    """One checkable sentence that the body runs on in: its citations, evidence and conflicts are looked for."""
    return ("The bridge record reads " + body)[: n - 1] + "."


CASES = {  # name: the text of n characters
    "a run without spaces, then short sentences": lambda n: claim(dna(n // 2) + fill(" Ok.", n), n),
    "'a. ' repeated": lambda n: claim(fill("a. ", n), n),
    "initials 'A. ' repeated": lambda n: claim(fill("A. ", n), n),
    "'Wait... ' repeated": lambda n: claim(fill("Wait... ", n), n),
    "a run of periods": lambda n: claim("." * (n - 35) + " and so on", n),
    "'1.2.3.4...'": lambda n: claim(".".join(map(str, range(n))), n),
    "a numbered list '1. 2. 3. 4.'": lambda n: claim(fill("1. 2. 3. 4. ", n), n),
    "DNA on one line": lambda n: claim(dna(n), n),
    "DNA in lines": lambda n: claim(lines(dna(n)), n),
    "DNA in lower-case lines (one soft-wrapped sentence)": lambda n: claim(lines(dna(n).lower()), n),
    "DNA in prose": lambda n: (plain(n // 5) + dna(n // 2) + " " + plain(n))[:n],
    "abbreviations": lambda n: claim(fill("e.g. i.e. et al. Dr. Fig. vs. approx. U.S. Ph.D. No. 5 ", n), n),
    "citations '(Smith et al., 2019; '": lambda n: claim(fill("(Smith et al., 2019; ", n), n),
    "narrative citations 'Smith (2019) and '": lambda n: claim(fill("Smith (2019) and ", n), n),
    "citations inside citations '[1[1]] 7 '": lambda n: claim(fill("[1[1]] 7 ", n), n),
    "nested numbered citations '[[1]] '": lambda n: claim(fill("[[1]] ", n), n),
    "numbered citations three deep '[1[2[3]]] '": lambda n: claim(fill("[1[2[3]]] ", n), n),
    "a citation inside a citation '(Smith (2010) 2011) '": lambda n: claim(fill("(Smith (2010) 2011) ", n), n),
    "hyphenated capitals 'A-A-A-'": lambda n: claim(fill("A-", n), n),
    "a run of spaces": lambda n: claim(" " * (n - 44) + "is long , very long", n),
    "comparatives 'higher'": lambda n: claim(fill("the span is higher ", n), n),
    "numbers, some stated in the sources": lambda n: claim(fill("1,280 meters and 27 years and 5 more, ", n), n),
}


def ends(text: str) -> int:
    """Places where a sentence may end (a period, a space, a capital or a digit): the splitter looks at each."""
    return len(re.findall(r"[.!?]+\s+[\"'“‘(\[*_]*[A-Z0-9]", text))


def best_of(fn: Callable[[str], object], text: str, baseline: str, runs: int) -> tuple[float, float]:
    """The best time of fn(text) and of fn(baseline), run in turn, so that both see the same load."""
    times: list[float] = []
    base: list[float] = []
    gc.disable()  # as timeit does: a collection of the whole test process is no part of either
    try:
        for _ in range(runs):
            for arg, out in ((text, times), (baseline, base)):
                start = time.perf_counter()
                fn(arg)
                out.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return min(times), min(base)


def bench_text(r: dict[str, Any]) -> None:
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(ROOT / "tests"))  # the suite's PDFs (tests/pdfs.py)
    from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf
    from sourcecheck.check import check_text
    from sourcecheck.conflict.quantities import find_numbers
    from sourcecheck.judging.judge import Judge
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding
    from sourcecheck.llm.fake import FakeModel
    from sourcecheck.text.sentences import split_sentences

    lib = Library(None, HashEmbedding())
    with tempfile.TemporaryDirectory() as tmp:
        for path in (
            make_pdf(Path(tmp) / "fava.pdf", FAVA_PAGES, title="FAVA"),
            make_pdf(Path(tmp) / "bridge.pdf", BRIDGE_PAGES),
        ):
            lib.ingest(lib.add_pdf(path.read_bytes(), path.name)[0]["id"])

    def first_verdict(text: str) -> None:  # or the summary, for a text with nothing to check
        find_numbers.cache_clear()  # each run reads its text afresh, as a new check of a new text does
        lib.sentence_vectors.clear()  # and embeds its sentences afresh
        events = check_text(text, lib, Judge(FakeModel(), calibration={"a": 1.0, "b": 0.0}))
        next(e for e in events if e["type"] in ("verdict", "summary"))

    rows = {}
    # split: the case's time over prose's, per place a sentence may end, over BOUND (≤ 1 meets issue 25)
    print(f"  {'case':<55} split/prose/2  split 4x/1x  first verdict/prose", flush=True)
    for name, make in CASES.items():
        text = make(N)
        took, prose = best_of(split_sentences, text, plain(), runs=5)
        allowed = BOUND * max(1.0, ends(text) / ends(plain()))
        four, quarter = best_of(split_sentences, text, make(N // 4), runs=5)
        check, check_prose = best_of(first_verdict, text, plain(), runs=3)
        rows[name] = {
            "split_vs_prose": took / prose / allowed,
            "split_4x": four / quarter,
            "check_vs_prose": check / check_prose,
        }
        print(
            f"  {name[:55]:<55} {took / prose / allowed:9.2f}x {four / quarter:10.1f}x {check / check_prose:12.2f}x",
            flush=True,
        )
    r["text"] = rows
    r["text_worst"] = {k: max(v[k] for v in rows.values()) for k in ("split_vs_prose", "split_4x", "check_vs_prose")}
