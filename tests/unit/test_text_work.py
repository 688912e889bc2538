"""Hostile texts (scripts/bench --only text times them against prose: sourcecheck_eval/bench/text.py): each is split
into exact sentences and checked to its first verdict; what they give is tested here, how fast in the bench."""

import pytest
from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf
from sourcecheck.check import check_text
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.text.sentences import split_sentences
from sourcecheck_eval.bench.text import CASES, N, plain


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pdfs")
    lib = Library(None, HashEmbedding())
    for path in (make_pdf(tmp / "fava.pdf", FAVA_PAGES, title="FAVA"), make_pdf(tmp / "bridge.pdf", BRIDGE_PAGES)):
        doc, _ = lib.add_pdf(path.read_bytes(), path.name)
        lib.ingest(doc["id"])
    return lib


def test_the_cases_are_full_length_and_the_plain_text_can_be_checked():
    assert all(len(make(N)) == N and len(make(N // 4)) == N // 4 for make in CASES.values())
    assert len(plain()) == N and 100 < sum(s.checkable for s in split_sentences(plain())) <= 200


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_text_splits_into_exact_sentences_and_is_checked(library, name):
    text = CASES[name](N)
    sentences = split_sentences(text)
    assert sentences and all(text[s.start : s.end] == s.text for s in sentences)
    assert all(a.end <= b.start for a, b in zip(sentences, sentences[1:]))  # in order, none overlapping
    events = check_text(text, library, Judge(FakeModel(), calibration={"a": 1.0, "b": 0.0}))
    first = next(e for e in events if e["type"] in ("verdict", "summary"))
    assert first["type"] == "summary" or first["label"] in ("supported", "uncertain", "unsupported", "contradicted")
