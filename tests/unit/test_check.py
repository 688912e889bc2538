import math

import pytest
from sourcecheck.check import CheckOptions, check_text, collect, revise
from sourcecheck.errors import BadRequest, EmptyLibrary, EmptyText, NotFound, TextTooLong
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.text.sentences import split_sentences
from support import TEXT, bridge_and_fava


@pytest.fixture
def library(fava_pdf, bridge_pdf):
    return bridge_and_fava(fava_pdf, bridge_pdf)


def judge(model=None):
    return Judge(model or FakeModel(), calibration={"a": 1.0, "b": 0.0})  # raw scores


def test_events_come_in_order_with_labels_evidence_and_summary(library):
    model = FakeModel()
    events = list(check_text(TEXT, library, judge(model)))
    assert [e["type"] for e in events] == ["sentences"] + ["verdict"] * 5 + ["summary"]
    sentences = events[0]["sentences"]
    assert [s["checkable"] for s in sentences] == [False, True, True, True, False]
    for s in sentences:
        assert TEXT[s["start"] : s["end"]] == s["text"]
    # Every sentence is scored first; then the two that are not supported come again with their critiques.
    assert [(e["index"], e["label"], e["final"]) for e in events[1:6]] == [
        (1, "supported", True),
        (2, "contradicted", False),
        (3, "unsupported", False),
        (2, "contradicted", True),
        (3, "unsupported", True),
    ]
    assert all(e["critique"] is None and e["error_type"] is None for e in events[2:4])
    kinds = [kind for kind, _ in model.history]
    assert kinds[:3] == ["choose"] * 3  # 3 P(Yes), no text before the verdicts
    # the conflict is stated from the data; only the unsupported sentence gets a model-written critique, and
    # each revision is scored against its evidence before it is shown (one more P(Yes))
    assert kinds[3:].count("complete") == 1 and kinds[3] == "choose"
    opened, span, robots = events[1], events[4], events[5]
    assert (opened["index"], opened["label"]) == (1, "supported")
    assert span["label"] == "contradicted" and span["error_type"] == "entity"
    assert span["revised"] == "Its main span is 1,280 meters long."
    assert span["critique"].startswith("The sentence says 2,000; bridge.pdf, page 1 says 1,280")
    assert span["conflict"] == {
        "kind": "number",
        "claim_value": "2,000",
        "source_value": "1,280",
        "quote": "Its main span is 1,280 meters long, and for 27 years it was the longest "
        "suspension bridge span in the world.",
    }
    assert robots["label"] == "unsupported" and robots["error_type"] == "unverifiable"
    top = opened["evidence"][0]
    assert top["filename"] == "bridge.pdf" and top["page"] == 1 and top["stance"] == "supports"
    assert "May 27, 1937" in top["quote"]
    assert "1,280 meters" in span["evidence"][0]["quote"] and span["evidence"][0]["stance"] == "refutes"
    summary = events[-1]
    assert summary["counts"] == {"supported": 1, "uncertain": 0, "contradicted": 1, "unsupported": 1, "skipped": 2}
    assert summary["p_all_supported"] == pytest.approx(math.prod(v["p_supported"] for v in events[1:4]), abs=1e-6)
    assert [e["p_supported"] for e in events[4:6]] == [e["p_supported"] for e in events[2:4]]
    assert summary["revised_text"] is None


def test_revise_puts_each_verified_revision_in_place_and_keeps_the_rest_as_written(library):
    model = FakeModel()
    events = list(check_text(TEXT, library, judge(model), options=CheckOptions(revise=True)))
    summary = events[-1]
    # the wrong span put right from the source; the unsupported robots sentence has no revision: left, and said
    assert summary["revised_text"] == TEXT.replace("2,000 meters", "1,280 meters")
    verdicts = {e["index"]: e for e in events if e["type"] == "verdict" and e["final"]}
    assert summary["unrevised"] == [i for i, v in verdicts.items() if v["label"] == "unsupported"] != []


def test_revise_keeps_the_sentences_citation_markers(library):
    """The judge reads and revises the sentence without its citations; the revised text keeps them."""
    text = "Its main span is 2,000 meters long (Strauss et al., 1937). It was the longest span [2]."
    events = list(check_text(text, library, judge(), options=CheckOptions(revise=True)))
    assert events[-1]["revised_text"] == text.replace("2,000", "1,280")


