import pytest
from pdfs import BRIDGE_PAGES, make_pdf, make_scanned_pdf
from sourcecheck.errors import NotFound, PDFError
from sourcecheck.library import INDEX_VERSION, Library
from sourcecheck.library.embeddings import HashEmbedding


@pytest.fixture
def library():
    return Library(None, HashEmbedding(), chunk_words=40)


def test_add_ingest_search_delete(library, fava_pdf, bridge_pdf):
    doc, created = library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    assert created and doc["status"] == "queued"
    doc = library.ingest(doc["id"])
    assert doc["status"] == "ready" and doc["pages"] == 3 and doc["chunks"] >= 3 and doc["progress"] == 1.0
    assert doc["title"].startswith("FAVA") and doc["authors"] == ["Abhika Mishra", "Akari Asai"]
    bridge, _ = library.add_pdf(bridge_pdf.read_bytes(), "bridge.pdf")
    library.ingest(bridge["id"])
    hits = library.search("How many training instances were generated?", k=3)
    assert hits[0].document_id == doc["id"] and hits[0].page == 2
    assert "35,074" in hits[0].text
    only_bridge = library.search("training instances", k=5, document_ids=[bridge["id"]])
    assert only_bridge and {h.document_id for h in only_bridge} == {bridge["id"]}
    library.delete(doc["id"])
    assert [d["id"] for d in library.list()] == [bridge["id"]]
    assert all(h.document_id == bridge["id"] for h in library.search("training instances", k=5))
    with pytest.raises(NotFound):
        library.get(doc["id"])


def test_same_bytes_twice_return_the_same_document(library, fava_pdf):
    first, created = library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    library.ingest(first["id"])
    again, created_again = library.add_pdf(fava_pdf.read_bytes(), "renamed.pdf")
    assert created and not created_again
    assert again["id"] == first["id"] and again["filename"] == "fava.pdf"
    assert library.counts()["documents"] == 1


@pytest.mark.parametrize(
    "make, code",
    [
        (lambda p: p.write_bytes(b"hello, not a pdf"), "not_a_pdf"),
        (lambda p: p.write_bytes(b""), "pdf_empty"),
        (lambda p: p.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50), "pdf_corrupt"),
        (lambda p: make_pdf(p, BRIDGE_PAGES, encrypt=True), "pdf_encrypted"),
    ],
)
def test_bad_pdfs_are_refused_before_anything_is_stored(library, tmp_path, make, code):
    path = tmp_path / "bad.pdf"
    make(path)
    with pytest.raises(PDFError) as err:
        library.add_pdf(path.read_bytes(), "bad.pdf")
    assert err.value.code == code
    assert library.list() == []


