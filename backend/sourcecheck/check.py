"""THE pipeline: sentences → evidence → judge → verdicts, streamed as events.

Each sentence goes through named stages, in this order; each is a function whose signature holds what it reads and
what it gives, so a red sentence is explained by reading them in order (docs/how-it-checks.md):

1. evidence   _retrieve, shortlist, select_evidence (evidence.py) and judge.show: its items and the prompt's block
2. score      judge.raw: the model's P(Yes); judge.calibrate: where it lies on the judge's scale
3. conflicts  conflict.find_conflicts (the word and number rules), then reading.read_conflict (swaps read again)
4. decide     verdict.decide: the label and each item's stance
4b. reread    reread_sentence: a sentence left uncertain, read against each of its items alone (judge.alone), both
              reads combined (judge.combine) and decided again, once every sentence has its first verdict
5. card       explaining.explain: error type, critique and revision, in cards.py's words

score_sentence runs 2–4 and records each stage's output in a Score; _events runs 1, then it, then 4b, then 5.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from sourcecheck.conflict import find_conflicts, states_claim, unnamed
from sourcecheck.conflict.reading import read_conflict
from sourcecheck.errors import BadRequest, EmptyLibrary, EmptyText, SourcecheckError, TextTooLong
from sourcecheck.evidence import Evidence, EvidenceBlock, prompt_order, select_evidence, shortlist
from sourcecheck.judging.explaining import explain
from sourcecheck.judging.verdict import Score, decide
from sourcecheck.text.citations import (
    NOT_A_NAME,
    find_citations,
    find_name_pairs,
    is_author,
    keep_citations,
    strip_citations,
)
from sourcecheck.text.sentences import Sentence, split_sentences
from sourcecheck.zotero.view import with_links

if TYPE_CHECKING:  # annotations only: the pipeline is handed its library and judge
    from sourcecheck.judging.judge import Judge
    from sourcecheck.library import Library
    from sourcecheck.library.search import Hit

SETTLED = ("supported", "uncertain")  # labels whose card needs no critique: no model words, no revision
T = TypeVar("T")
R = TypeVar("R")
Event = dict[str, Any]

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class CheckOptions:
    revise: bool = False  # the text with every flagged sentence's verified revision in its place
    decompose: bool = False  # split long sentences into atomic claims first
    top_k: int = 5
    sensitivity: str | None = None  # relaxed | balanced | strict: how readily sentences are flagged


def check_text(
    text: str,
    library: Library,
    judge: Judge,
    documents: Sequence[str] | None = None,
    options: CheckOptions | None = None,
    max_chars: int = 20000,
    max_sentences: int = 200,
    scored: Callable[[int, Score], object] | None = None,
) -> Generator[Event, None, None]:
    """Validate now, then return a generator of events: sentences, one verdict each, summary.

    scored: called with each sentence's index and its Score as it is scored (what its p came from: the evaluation
    records it). Raises EmptyText, TextTooLong, EmptyLibrary (and NotFound for an unknown document) before any event.
    """
    options = options or CheckOptions()
    if not text or not text.strip():
        raise EmptyText("There is no text to check; select some text first.")
    if options.sensitivity is not None and options.sensitivity not in judge.bands:
        raise BadRequest(f"Unknown sensitivity {options.sensitivity!r}; use one of {', '.join(judge.bands)}.")
    if len(text) > max_chars:
        raise TextTooLong(f"The text has {len(text):,} characters; the limit is {max_chars:,}. Check it in parts.")
    sentences = split_sentences(text)
    checkable = sum(s.checkable for s in sentences)
    if checkable > max_sentences:
        raise TextTooLong(
            f"The text has {checkable:,} sentences to check; the limit is {max_sentences:,} "
            "(the MAX_SENTENCES setting). Check it in parts."
        )
    for doc_id in documents or ():
        library.get(doc_id)
    ready = [d for d in library.list() if d["status"] == "ready" and (not documents or d["id"] in documents)]
    if not ready:
        raise EmptyLibrary(
            "The library has no ready documents to check against; add PDFs first "
            "(drop them on the side panel, or run `sourcecheck ingest FILE.pdf`)."
        )
    return _events(text, sentences, library, judge, ready, options, scored)


@dataclass(frozen=True)
class Job:
    """One sentence on its way through scoring and explaining."""

    index: int
    claim: str  # the sentence without its citation markers
    evidence: list[Evidence]  # items, most relevant first
    shown: list[Evidence]  # what the prompt shows (judge.show): the check's shared evidence block
    candidates: list[
        tuple[str, str]
    ]  # (document id, text) of every retrieved passage: where a value may be stated elsewhere


def _events(
    text: str,
    sentences: list[Sentence],
    library: Library,
    judge: Judge,
    ready: list[dict[str, Any]],
    options: CheckOptions,
    scored: Callable[[int, Score], object] | None = None,
) -> Generator[Event, None, None]:
    started = time.monotonic()
    # rereads: the judge reads unsure sentences twice (their verdicts come twice; the time left counts it)
    twice = judge.rereads_any and not options.decompose  # a decomposed sentence is read once
    about_judge = {"name": judge.model.name, "calibrated": judge.calibrated, "rereads": twice}
    yield {"type": "sentences", "sentences": [s.to_dict() for s in sentences], "judge": about_judge}
    checkable = [s for s in sentences if s.checkable]
    filenames = {d["id"]: d["filename"] for d in ready}
    cited = {s.index: _match_citations(s.text, ready) for s in checkable}
    # what the models read: a lone surrogate (JSON's "\\ud800"; the sentences keep it, their text the page's own) made
    # the tokenizers and llama.cpp's UTF-8 encoding fail, so it reads as U+FFFD there
    claims = {s.index: strip_citations(LONE_SURROGATE.sub("\ufffd", s.text)) for s in checkable}
    # A sentence citing a paper in the library is checked against that paper (FacTool's citation check).
    # Retrieval sees the documents ready when the check started: not one still being ingested (its record has no
    # filename yet), nor the chunks Chroma still returns of one deleted meanwhile.
    hits = _retrieve(library, checkable, claims, cited, list(filenames), options.top_k)
    for s in checkable:  # authors credited in prose ("the package by Zeileis and Hothorn"), against its papers
        cited[s.index] += _credited(library, s.text, ready, {h.document_id for h in hits[s.index]})
    # The shared block grows in sentence order, so each prompt's evidence is fixed when its turn comes, its
    # sentences embedded then unless an earlier check met them (library.sentence_vectors); the model calls run up to
    # judge.model.concurrent at once (a remote server batches them; their evidence is then fixed up front), their
    # results taken in order.
    block = EvidenceBlock()
    workers = judge.model.concurrent

    def prepared() -> Iterator[Job]:
        for s in checkable:
            claim = claims[s.index]
            near = shortlist(claim, hits[s.index], 2 * options.top_k)
            evidence = select_evidence(
                claim, near, filenames, options.top_k, library.sentence_vectors.similarity(claim, near)
            )
            shown = judge.show(claim, evidence, block)
            yield Job(s.index, claim, evidence, shown, [(h.document_id, h.text) for h in hits[s.index]])

    by_citation: set[int] = set()  # sentences amber for a citation alone (_as_cited)

    def first_read(job: Job) -> Score:
        score = score_sentence(
            judge, job.claim, job.evidence, job.shown, job.candidates, options.decompose, options.sensitivity
        )
        return as_cited(job, score)

    def as_cited(job: Job, score: Score) -> Score:
        cited_as = _as_cited(score, cited[job.index])
        if cited_as.label != score.label:
            by_citation.add(job.index)
        return cited_as

    def score_one(job: Job) -> tuple[Job, Score]:
        try:
            return job, first_read(job)
        except SourcecheckError as e:
            if e.code != "prompt_too_long":
                raise
            # the shared block outgrew the model's context (its word budget holds ~4,300 tokens of a paper dense in
            # numbers and symbols): this sentence over its own evidence, and the next ones start a new block
            block.restart()
            job = replace(job, shown=judge.show(job.claim, job.evidence, EvidenceBlock()))
            return job, first_read(job)

    by_index: dict[int, Event] = {}
    again: list[tuple[Job, Score]] = []  # read a second time: sentences the first read is not sure of
    later: list[tuple[Job, Score]] = []  # flagged: their critiques to write

    def verdict_event(job: Job, score: Score, final: bool, rereading: bool = False) -> Event:
        # a supported or uncertain card is written from the data at once; a flagged one waits for its critique
        card = explain(judge, score) if score.label in SETTLED else {}  # settled: no revision to cite in
        event = {
            "type": "verdict",
            "index": job.index,
            "label": score.label,
            "p_supported": round(score.p_supported, 4),
            "error_type": None,
            "critique": None,
            "revised": None,
            **card,
            "final": final,
            "rereading": rereading,  # a second read follows: this verdict comes again (the same index)
            "evidence": with_links(_for_people(job.evidence, score.stances, score.label), ready),  # zotero://
            "cited": cited[job.index],
        }
        if score.conflict:
            event["conflict"] = score.conflict.to_dict()
        if scored:
            scored(job.index, score)
        return event

    with closing(ordered(score_one, prepared(), workers)) as scores:
        for job, score in scores:
            # a sentence to read again comes now as the first read left it, and again once read (the same index)
            reread = twice and judge.rereads(score.p_supported, score.label)
            by_index[job.index] = verdict_event(job, score, score.label in SETTLED and not reread, reread)
            if reread:
                again.append((job, score))
            elif score.label not in SETTLED:
                later.append((job, score))
            yield dict(by_index[job.index])
    # The second read (issue 48) once every sentence has its first verdict, so the first marks come as fast as
    # before: each doubtful sentence against each of its most relevant items on its own (judge.alone), in order.
    band2 = judge.second_bands[options.sensitivity or judge.sensitivity]

    def reread_one(item: tuple[Job, Score]) -> Score:
        job, score = item
        return as_cited(job, reread_sentence(judge, score, band2, job.candidates))

    with closing(ordered(reread_one, again, workers)) as rereads:
        for (job, _), score in zip(again, rereads):
            by_index[job.index] = verdict_event(job, score, score.label in SETTLED)
            if score.label not in SETTLED:
                later.append((job, score))
            yield dict(by_index[job.index])
    # Critiques are written only once every sentence has its verdict: the marks appear after the quick
    # scoring passes, and each card fills in when its critique is written (the same index again, final),
    # most doubtful first: red, then the lowest p.
    later.sort(key=lambda item: (item[1].label != "contradicted", item[1].p_supported))

    def explain_one(
        item: tuple[Job, Score],
    ) -> dict[str, Any]:  # the critique's prompt: the block as the last scoring prompt left it (shown_for)
        job, score = item
        if job.index in by_citation:  # amber for its citation alone: the card says so, from the data
            return citation_card(sentences[job.index].text, cited[job.index])
        try:
            return explain(judge, score, block.shown_for(job.shown))
        except SourcecheckError as e:
            if e.code != "prompt_too_long":
                raise
            return explain(judge, score)  # the critique over the sentence's own evidence (score_one's reason)

    with closing(ordered(explain_one, later, workers)) as cards:
        for (job, _), card in zip(later, cards):
            # the revision was written for the sentence without its citation markers (strip_citations): they go
            # back in, so that the card, Apply and Revise all keep "(1996)" and "[3]" where the sentence had them
            if card.get("revised") and job.index not in by_citation:  # citation_card's is the whole sentence
                card = {**card, "revised": keep_citations(sentences[job.index].text, card["revised"])}
            by_index[job.index] = {**by_index[job.index], **card, "final": True}
            yield dict(by_index[job.index])
    verdicts = list(by_index.values())
    counts = {
        "supported": 0,
        "uncertain": 0,
        "unsupported": 0,
        "contradicted": 0,
        "skipped": len(sentences) - len(checkable),
    }
    for v in verdicts:
        counts[v["label"]] += 1
    revised, unrevised = revise(text, sentences, verdicts) if options.revise else (None, None)
    yield {
        "type": "summary",
        "p_all_supported": round(math.prod(v["p_supported"] for v in verdicts), 6),
        "counts": counts,
        "revised_text": revised,
        "unrevised": unrevised,
        "calibrated": judge.calibrated,
        "elapsed_ms": int((time.monotonic() - started) * 1000),
    }


def score_sentence(
    judge: Judge,
    claim: str,
    evidence: Sequence[Evidence],
    shown: Sequence[Evidence] | None = None,
    also: Sequence[tuple[str, str]] = (),
    decompose: bool = False,
    sensitivity: str | None = None,
) -> Score:
    """Stages 2–4 of one sentence (the module's docstring), from single forward passes (no text is generated).

    evidence: its items, most relevant first; shown: the excerpts its prompt presents, in the prompt's order (the
    check's shared block, evidence.EvidenceBlock); default: the evidence itself (evidence.prompt_order). also:
    (document id, text) of its candidate passages, where a value may be stated that a shown passage seems to
    contradict. sensitivity:
    "relaxed", "balanced" or "strict", which of the calibration's bands grades it; default: the judge's."""
    shown = prompt_order(evidence) if shown is None else shown
    band = judge.bands[sensitivity] if sensitivity else judge.band
    # 2 score; calibrated on every call, since the judge's cache keeps the model's raw P(Yes)
    p_raw = judge.raw(claim, evidence, shown, decompose)
    p = judge.calibrate(p_raw)
    # 3 conflicts: the rules first; where they find none in a sentence not found supported, reading. A decomposed
    # sentence's p is its parts' product, which a swapped whole sentence's p cannot be compared with.
    conflict, disagreement = find_conflicts(claim, evidence, also)
    if conflict is None and p < band[1] and not decompose:
        conflict = read_conflict(judge, claim, evidence, shown, p, band[1])
    # 4 decide
    verdict = decide(p, band, conflict, disagreement, [states_claim(claim, e) for e in evidence])
    return Score(claim, list(evidence), list(shown), p_raw, p, verdict.found, verdict.label, verdict.stances)


def reread_sentence(judge: Judge, first: Score, band: Sequence[float], also: Sequence[tuple[str, str]] = ()) -> Score:
    """Stage 2b, the second read of a sentence the first read was not sure of: its claim against each of its most
    relevant items on its own (judge.alone), both reads combined on the judge's second scale (judge.combine) and
    graded by its band; the conflict rules found nothing the first time (a red sentence is not read again), but a
    supported one may still show two documents that disagree."""
    alone = judge.alone(first.claim, first.evidence)
    if not alone:  # no evidence to read alone: the first read's verdict stands (its scale is not the second's)
        return first
    p = judge.combine(first.p_raw, alone)
    conflict, disagreement = find_conflicts(first.claim, first.evidence, also)
    states = [states_claim(first.claim, e) for e in first.evidence]
    verdict = decide(p, band, conflict, disagreement, states)
    if verdict.label == "supported" and unnamed(first.claim, first.evidence)[1]:
        # it names something none of its passages names: the first read's doubt stands (a passage read alone is
        # found to support a claim about another name; under the shipped fit this keeps about 3 more of every 100
        # full-paper errors from being cleared at no more true sentences left unsure; docs/quality.md)
        return replace(first, alone=alone)
    found, label, stances = verdict.found, verdict.label, verdict.stances
    return replace(first, p_supported=p, conflict=found, label=label, stances=stances, alone=alone)


def revise(text: str, sentences: Sequence[Sentence], verdicts: Iterable[Event]) -> tuple[str, list[int]]:
    """(the text with each flagged sentence's revision in its place, the indices of flagged sentences left as they
    were because none of their revisions held). Each revision was verified against the sources when its card was
    written (explaining.revision_fault); everything around the sentences (paragraphs, list markers, headings) stays
    exactly as written, so nothing is duplicated or flattened, unlike a model rewriting the whole text."""
    out: list[str] = []
    at, unrevised = 0, []
    for v in sorted(verdicts, key=lambda v: v["index"]):
        if v["label"] in SETTLED:  # only flagged sentences (amber, red) have revisions
            continue
        if not v["revised"]:
            unrevised.append(v["index"])
            continue
        s = sentences[v["index"]]
        out += [text[at : s.start], v["revised"]]
        at = s.end
    return "".join(out) + text[at:], unrevised


def ordered(fn: Callable[[T], R], items: Iterable[T], workers: int = 1) -> Generator[R, None, None]:
    """fn(item) for each item, up to `workers` calls at once, yielded in the items' order (an error where its
    item's result would be). Closing the generator cancels the calls not started; those running finish and are
    dropped, so a client that leaves costs at most `workers` more calls."""
    if workers <= 1:  # no thread: each call made only when its result is asked for, as before
        yield from map(fn, items)
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="judge")
    try:
        futures = [pool.submit(fn, item) for item in items]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _for_people(evidence: Sequence[Evidence], stances: Sequence[str], label: str) -> list[dict[str, Any]]:
    """The evidence as the card shows it: what settles the sentence first (what refutes a contradicted one,
    what supports a supported one), then the most relevant."""
    rank = (
        {"refutes": 0, "supports": 1, "related": 2}
        if label == "contradicted"
        else {"supports": 0, "refutes": 1, "related": 2}
    )
    order = sorted(range(len(evidence)), key=lambda i: rank[stances[i]])
    return [evidence[i].to_dict(stances[i]) for i in order]


def collect(events: Iterable[Event]) -> dict[str, Any]:
    """The whole check as one object: each sentence's last (final) verdict, in the order they came."""
    out: dict[str, Any] = {"ok": True, "sentences": [], "verdicts": [], "summary": None}
    verdicts: dict[int, Event] = {}
    for event in events:
        kind = event.pop("type")
        if kind == "sentences":
            out["sentences"] = event["sentences"]
        elif kind == "verdict":
            verdicts[event["index"]] = event
        else:
            out["summary"] = event
    out["verdicts"] = list(verdicts.values())
    return out


def _retrieve(
    library: Library,
    sentences: Sequence[Sentence],
    claims: dict[int, str],
    cited: dict[int, list[dict[str, Any]]],
    documents: list[str],
    k: int,
) -> dict[int, list[Hit]]:
    """Candidate chunks for every sentence: one batched search, plus per-paper searches for citations."""
    candidates = 4 * k
    plain = [s for s in sentences if not any(c["document_id"] for c in cited[s.index])]
    found = dict(
        zip(
            [s.index for s in plain],
            library.search_many([claims[s.index] for s in plain], candidates, documents, candidates),
        )
    )
    for s in sentences:
        if s.index not in found:
            ids = [c["document_id"] for c in cited[s.index] if c["document_id"]]
            found[s.index] = library.search(claims[s.index], candidates, ids, candidates)
    return found


def _as_cited(score: Score, cited: Sequence[dict[str, Any]]) -> Score:
    """A sentence that cites a paper with a co-author the paper does not have is not supported as written, whatever
    its words' support (_match_citations): amber, with the paper's authors on its card. A red one stays red."""
    if score.label in ("supported", "uncertain") and any(c.get("not_authors") for c in cited):
        return replace(score, label="unsupported")
    return score


def _match_citations(sentence: str, documents: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Citation markers in the sentence, each with the library document it names (or None): one by its first author
    in that year, and of those one by its second author too where the marker names two. When none of them has that
    second author, and each has a whole list of two or more authors (authors_listed: not page 1's first row of
    names), the entry lists it in `not_authors` with the document's `authors` (FacTool's check of a citation against
    the real paper): the sentence cites the paper with a co-author it does not have."""
    out = []
    for c in find_citations(sentence):
        by_first = [d for d in documents if d.get("year") == c.year and is_author(c.author, _authors(d))]
        named = c.coauthor is not None and c.coauthor.lower() not in NOT_A_NAME
        both = [d for d in by_first if named and is_author(str(c.coauthor), _authors(d))]
        match = next(iter(both or by_first), None)
        entry: dict[str, Any] = {"text": c.text, "document_id": match["id"] if match else None}
        whole = all(d.get("authors_listed") and len(_authors(d)) >= 2 for d in by_first)
        if match and named and not both and whole:
            entry.update(authors=_authors(match), not_authors=[c.coauthor])
        out.append(entry)
    return out


def _credited(
    library: Library, sentence: str, documents: Sequence[dict[str, Any]], retrieved: set[str]
) -> list[dict[str, Any]]:
    """Two surnames the sentence credits in prose (find_name_pairs: "the package by Zeileis and Hothorn") whose first
    is an author's surname of a paper retrieved for it and whose second is no author of it: an entry as
    _match_citations writes for a marker with a co-author the paper does not have, `in_prose` (its card proposes no
    revision: the names may be another work's). Only where each such paper has a whole list of two or more authors,
    the second is the surname of no author in the library, and no passage of those papers has it: a paper names the
    co-authors of its authors' other work ("Koenker and Bassett" in a paper by Koenker and Xiao)."""
    surnames = {d["id"]: [a.split()[-1] for a in _authors(d)] for d in documents}
    out = []
    for c in find_name_pairs(sentence):
        second = str(c.coauthor)
        if second.lower() in NOT_A_NAME or any(is_author(second, names) for names in surnames.values()):
            continue
        papers = [d for d in documents if d["id"] in retrieved and is_author(c.author, surnames[d["id"]])]
        whole = all(d.get("authors_listed") and len(_authors(d)) >= 2 for d in papers)
        if papers and whole and not library.mentions(second, [d["id"] for d in papers]):
            entry = {"text": c.text, "document_id": papers[0]["id"], "authors": _authors(papers[0])}
            out.append({**entry, "not_authors": [second], "in_prose": True})
    return out


def _authors(document: Mapping[str, Any]) -> list[str]:
    """A document's author names: Zotero gives "" for a creator with no name, a record edited by hand anything."""
    names = document.get("authors")
    return [a for a in names if isinstance(a, str) and a.strip()] if isinstance(names, list) else []


def citation_card(text: str, cited: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The card of a sentence made unsupported by a citation alone (_as_cited), written from the data, not by the
    model (which reads the sentence without its markers and would find it supported): the paper's authors, and for a
    paper of two the sentence with its other author in the marker."""
    c = next(c for c in cited if c.get("not_authors"))
    authors, wrong = c["authors"], c["not_authors"][0]
    by = ", ".join(authors[:-1]) + " and " + authors[-1] if len(authors) > 1 else authors[0]
    critique = f"The sentence cites {c['text']}, but that paper in your library is by {by}: {wrong} is not among them."
    first = c["text"].split()[0].rstrip(",")  # the marker opens with its first author: "Mishra & Kleiber, 2023"
    others = [a for a in authors if not is_author(first, [a])]
    revised = None
    if c.get("in_prose"):
        critique = (
            f"The sentence credits {c['text']}, but that paper in your library is by {by}: {wrong} is not among them."
        )
    elif len(authors) == 2 and len(others) == 1 and c["text"] in text:
        surname = others[0].split()[-1]
        revised = text.replace(c["text"], re.sub(r"\b" + re.escape(wrong) + r"\b", surname, c["text"], count=1), 1)
    return {"critique": critique, "error_type": "entity", "revised": revised}