def test_a_cards_revision_keeps_the_sentences_citations_where_the_model_dropped_them(library):
    """What Apply puts on the page is the card's revision: the model revised the sentence without its markers
    ("Strauss (1937)" read as "Strauss"), and the card's revision has them back, as Revise all's text does."""
    text = "Strauss (1937) built a bridge whose main span is 2,000 meters long [2]."
    events = list(check_text(text, library, judge(), options=CheckOptions(revise=True)))
    card = [e for e in events if e["type"] == "verdict" and e["final"]][-1]
    assert card["label"] == "contradicted"
    assert card["revised"] == text.replace("2,000", "1,280") == events[-1]["revised_text"]


def test_revise_keeps_paragraphs_and_list_items():
    sentences = split_sentences(text := "Intro line.\n\n- First claim is 2 m.\n- Second is fine.\n\nEnd.")
    first = next(s for s in sentences if "First" in s.text)
    verdicts = [
        {"index": first.index, "label": "contradicted", "revised": "First claim is 3 m."},
        {"index": first.index + 1, "label": "supported", "revised": None},
    ]
    assert revise(text, sentences, verdicts) == (text.replace("2 m", "3 m"), [])


@pytest.mark.parametrize("text, error", [("", EmptyText), ("  \n ", EmptyText), ("x" * 20001, TextTooLong)])
def test_bad_text_is_refused_before_any_event(library, text, error):
    with pytest.raises(error):
        check_text(text, library, judge())


def test_empty_library_is_refused_with_advice():
    with pytest.raises(EmptyLibrary) as err:
        check_text("The bridge is orange.", Library(None, HashEmbedding()), judge())
    assert "add PDFs" in err.value.message


def test_unknown_document_is_refused(library):
    with pytest.raises(NotFound):
        check_text("The bridge is orange.", library, judge(), documents=["d_nope"])


def test_restricting_to_documents_limits_evidence(library):
    fava = next(d for d in library.list() if d["filename"] == "fava.pdf")
    events = list(check_text("The bridge opened to traffic on May 27, 1937.", library, judge(), documents=[fava["id"]]))
    verdict = events[1]
    assert verdict["label"] != "supported"
    assert {e["document_id"] for e in verdict["evidence"]} == {fava["id"]}


def test_a_cited_paper_in_the_library_is_the_evidence(library, bridge_pdf):
    fava = next(d for d in library.list() if d["filename"] == "fava.pdf")
    library._records.docs[fava["id"]]["year"] = 2023  # the test PDF's first page has no year
    events = list(check_text("Mishra (2023) generated 35,074 training instances.", library, judge()))
    verdict = events[1]
    assert verdict["cited"] == [{"text": "Mishra (2023)", "document_id": fava["id"]}]
    assert {e["document_id"] for e in verdict["evidence"]} == {fava["id"]}
    assert verdict["label"] == "supported"
    events = list(check_text("Nobody (1999) generated 35,074 training instances.", library, judge()))
    assert events[1]["cited"] == [{"text": "Nobody (1999)", "document_id": None}]


def test_a_citation_naming_a_co_author_the_paper_does_not_have_is_not_supported(library):
    """A new user's answer named a wrong co-author and was shown supported; the PDF's own list of authors settles it
    (its metadata, which PyMuPDF reads: "Abhika Mishra, Akari Asai"), and the card is written from it."""
    fava = next(d for d in library.list() if d["filename"] == "fava.pdf")
    assert fava["authors_listed"] is True
    library._records.docs[fava["id"]]["year"] = 2023
    right = list(check_text("Mishra and Asai (2023) generated 35,074 training instances.", library, judge()))[1]
    assert right["cited"] == [{"text": "Mishra and Asai (2023)", "document_id": fava["id"]}]
    assert right["label"] == "supported"
    for text in (
        "Mishra and Kleiber (2023) generated 35,074 training instances.",
        "FAVA generated 35,074 training instances (Mishra & Kleiber, 2023).",
    ):
        events = list(check_text(text, library, judge(), options=CheckOptions(revise=True)))
        wrong = [e for e in events if e["type"] == "verdict"][-1]
        (cited,) = wrong["cited"]
        assert cited["document_id"] == fava["id"] and cited["not_authors"] == ["Kleiber"]
        assert cited["authors"] == ["Abhika Mishra", "Akari Asai"]
        assert wrong["label"] == "unsupported" and {e["document_id"] for e in wrong["evidence"]} == {fava["id"]}
        assert "is by Abhika Mishra and Akari Asai: Kleiber is not among them" in wrong["critique"]
        assert wrong["revised"] == text.replace("Kleiber", "Asai") == events[-1]["revised_text"]
    red = list(check_text("Mishra and Kleiber (2023) generated 40,000 training instances.", library, judge()))[1]
    assert red["label"] == "contradicted"  # a value the paper states otherwise stays red


