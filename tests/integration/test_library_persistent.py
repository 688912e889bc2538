"""A persistent Chroma library with the real embedding model and real multi-page PDFs, closed and reopened."""

import pytest
from sourcecheck.library import Library
from sourcecheck.library.embeddings import MiniLMEmbedding

pytestmark = pytest.mark.integration


def test_persistent_library_survives_reopening(tmp_path, fava_pdf, bridge_pdf):
    path = tmp_path / "index"
    lib = Library(path, MiniLMEmbedding())
    ids = []
    for pdf in (fava_pdf, bridge_pdf):
        doc, _ = lib.add_pdf(pdf.read_bytes(), pdf.name)
        ids.append(lib.ingest(doc["id"])["id"])
    hit = lib.search("What colour is the bridge painted?", k=1)[0]
    assert (hit.document_id, hit.page) == (ids[1], 2) and "International Orange" in hit.text
    lib.close()

    reopened = Library(path, MiniLMEmbedding())
    assert [d["status"] for d in reopened.list()] == ["ready", "ready"]
    assert reopened.counts()["chunks"] >= 5
    hit = reopened.search("how many synthetic training examples were generated", k=1)[0]
    assert (hit.document_id, hit.page) == (ids[0], 2) and "35,074" in hit.text
    assert reopened.file_bytes(ids[0]) == fava_pdf.read_bytes()
    reopened.delete(ids[0])
    reopened.close()

    again = Library(path, MiniLMEmbedding())
    assert [d["id"] for d in again.list()] == [ids[1]]
    assert all(h.document_id == ids[1] for h in again.search("training instances", k=5))
    assert not (path / "files" / f"{ids[0]}.pdf").exists()


def test_semantic_search_finds_paraphrases(tmp_path, fava_pdf, bridge_pdf):
    lib = Library(tmp_path / "index", MiniLMEmbedding())
    docs = []
    for pdf in (fava_pdf, bridge_pdf):
        doc, _ = lib.add_pdf(pdf.read_bytes(), pdf.name)
        docs.append(lib.ingest(doc["id"])["id"])
    # Queries that share no content word with their page: only the embedding can find it, among five pages.
    for query, (doc, page) in (
        ("When did cars first drive across it?", (docs[1], 1)),
        ("Which hue was picked so that ships can see it in mist?", (docs[1], 2)),
        ("How much better did the detector score than OpenAI's chatbot?", (docs[0], 3)),
    ):
        hits = lib.search(query, k=5)
        assert (hits[0].document_id, hits[0].page) == (doc, page), query
        right = max(h.similarity for h in hits if (h.document_id, h.page) == (doc, page))
        wrong = [h.similarity for h in hits if (h.document_id, h.page) != (doc, page)]
        assert right > max(wrong, default=0.0) + 0.05, query  # by a margin, not by a hair


def test_lexical_index_is_persisted_and_reconciled_with_chroma(tmp_path, fava_pdf, bridge_pdf):
    from sourcecheck.library.embeddings import HashEmbedding  # lexical hits are what is looked at here

    path = tmp_path / "index"
    lib = Library(path, HashEmbedding())
    ids = [lib.ingest(lib.add_pdf(pdf.read_bytes(), pdf.name)[0]["id"])["id"] for pdf in (fava_pdf, bridge_pdf)]
    chunks = {i: lib.get(i)["chunks"] for i in ids}
    assert lib.chunks.lexical.counts() == chunks
    lib.close()

    reopened = Library(path, HashEmbedding())  # nothing read up front: the index is the file beside Chroma
    assert reopened.chunks.lexical.counts() == chunks
    hit = reopened.search("35,074 training instances", k=1)[0]
    assert hit.lexical > 0 and "35,074" in hit.text and hit.page == 2
    # A crash between Chroma's write and the lexical one, and a document the records no longer have:
    reopened.chunks.lexical.remove_document(ids[0])
    reopened.chunks.lexical.add(["ghost:1:0"], ["35,074 ghost words"], ["d_ghost"])
    reopened.close()
    repaired = Library(path, HashEmbedding())
    assert repaired.chunks.lexical.counts() == chunks
    assert repaired.search("35,074 training instances", k=1)[0].document_id == ids[0]

    (path / "lexical.sqlite").unlink()  # a library made before the lexical index was a file: built once
    for extra in path.glob("lexical.sqlite-*"):
        extra.unlink()
    repaired.close()
    rebuilt = Library(path, HashEmbedding())
    assert rebuilt.chunks.lexical.counts() == chunks
    assert "International Orange" in rebuilt.search("International Orange paint", k=1)[0].text


def test_a_recheck_reuses_the_real_sentence_embeddings_and_shows_the_same_evidence(tmp_path, fava_pdf, bridge_pdf):
    from sourcecheck.check import check_text
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm.fake import FakeModel

    class Counting(MiniLMEmbedding):
        def __call__(self, texts):
            embedded.append(list(texts))
            return super().__call__(texts)

    embedded: list[list[str]] = []
    lib = Library(tmp_path / "index", Counting())
    for pdf in (fava_pdf, bridge_pdf):
        lib.ingest(lib.add_pdf(pdf.read_bytes(), pdf.name)[0]["id"])
    claims = ["The Golden Gate Bridge opened to traffic in 1937.", "FAVA was trained on 35,074 synthetic examples."]
    text = " ".join(claims)

    def evidence():
        events = check_text(text, lib, Judge(FakeModel()))
        return [[e["quote"] for e in v["evidence"]] for v in events if v["type"] == "verdict" and v["final"]]

    try:
        embedded.clear()
        first = evidence()
        assert len(first) == 2 and all(first)
        assert len(embedded) == 3 and embedded[1][0] == claims[0] and len(embedded[1]) > 3  # its chunks' sentences
        embedded.clear()
        assert evidence() == first  # the same quotes from the kept vectors
        assert embedded == [claims]  # the search's embedding of the claims, no sentence again
        odd = list(check_text("The Golden Gate Bridge opened to traffic\ud800 in 1937.", lib, Judge(FakeModel())))
        assert odd[-1]["type"] == "summary" and [e["type"] for e in odd].count("verdict") >= 1  # MiniLM read it
    finally:
        lib.close()
