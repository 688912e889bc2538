"""sourcecheck_eval/settling.py with distractors: a record's retrieval in the shared library searches its own PDFs
(under its own names) and the distractors, never another record's; the kept hits are reused only when they were
found with the same distractors."""

import pickle

import pytest
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck_eval import product, settling
from sourcecheck_eval.product import paper_pdf

RIVER = paper_pdf("Rivers\n\nThe river floods every spring.")
BRIDGE = paper_pdf("Bridges\n\nThe bridge is orange and the bridge is long.")
BEES = paper_pdf("Bees\n\nBees dance to show where the flowers are.")


def test_a_record_searches_its_own_pdfs_under_its_own_names_and_the_distractors(tmp_path, monkeypatch):
    monkeypatch.setattr(product, "papers", lambda record: record["files"])
    library = Library(tmp_path / "index", HashEmbedding())
    try:
        bees = library.ingest(library.add_pdf(BEES, "bees.pdf")[0]["id"])
        first = {"id": "a", "text": "The river floods.", "files": [("paper1.pdf", RIVER), ("paper2.pdf", BRIDGE)]}
        settling.retrieve(first, library, [bees])
        text = "The bridge is orange. Bees dance to show where the flowers are. The river floods every spring."
        got = settling.retrieve({"id": "b", "text": text, "files": [("paper1.pdf", BRIDGE)]}, library, [bees])
        # a record's PDFs leave the shared library with it: the next record's word counts do not include them
        assert [d["id"] for d in library.list()] == [bees["id"]]
    finally:
        library.close()
    bridge = Library.id_for(BRIDGE)
    assert got["filenames"] == {bridge: "paper1.pdf", bees["id"]: "bees.pdf"}  # not "a"'s paper2.pdf
    found = {h.document_id for hits in got["hits"].values() for h in hits}
    assert found == {bridge, bees["id"]}  # the river paper is "a"'s, not in "b"'s library
    assert got["distractors"] == [bees["id"]]


def test_kept_hits_are_reused_only_with_the_same_distractors(tmp_path, monkeypatch):
    folder = tmp_path / "distractors"
    folder.mkdir()
    with pytest.raises(SystemExit):
        settling.Distractors(folder, tmp_path / "work")
    (folder / "bees.pdf").write_bytes(BEES)
    distractors = settling.Distractors(folder, tmp_path / "work")
    assert distractors.ids == [Library.id_for(BEES)] and distractors.library is None  # no index opened for the key
    distractors.library = "the shared library"  # as if opened: retrieve is the fake below
    calls = []
    monkeypatch.setattr(settling, "retrieve", lambda record, *shared: calls.append(shared) or {"distractors": "new"})
    monkeypatch.setattr(settling, "WORK", tmp_path / "plain")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "r.pickle").write_bytes(pickle.dumps({"claims": "before distractors"}))
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "r.pickle").write_bytes(pickle.dumps({"distractors": ["d_other"]}))

    assert settling.kept({"id": "r"}) == {"claims": "before distractors"}  # the plain measure's cache still serves
    assert settling.kept({"id": "r"}, distractors) == {"distractors": "new"}  # found with other distractors: anew
    assert calls == [("the shared library", [])]
    (tmp_path / "work" / "r.pickle").write_bytes(pickle.dumps({"distractors": distractors.ids, "hits": "kept"}))
    assert settling.kept({"id": "r"}, distractors)["hits"] == "kept" and len(calls) == 1