def test_a_co_author_credited_in_prose_is_checked_against_the_retrieved_paper(library):
    """A new user's answer credited a paper to a wrong co-author in prose, with no year, on a passage that names no
    author, and was shown supported: the paper's own list of authors settles it as it settles a citation. No revision:
    two names in prose may be another work's."""
    docs = {d["filename"]: d for d in library.list()}
    fava, bridge = docs["fava.pdf"], docs["bridge.pdf"]
    library._records.docs[bridge["id"]].update(authors=["Irving Morrow", "May Strauss"], authors_listed=True)
    text = "The paper by Mishra and Kleiber generated 35,074 training instances."
    events = list(check_text(text, library, judge(), options=CheckOptions(revise=True)))
    wrong = [e for e in events if e["type"] == "verdict"][-1]
    assert wrong["cited"] == [
        {
            "text": "Mishra and Kleiber",
            "document_id": fava["id"],
            "authors": fava["authors"],
            "not_authors": ["Kleiber"],
            "in_prose": True,
        }
    ]
    assert wrong["label"] == "unsupported" and "credits Mishra and Kleiber" in wrong["critique"]
    assert "Kleiber is not among them" in wrong["critique"] and wrong["revised"] is None
    for fine in (
        "The paper by Mishra and Asai generated 35,074 training instances.",  # its authors
        "Mishra and Wang describe 35,074 training instances.",  # a name the paper has (page 1's third author)
        "The paper by Abhika and Kleiber generated 35,074 training instances.",  # a first name is no surname
        "The paper by Abhika Mishra and Akari Asai generated 35,074 training instances.",  # full names
        "Work by Wang, Mishra and Kleiber generated 35,074 training instances.",  # the end of a list
        "Mishra and Strauss describe 35,074 training instances.",  # another paper's author in the library
        "Mishra and Kleiber training instances number 35,074.",  # nothing credited to them
    ):
        verdict = list(check_text(fine, library, judge()))[1]
        assert verdict["cited"] == [] and verdict["label"] == "supported", fine


def test_a_co_author_is_looked_for_in_every_paper_of_that_author_and_year_and_only_a_whole_list_settles_it(library):
    docs = {d["filename"]: d for d in library.list()}
    fava, bridge = docs["fava.pdf"], docs["bridge.pdf"]
    library._records.docs[fava["id"]]["year"] = 2023
    both = {"year": 2023, "authors": ["Abhika Mishra", "Hanna Kleiber"], "authors_listed": True}
    library._records.docs[bridge["id"]].update(both)
    (other,) = list(check_text("Mishra and Kleiber (2023) measured the bridge.", library, judge()))[1]["cited"]
    assert other == {"text": "Mishra and Kleiber (2023)", "document_id": bridge["id"]}  # her other paper that year
    library._records.docs[bridge["id"]].update(authors=["Zoe Brandt"])
    colleagues = list(check_text("Mishra and Colleagues (2023) generated 35,074 training instances.", library, judge()))
    assert "not_authors" not in colleagues[1]["cited"][0] and colleagues[1]["label"] == "supported"
    for listed, authors in ((False, ["Abhika Mishra", "Akari Asai"]), (True, ["Abhika Mishra", ""])):
        # names read off page 1 may be its first row only; a blank creator is no author
        library._records.docs[fava["id"]].update(authors=authors, authors_listed=listed)
        verdict = list(check_text("Mishra and Kleiber (2023) generated 35,074 training instances.", library, judge()))[
            1
        ]
        assert "not_authors" not in verdict["cited"][0] and verdict["label"] == "supported", authors


def test_a_text_without_claims_has_no_verdicts(library):
    events = list(check_text("Hello! Is this right?", library, judge()))
    assert [e["type"] for e in events] == ["sentences", "summary"]
    assert events[-1]["p_all_supported"] == 1.0


