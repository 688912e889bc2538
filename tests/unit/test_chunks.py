import logging
import threading
from pathlib import Path

import pytest
from sourcecheck.library import chunks, store
from sourcecheck.library.chunks import ChunkIndex, collection_name
from sourcecheck.library.embeddings import HashEmbedding

EMBED = HashEmbedding(dim=16)


def put(index, doc, n):
    """n chunks of document doc, written as ingestion writes them."""
    ids = [f"{doc}:1:{i}" for i in range(n)]
    texts = [f"chunk {i} of {doc} about otters" for i in range(n)]
    metas = [{"document_id": doc, "page": 1, "start": 10 * i, "end": 10 * i + 9} for i in range(n)]
    index.write(ids, texts, EMBED(texts), metas)
    return ids


@pytest.fixture
def memory():
    index = ChunkIndex(store.client(None), collection_name(None, EMBED), EMBED, threading.RLock())
    yield index
    index.close()


@pytest.fixture
def local(tmp_path):
    index = ChunkIndex(store.client(tmp_path), "chunks_hash", EMBED, threading.RLock(), tmp_path)
    yield index
    index.close()


def test_a_folder_or_server_names_its_collection_after_the_model_and_memory_afresh_each_time():
    assert collection_name(Path("index"), EMBED) == "chunks_hash"
    assert collection_name(None, EMBED) != collection_name(None, EMBED)
    assert collection_name(None, EMBED).startswith("chunks_")


def test_writes_and_removals_keep_chroma_and_the_lexical_index_in_step(memory):
    first = put(memory, "d1", 3)
    put(memory, "d2", 2)
    assert memory.count() == 5 and memory.lexical.counts() == {"d1": 3, "d2": 2}
    put(memory, "d1", 3)  # the same ids again: replaced, not added
    assert memory.count() == 5 and len(memory.lexical) == 5
    memory.remove_document("d1")
    assert memory.count() == 2 and memory.lexical.counts() == {"d2": 2}
    assert memory.collection.get(ids=first)["ids"] == []
    assert [cid for cid, _ in memory.lexical.top("otters", 5)] == ["d2:1:0", "d2:1:1"]


def test_a_local_count_is_kept_between_writes_and_a_shared_one_asked_each_time(tmp_path, memory):
    put(memory, "d1", 2)
    assert memory.count() == 2
    memory.collection.delete(ids=["d1:1:0"])  # behind the index's back: its count stands until its next write
    assert memory.count() == 2
    put(memory, "d2", 1)
    assert memory.count() == 2
    shared = ChunkIndex(
        store.client(None), collection_name(None, EMBED), EMBED, threading.RLock(), tmp_path, url="http://lab:8000"
    )
    put(shared, "d1", 2)
    assert (tmp_path / "lexical-http-lab-8000.sqlite").exists()
    shared.collection.delete(ids=["d1:1:0"])  # another backend's delete
    assert shared.count() == 1
    shared.close()


def test_deleted_chunks_are_compacted_once_as_many_as_are_left_and_at_least_compact_min(local, tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "COMPACT_MIN", 3)
    rebuilds = []
    rebuild = store.rebuild
    monkeypatch.setattr(store, "rebuild", lambda *args: rebuilds.append(args[-1]) or rebuild(*args))
    put(local, "d1", 4)
    put(local, "d2", 2)
    put(local, "d3", 1)
    local.remove_document("d2")
    local.compact_if_due()
    assert rebuilds == []  # 2 deleted: fewer than COMPACT_MIN
    local.remove_document("d3")
    before = local.collection
    local.compact_if_due()
    assert rebuilds == []  # 3 deleted, 4 left
    local.remove_document("d1")
    put(local, "d4", 1)
    local.compact_if_due()
    assert rebuilds == [chunks.READ_PAGE] and local.collection is not before  # 7 deleted, 1 left
    got = local.collection.get(include=["documents", "metadatas"])
    assert got["ids"] == ["d4:1:0"] and got["metadatas"][0]["document_id"] == "d4"
    assert local.collection.name == "chunks_hash" and local.count() == 1
    assert len([p for p in (tmp_path / "chroma").iterdir() if p.is_dir()]) == 1  # the dropped index's folder too
    local.compact_if_due()
    assert len(rebuilds) == 1  # the deletes were counted afresh after the rebuild


def test_a_memory_index_is_never_compacted(memory, monkeypatch):
    monkeypatch.setattr(chunks, "COMPACT_MIN", 1)
    tried = []
    monkeypatch.setattr(memory, "_compact", lambda: tried.append(1))  # compact_if_due would swallow a failure
    put(memory, "d1", 3)
    memory.remove_document("d1")
    memory.compact_if_due()
    assert memory._removed == 0 and tried == []  # a memory collection counts no deletes to rebuild for


