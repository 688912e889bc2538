"""Issue 48: no evidence item is tagged "supports" whose value or name differs from the sentence's, over every
sentence of the product sets, through the whole check (real PDFs through PyMuPDF, the product's evidence choice, the
second read), with a judge that says Yes to everything, so that every sentence the rules let through is supported
and every item it could tag is looked at. The full-paper set's PDFs come from Debian packages
(`python -m sourcecheck_eval.papers fetch`); its answers are checked where they have been fetched."""

import re

import pytest
from sourcecheck.check import check_text
from sourcecheck.conflict import find_conflict
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.text.numerals import numbers
from sourcecheck.text.words import names
from sourcecheck_eval.product import papers
from sourcecheck_eval.records import load_records

pytestmark = pytest.mark.integration


class Yes(FakeModel):
    def choose(self, messages, choices, state=False):
        self._log("choose", messages)
        return {"Yes": 0.97, "No": 0.03}, "Yes", None


def records():
    found = []
    for half in ("dev", "test"):
        found += load_records(f"tests/data/chatpdfs/{half}.jsonl")
        for r in load_records(f"tests/data/fullpapers/{half}.jsonl"):
            try:
                papers(r)
            except (FileNotFoundError, OSError):
                continue  # not fetched here
            found.append(r)
    return found


def test_no_item_tagged_supports_states_a_value_or_a_name_otherwise_on_any_product_sentence():
    # the first read is never sure (its band covers everything), so every sentence is read again, and its second
    # read says supported: the stances come from the second read's decision
    calibration = {
        "a": 1.0,
        "b": 0.0,
        "bands": {"balanced": [0.0, 1.0]},
        "second": {"a": [0.0, 1.0], "b": 0.0, "bands": {"balanced": [0.1, 0.5]}},
    }
    tagged = checked = 0
    for record in records():
        library = Library(None, HashEmbedding(), 120)
        for filename, data in papers(record):
            library.ingest(library.add_pdf(data, filename)[0]["id"])
        scores = {}
        list(check_text(record["text"], library, Judge(Yes(), calibration=calibration), scored=scores.__setitem__))
        for score in scores.values():
            checked += 1
            for item, stance in zip(score.evidence, score.stances):
                if stance != "supports":
                    continue
                tagged += 1
                words = {w.lower() for w in re.findall(r"[\w'’-]+", item.passage)}
                assert numbers(score.claim) <= numbers(item.passage), (score.claim, item.passage)
                assert names(score.claim, sentence_starts=False) <= words, (score.claim, item.passage)
                assert find_conflict(score.claim, [item]) is None, (score.claim, item.passage)
    assert checked >= 250 and tagged >= 100  # the product sets' sentences, most of them with an item that states them