def test_shared_evidence_block_grows_once_and_points_at_the_best_excerpt(library):
    model = FakeModel()
    text = "The bridge opened to traffic on May 27, 1937. Its main span is 1,280 meters long."
    list(check_text(text, library, judge(model)))
    first, second = (m[-1]["content"] for kind, m in model.history if kind == "choose")
    shared = first[: first.index("Claim:")].strip()
    assert second.startswith(shared)  # the second prompt extends the first: a KV-cache prefix


def test_a_repeated_check_is_answered_from_the_verdict_cache(library):
    model = FakeModel()
    j = judge(model)
    first = list(check_text(TEXT, library, j))
    calls = len(model.history)
    again = list(check_text(TEXT, library, j))
    assert len(model.history) == calls  # no model call the second time
    strip = [{k: v for k, v in e.items() if k != "elapsed_ms"} for e in first]
    assert strip == [{k: v for k, v in e.items() if k != "elapsed_ms"} for e in again]


def test_the_sensitivity_changes_which_sentences_are_marked(library):
    text = "The Golden Gate Bridge opened to traffic on May 27, 1937."
    labels = {}
    for sensitivity in ("relaxed", "balanced", "strict"):
        model = FakeModel()
        model.enqueue({"Yes": 0.6, "No": 0.4})
        events = list(check_text(text, library, judge(model), options=CheckOptions(sensitivity=sensitivity)))
        labels[sensitivity] = events[1]["label"]
        assert events[1]["p_supported"] == pytest.approx(0.6)  # the card's probability does not move
    assert labels == {"relaxed": "supported", "balanced": "supported", "strict": "unsupported"}


def test_an_unknown_sensitivity_is_refused_before_any_event(library):
    with pytest.raises(BadRequest) as err:
        check_text("The bridge is orange.", library, judge(), options=CheckOptions(sensitivity="paranoid"))
    assert "relaxed, balanced, strict" in err.value.message


def test_a_document_deleted_between_validation_and_scoring_gives_verdicts_not_a_crash(library):
    events = check_text("The bridge opened in 1937.", library, judge())
    for doc in library.list():
        library.delete(doc["id"])
    out = list(events)  # the evidence is now empty: an empty shared block must still be a cache key
    assert out[1]["type"] == "verdict" and out[1]["label"] == "unsupported" and out[1]["evidence"] == []


def test_the_first_verdict_does_not_wait_for_the_other_sentences_evidence(fava_pdf, bridge_pdf):
    embedded = []

    class Counting(HashEmbedding):
        def __call__(self, texts):
            embedded.append(list(texts))
            return super().__call__(texts)

    library = bridge_and_fava(fava_pdf, bridge_pdf, Counting())
    embedded.clear()  # the ingest's
    events = check_text(TEXT, library, judge())
    next(events)  # the sentences
    first = next(events)
    assert first["type"] == "verdict" and first["index"] == 1
    # one search for the three claims, then the first claim's candidate sentences only
    assert len(embedded) == 2 and len(embedded[0]) == 3
    assert embedded[1][0] == "The Golden Gate Bridge opened to traffic on May 27, 1937."
    assert "The bridge was the first one painted by robots." not in embedded[1]
    rest = list(events)
    assert list(dict.fromkeys(e["index"] for e in rest if e["type"] == "verdict")) == [2, 3]
    assert len(embedded) == 4 and embedded[3][0] == "The bridge was the first one painted by robots."
    embedded.clear()
    again = [e for e in check_text(TEXT, library, judge()) if e["type"] == "verdict"]
    assert len(embedded) == 1 and len(embedded[0]) == 3  # a re-check embeds its claims to search, no sentence again

    def shown(verdicts):
        return {e["index"]: (e["label"], [(q["page"], q["quote"]) for q in e["evidence"]]) for e in verdicts}

    before = shown(e for e in [first, *rest] if e["type"] == "verdict")
    assert shown(again) == before and any(quotes for _, quotes in before.values())  # the kept vectors, same evidence