def test_a_failed_rebuild_is_logged_and_leaves_the_collection_as_it_was(local, monkeypatch, caplog):
    monkeypatch.setattr(chunks, "COMPACT_MIN", 1)

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(store, "rebuild", fail)
    put(local, "d1", 2)
    put(local, "d2", 1)
    local.remove_document("d1")
    with caplog.at_level(logging.ERROR, logger="sourcecheck"):
        local.compact_if_due()
    assert "Rebuilding the Chroma collection failed" in caplog.text
    assert local.count() == 1 and local.collection.get()["ids"] == ["d2:1:0"]


def test_a_rebuild_a_crash_interrupted_is_finished_when_the_index_opens(tmp_path):
    client = store.client(tmp_path)
    copy = store.collection(client, "chunks_hash" + store.REBUILD, EMBED)
    copy.add(ids=["d1:1:0"], documents=["otters"], embeddings=EMBED(["otters"]), metadatas=[{"document_id": "d1"}])
    index = ChunkIndex(client, "chunks_hash", EMBED, threading.RLock(), tmp_path)  # the original was dropped
    assert index.collection.name == "chunks_hash" and index.count() == 1
    assert [c.name for c in client.list_collections()] == ["chunks_hash"]
    index.close()


def record(doc, n, status="ready"):
    return {"id": doc, "status": status, "chunks": n}


def test_reconcile_reads_again_a_document_indexed_otherwise_and_drops_one_without_a_record(memory, monkeypatch):
    monkeypatch.setattr(chunks, "READ_PAGE", 2)
    put(memory, "d1", 5)
    put(memory, "d2", 2)
    put(memory, "queued", 3)
    memory.lexical.remove_document("d1")  # a crash between Chroma's write and the lexical one
    memory.lexical.add(["ghost:1:0"], ["otters"], ["ghost"])  # a document the records no longer have
    memory.lexical.remove_document("queued")
    memory.reconcile({"d1": record("d1", 5), "d2": record("d2", 2), "queued": record("queued", 3, "queued")})
    assert memory.lexical.counts() == {"d1": 5, "d2": 2}  # read 2 at a time; the one still queued is left as it is


def test_reconcile_reads_a_document_once_when_chroma_holds_another_number_than_its_record(memory, monkeypatch):
    put(memory, "d1", 3)
    docs = {"d1": record("d1", 4)}  # a chunk lost from Chroma: reading it again cannot mend that
    reads = []
    add = memory.lexical.add
    monkeypatch.setattr(memory.lexical, "add", lambda ids, *rest: reads.append(len(ids)) or add(ids, *rest))
    memory.reconcile(docs)
    memory.reconcile(docs)
    assert reads == [3] and memory.lexical.counts() == {"d1": 3}
    memory.reconcile({"d1": record("d1", 5)})  # the record changed: read again
    assert reads == [3, 3]


def test_close_drops_a_memory_collection_and_keeps_a_folder_s(tmp_path):
    client = store.client(None)
    index = ChunkIndex(client, collection_name(None, EMBED), EMBED, threading.RLock())
    name = index.collection.name
    index.close()
    assert name not in {c.name for c in client.list_collections()}
    client = store.client(tmp_path)
    folder = ChunkIndex(client, "chunks_hash", EMBED, threading.RLock(), tmp_path)
    put(folder, "d1", 2)
    folder.close()
    reopened = ChunkIndex(client, "chunks_hash", EMBED, threading.RLock(), tmp_path)
    assert reopened.count() == 2 and reopened.lexical.counts() == {"d1": 2}
    reopened.close()


def test_reconcile_reads_again_a_document_another_backend_indexed_again_into_as_many_chunks(memory):
    """A shared library: another backend's reindex (Library.reindex) upserts new texts over the same ids, so the
    count stays; the record's new index version says this backend's lexical words are old."""
    put(memory, "d1", 2)
    docs = {"d1": {**record("d1", 2), "index_version": 2}}
    memory.reconcile(docs)
    texts = ["chunk 0 about beavers", "chunk 1 about beavers"]
    memory.collection.upsert(  # as the other backend writes it: Chroma only, not this backend's lexical index
        ids=["d1:1:0", "d1:1:1"], documents=texts, embeddings=EMBED(texts), metadatas=[{"document_id": "d1"}] * 2
    )
    memory.reconcile(docs)
    assert memory.lexical.top("beavers", 5) == []  # the same version: nothing to read again
    memory.reconcile({"d1": {**record("d1", 2), "index_version": 3}})
    assert [cid for cid, _ in memory.lexical.top("beavers", 5)] == ["d1:1:0", "d1:1:1"]