def test_truncated_pdf_is_refused_or_fails_cleanly(library, bridge_pdf):
    data = bridge_pdf.read_bytes()
    try:
        doc, _ = library.add_pdf(data[: len(data) // 2], "cut.pdf")
    except PDFError as e:
        assert e.code == "pdf_corrupt"
        return
    doc = library.ingest(doc["id"])  # PyMuPDF repairs some truncations: then it must end in a clear state
    assert doc["status"] in ("ready", "failed")
    assert doc["status"] == "ready" or doc["error"]["code"] in ("pdf_corrupt", "pdf_no_text")


def test_scanned_pdf_fails_with_advice_and_can_be_deleted(library, tmp_path):
    data = make_scanned_pdf(tmp_path / "scan.pdf").read_bytes()
    doc, _ = library.add_pdf(data, "scan.pdf")
    doc = library.ingest(doc["id"])
    assert doc["status"] == "failed" and doc["error"]["code"] == "pdf_no_text"
    assert "OCR" in doc["error"]["message"]
    assert library.counts()["chunks"] == 0
    again, created = library.add_pdf(data, "scan.pdf")  # a failed document may be tried again
    assert created is True and again["status"] == "queued"  # queued again: the caller queues its ingest
    library.delete(doc["id"])
    assert library.list() == []


def test_search_on_empty_library_returns_nothing(library):
    assert library.search("anything") == []


def test_add_text_indexes_plain_sources(library):
    doc = library.add_text("notes", ["The river is 300 km long.", "It flows north."])
    assert doc["status"] == "ready" and doc["pages"] == 2
    assert library.search("how long is the river", k=1)[0].page == 1


def test_a_document_indexed_under_an_older_index_version_is_indexed_again_staying_searchable(tmp_path, fava_pdf):
    """A version that reads or cuts pages otherwise (whole-sentence chunks) reaches the PDFs added before it; the
    document stays ready and found while its chunks are replaced, and none of the old ones is left over."""
    library = Library(tmp_path / "lib", HashEmbedding(), chunk_words=20)
    doc = library.ingest(library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")[0]["id"])
    assert doc["index_version"] == INDEX_VERSION and library.outdated() == [] and library.pending() == []
    library.set_metadata(doc["id"], index_version=None)  # as a library written before index versions
    library.close()
    seen = []

    class Watching(HashEmbedding):
        def __call__(self, texts):
            if texts != ["How many training instances?"]:  # while chunks are embedded: still ready, still found
                hits = library.search("How many training instances?", k=1)
                seen.append((library.get(doc["id"])["status"], bool(hits) and "35,074" in hits[0].text))
            return super().__call__(texts)

    library = Library(tmp_path / "lib", Watching(), chunk_words=40)  # cut coarser: old chunks are left over
    assert library.outdated() == [doc["id"]] and library.pending() == []
    again = library.reindex(doc["id"])
    assert seen and set(seen) == {("ready", True)}
    assert again["status"] == "ready" and again["index_version"] == INDEX_VERSION and again["title"] == doc["title"]
    assert again["chunks"] < doc["chunks"] and library.chunks.count() == again["chunks"] == len(library.chunks.lexical)
    assert library.outdated() == [] and "35,074" in library.search("How many training instances?", k=1)[0].text
    library.close()


def test_a_document_deleted_elsewhere_while_it_is_indexed_again_leaves_no_chunk(tmp_path, fava_pdf):
    """A shared library: another backend deletes it between two writes; the records say so at the next sync."""
    library = Library(tmp_path / "lib", HashEmbedding(), chunk_words=10)
    doc = library.ingest(library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")[0]["id"])
    library.set_metadata(doc["id"], index_version=None)
    calls = []

    class Forgetting(HashEmbedding):
        def __call__(self, texts):
            calls.append(len(texts))
            if len(calls) == 2:  # after the first group is written: the record is gone, its chunks are not
                library._records.docs.pop(doc["id"])
            return super().__call__(texts)

    library._embed = Forgetting()
    with pytest.raises(NotFound):  # as ingest() answers for a document deleted meanwhile
        library.reindex(doc["id"])
    assert len(calls) >= 2 and library.chunks.count() == 0 and len(library.chunks.lexical) == 0
    library.close()


def test_a_document_that_fails_to_be_indexed_again_keeps_what_it_had(tmp_path, fava_pdf):
    """A parse that times out on a busy machine at start-up must not cost the user a document that was ready."""
    library = Library(tmp_path / "lib", HashEmbedding(), chunk_words=40)
    doc = library.ingest(library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")[0]["id"])
    library.set_metadata(doc["id"], index_version=None)
    library.close()

    def timing_out(data, **kwargs):
        raise PDFError("Reading the PDF took too long.", code="pdf_timeout")

    library = Library(tmp_path / "lib", HashEmbedding(), chunk_words=40, parse=timing_out)
    kept = library.reindex(doc["id"])
    assert kept["status"] == "ready" and kept["chunks"] == doc["chunks"] == library.chunks.count()
    assert library.outdated() == [doc["id"]]  # tried again after the next start
    assert "35,074" in library.search("How many training instances?", k=1)[0].text
    library.close()


def test_a_short_document_reports_embedding_progress_in_several_steps(tmp_path):
    """The side panel's bar moves while a paper is embedded, not only at 10 % and at the end."""
    seen = []

    class Recording(HashEmbedding):
        def __call__(self, texts):
            seen.append([d["progress"] for d in library.list()][0])
            return super().__call__(texts)

    library = Library(None, Recording(), chunk_words=20)
    pages = [" ".join(f"Sentence {p}-{i} says something about otters." for i in range(40)) for p in range(4)]
    doc, _ = library.add_pdf(make_pdf(tmp_path / "long.pdf", pages).read_bytes(), "long.pdf")
    assert library.ingest(doc["id"])["status"] == "ready"
    embedding_calls = [p for p in seen if p >= 0.1]
    assert len(embedding_calls) >= 5 and embedding_calls == sorted(embedding_calls) and embedding_calls[-1] < 1.0


def test_ingest_many_reads_the_next_pdf_while_this_one_is_embedded(tmp_path):
    """The read-ahead: the embedder of the first document waits until the second is being read. Without it the
    wait times out and the test fails (no timing is measured)."""
    import threading

    from sourcecheck.pdf import parse_pdf

    second_read, reads, overlapped = threading.Event(), [], []

    class Waiting(HashEmbedding):
        def __call__(self, texts):
            overlapped.append(second_read.wait(timeout=20))
            return super().__call__(texts)

    def parse(data, on_page=None):
        reads.append(data)
        if len(reads) == 2:
            second_read.set()
        return parse_pdf(data, on_page=on_page)

    library = Library(None, Waiting(), chunk_words=400, parse=parse)
    pdfs = [
        make_pdf(tmp_path / f"{name}.pdf", [f"A page about the {name} and its {name} ways."])
        for name in ("otter", "kayak")
    ]
    ids = [library.add_pdf(p.read_bytes(), p.name)[0]["id"] for p in pdfs]
    done = list(library.ingest_many(ids))
    assert [d["status"] for d in done] == ["ready", "ready"] and [d["id"] for d in done] == ids
    assert overlapped == [True, True]


def test_same_bytes_arriving_at_once_are_checked_once_and_registered_once(fava_pdf):
    """Ten uploads of one file at once (issue 37): one document, one check of its bytes, one call told to queue it;
    the others wait for that answer instead of each reading the PDF."""
    import threading
    import time

    from sourcecheck.pdf import open_pdf

    checks = []

    def slow_check(data, pages):
        checks.append(1)
        time.sleep(0.3)  # the checker's child process takes a while: the other uploads arrive meanwhile
        open_pdf(data, pages).close()

    library = Library(None, HashEmbedding(), check=slow_check)
    data, answers = fava_pdf.read_bytes(), []
    threads = [threading.Thread(target=lambda: answers.append(library.add_pdf(data, "fava.pdf"))) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(checks) == 1
    assert len({doc["id"] for doc, _ in answers}) == 1 and [queued for _, queued in answers].count(True) == 1


def test_same_refused_bytes_arriving_at_once_get_the_same_refusal():
    import threading

    library = Library(None, HashEmbedding())
    errors = []

    def add():
        try:
            library.add_pdf(b"not a pdf at all", "x.pdf")
        except PDFError as e:
            errors.append(e.code)

    threads = [threading.Thread(target=add) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == ["not_a_pdf"] * 5 and library.list() == []