def test_a_lone_surrogate_is_checked_and_kept_in_the_sentence_not_in_what_the_models_read(fava_pdf, bridge_pdf):
    class Strict(HashEmbedding):  # MiniLM's tokenizer and llama.cpp refuse text that is not valid UTF-8
        def __call__(self, texts):
            for t in texts:
                t.encode()
            return super().__call__(texts)

    class StrictModel(FakeModel):
        def choose(self, messages, *args, **kwargs):
            "".join(m["content"] for m in messages).encode()
            return super().choose(messages, *args, **kwargs)

        def complete(self, messages, max_tokens=200):
            "".join(m["content"] for m in messages).encode()
            return super().complete(messages, max_tokens)

    library = bridge_and_fava(fava_pdf, bridge_pdf, Strict())
    text = "The Golden Gate Bridge opened to traffic\ud800 on May 27, 1937. It was painted by robots."
    options = CheckOptions(decompose=True, revise=True)  # the decomposition, critique and revision prompts too
    events = list(check_text(text, library, judge(StrictModel()), options=options))
    sentences = events[0]["sentences"]
    assert text[sentences[0]["start"] : sentences[0]["end"]] == sentences[0]["text"]  # offsets match the page's text
    assert "\ud800" in sentences[0]["text"]
    verdicts = [e for e in events if e["type"] == "verdict" and e["final"]]
    assert len(verdicts) == 2 and events[-1]["type"] == "summary"


def test_scored_is_given_each_sentences_score_as_it_is_scored(library):
    scores = {}
    events = list(check_text(TEXT, library, judge(), scored=scores.__setitem__))
    verdicts = {e["index"]: e for e in events if e["type"] == "verdict"}
    assert sorted(scores) == sorted(verdicts) == [1, 2, 3]
    for index, score in scores.items():  # what each verdict's p came from
        assert (score.label, round(score.p_supported, 4)) == (verdicts[index]["label"], verdicts[index]["p_supported"])
        assert score.p_raw == pytest.approx(score.p_supported)  # identity calibration
        assert score.claim in TEXT and score.evidence and score.shown  # what it was scored on


def test_each_sentence_is_scored_with_its_candidate_passages_for_the_conflict_finder(library, monkeypatch):
    import sourcecheck.check

    seen = []
    find = sourcecheck.check.find_conflicts

    def recording(claim, evidence, also=()):
        seen.append((evidence, list(also)))
        return find(claim, evidence, also)

    monkeypatch.setattr(sourcecheck.check, "find_conflicts", recording)
    list(check_text(TEXT, library, judge(), options=CheckOptions(top_k=2)))
    ids = {d["id"] for d in library.list()}
    assert len(seen) == 3
    for evidence, also in seen:  # the search's candidates, more than the evidence shown, each with its document
        assert len(also) > len(evidence) and all(doc in ids and text for doc, text in also)
        assert {e.document_id for e in evidence} <= {doc for doc, _ in also}


def test_issue_36_a_red_number_card_carries_its_verified_revision_and_with_and_without_is_no_conflict(tmp_path):
    """A first user's walkthrough: "restricted to 5 hours" was red beside page 3's "3 hours" with no revision, and
    "FAVA is a retrieval-augmented model" was red because a page compares FAVA "with and without retrieval"."""
    from pdfs import make_pdf

    pages = [
        "FAVA: Fine-grained Hallucination Detection and Editing\n\nFAVA is a retrieval-augmented language model "
        "that detects fine-grained hallucinations in the output of language models and edits them.",
        "Ablations. Table 6 compares FAVA with and without retrieval augmentation on fine-grained hallucination "
        "detection.",
        "Human annotation. To limit fatigue, annotators were restricted to 3 hours a day.",
    ]
    lib = Library(None, HashEmbedding())
    doc, _ = lib.add_pdf(make_pdf(tmp_path / "fava.pdf", pages).read_bytes(), "fava.pdf")
    lib.ingest(doc["id"])
    text = (
        "FAVA is a retrieval-augmented model that detects fine-grained hallucinations. "
        "Annotators were restricted to 5 hours a day."
    )
    verdicts = collect(check_text(text, lib, judge()))["verdicts"]
    retrieval, hours = sorted(verdicts, key=lambda v: v["index"])
    assert retrieval["label"] != "contradicted", retrieval["critique"]
    assert hours["label"] == "contradicted" and hours["critique"].startswith("The sentence says 5; fava.pdf, page 3")
    assert hours["revised"] == "Annotators were restricted to 3 hours a day."


def test_a_sentence_the_first_read_is_not_sure_of_is_read_again_against_each_passage_and_comes_again(library):
    # The first read's band covers everything: every sentence without a conflict is uncertain, so is read again; the
    # second scale is the best single passage's P(Yes) itself (a₁ 0, a₂ 1, b 0).
    bands = {"balanced": [0.0, 0.999]}
    second = {"a": [0.0, 1.0], "b": 0.0, "bands": {"balanced": [0.3, 0.6]}}
    model = FakeModel()
    events = list(
        check_text(TEXT, library, Judge(model, calibration={"a": 1.0, "b": 0.0, "bands": bands, "second": second}))
    )
    assert events[0]["judge"]["rereads"] is True
    verdicts = [(e["index"], e["label"], e["final"], e["rereading"]) for e in events if e["type"] == "verdict"]
    # first reads in order (the red one is not read again), then the two second reads, then the one critique
    assert verdicts == [
        (1, "uncertain", False, True),
        (2, "contradicted", False, False),
        (3, "uncertain", False, True),
        (1, "supported", True, False),
        (3, "unsupported", False, False),
        (2, "contradicted", True, False),
        (3, "unsupported", True, False),
    ]
    reread = [e for e in events if e["type"] == "verdict"][3]
    alone = [m for kind, m in model.history[3:] if kind == "choose"][:3]
    # each prompt of the second read shows one evidence item, the three most relevant of the sentence's
    assert "[2]" in model.history[2][1][-1]["content"]  # the first read shows the check's shared block
    assert len(alone) == 3 and all(m[-1]["content"].count("[1]") == 1 and "[2]" not in m[-1]["content"] for m in alone)
    assert reread["evidence"][0]["stance"] == "supports" and "May 27, 1937" in reread["evidence"][0]["quote"]
    assert events[-1]["counts"] == {"supported": 1, "uncertain": 0, "contradicted": 1, "unsupported": 1, "skipped": 2}


def test_a_second_read_does_not_clear_a_sentence_naming_what_none_of_its_passages_names(library):
    """A passage read alone is found to support a claim about another name (issue 48: most of the full-paper errors
    the second read cleared): the first read's doubt stands, its P(supported) with it."""
    bands = {"balanced": [0.0, 0.999]}
    second = {"a": [0.0, 1.0], "b": 0.0, "bands": {"balanced": [0.3, 0.6]}}
    j = Judge(FakeModel(), calibration={"a": 1.0, "b": 0.0, "bands": bands, "second": second})
    text = (
        "The Golden Gate Bridge opened to traffic on May 27, 1937. "
        "The Golden Gate Bridge opened to traffic under Mayor Rossi."
    )
    verdicts = [e for e in check_text(text, library, j) if e["type"] == "verdict"]
    first = {e["index"]: e for e in verdicts if e["rereading"]}
    last = {e["index"]: e for e in verdicts}
    assert set(first) == {0, 1} and last[0]["label"] == "supported"  # read again, and cleared
    assert last[1]["label"] == "uncertain" and last[1]["p_supported"] == first[1]["p_supported"] and last[1]["final"]


def test_without_a_second_scale_nothing_is_read_again(library):
    model = FakeModel()
    events = list(
        check_text(TEXT, library, Judge(model, calibration={"a": 1.0, "b": 0.0, "bands": {"balanced": [0.0, 0.999]}}))
    )
    verdicts = [e for e in events if e["type"] == "verdict"]
    assert events[0]["judge"]["rereads"] is False
    assert [(e["index"], e["label"], e["final"]) for e in verdicts] == [
        (1, "uncertain", True),
        (2, "contradicted", False),
        (3, "uncertain", True),
        (2, "contradicted", True),
    ]
    assert not any(e["rereading"] for e in verdicts)


def test_a_sentence_whose_shared_block_outgrows_the_context_is_read_over_its_own_evidence(library):
    from sourcecheck.errors import ModelError

    model = FakeModel()
    # the third sentence's prompt (the block of all three) is too long for the model: a paper dense in numbers
    model.enqueue({"Yes": 0.9, "No": 0.1}, {"Yes": 0.9, "No": 0.1})
    model.enqueue(
        ModelError("The prompt has 4308 tokens, more than the model's context of 4096.", code="prompt_too_long")
    )
    events = list(check_text(TEXT, library, judge(model)))
    verdicts = {e["index"]: e for e in events if e["type"] == "verdict"}
    assert sorted(verdicts) == [1, 2, 3] and events[-1]["type"] == "summary"  # the check goes on
    chooses = [m[-1]["content"] for kind, m in model.history if kind == "choose"]
    blocked, alone = chooses[2], chooses[3]  # the refused prompt, then the same sentence over its own evidence
    claim = blocked[blocked.index("Claim:") :]
    assert alone.endswith(claim) and len(alone) < len(blocked)
    assert alone[: alone.index("Claim:")].count("[") < blocked[: blocked.index("Claim:")].count("[")
