"""What checks, the API and the side panel read of the Zotero source: collections (a check limited to one and its
subcollections), the zotero:// links on evidence, and the status with counts. Written by zotero_sync.py's syncs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck import zotero
from sourcecheck.errors import BadRequest, EmptyLibrary, NotFound, SourcecheckError
from sourcecheck.zotero_sync import load_state

if TYPE_CHECKING:  # annotations only: the caller hands over its library
    from sourcecheck.library import Library


def _paths(collections: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """{key: "Thesis/Chapter 2"} for each collection."""

    def path(key: str) -> str:
        c = collections[key]
        return f"{path(c['parent'])}/{c['name']}" if c["parent"] in collections else c["name"]

    return {key: path(key) for key in collections}


def _within(paths: Mapping[str, str], top: str) -> set[str]:
    """The keys of the collection at path top and of every collection under it."""
    return {k for k, p in paths.items() if p == top or p.startswith(top + "/")}


def _norm(name: str) -> str:
    return re.sub(r"\s*/\s*", "/", name.strip().strip("/")).casefold()


def collection_documents(index_dir: str | Path, name: str, library: Library) -> list[str]:
    """The documents of the Zotero collection named (by its name, or its path "Parent/Child"), its subcollections
    included, as the last sync found them."""
    state = load_state(index_dir)
    paths = _paths(state.get("collections", {}))
    picked = {k for k, p in paths.items() if _norm(name) in (_norm(p), _norm(p.rsplit("/", 1)[-1]))}
    if not picked:
        known = ", ".join(sorted(paths.values())[:12]) or "none: sync Zotero first (`sourcecheck ingest --zotero`)"
        raise NotFound(
            f"No Zotero collection is named {name!r}. The collections: {known}.", code="collection_not_found"
        )
    inside = set().union(*(_within(paths, paths[q]) for q in picked))
    present = {d["id"] for d in library.list()}
    return sorted(
        {e["doc"] for e in state["attachments"].values() if inside & set(e["collections"]) and e["doc"] in present}
    )


def limit_to_collection(
    collection: object, documents: list[str] | None, library: Library, index_dir: str | Path
) -> list[str] | None:
    """The documents a check reads: documents (None: every one) within the Zotero collection, when one is named."""
    if collection is None or collection == "":
        return documents
    if not isinstance(collection, str):
        raise BadRequest("'collection' must be the name of a Zotero collection.")
    picked = [d for d in collection_documents(index_dir, collection, library) if not documents or d in documents]
    if not picked:
        raise EmptyLibrary(
            f"The Zotero collection {collection!r} has no PDFs in your library"
            f"{' among the documents asked for' if documents else ''}. Add PDFs to it in Zotero, then sync "
            "(side panel: Settings → Zotero → Sync now; or `sourcecheck ingest --zotero`)."
        )
    return picked


# -- what the API and the side panel show ------------------------------------------------------------


def with_links(evidence: list[dict[str, Any]], documents: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Evidence from a Zotero PDF gets "zotero": the link that opens it in Zotero's reader at the evidence's page,
    the item's citation and its title."""
    items = {d["id"]: d for d in documents if d.get("zotero")}
    for ev in evidence:
        d = items.get(ev["document_id"])
        if d:
            z = d["zotero"]
            ev["zotero"] = {"url": f"{z['url']}?page={ev['page']}", "cite": z["cite"], "title": d["title"]}
    return evidence


def status(index_dir: str | Path, library: Library) -> dict[str, Any]:
    """The Zotero source as the side panel shows it: where, when synced, its PDFs and collections with counts."""
    state = load_state(index_dir)
    docs = {d["id"]: d for d in library.list()}
    entries = [e for e in state.get("attachments", {}).values() if e["doc"] in docs]
    cols = state.get("collections", {})
    paths = _paths(cols)
    found = state.get("data_dir")
    if not found:
        try:
            found = str(zotero.find_data_dir())
        except SourcecheckError:
            found = None
    return {
        "data_dir": found,
        "synced_at": state.get("synced_at"),
        "items": state.get("items", 0),
        "documents": len({e["doc"] for e in entries}),
        "ready": len({e["doc"] for e in entries if docs[e["doc"]]["status"] == "ready"}),
        "skipped": state.get("skipped", []),
        "collections": [
            {
                "key": key,
                "name": cols[key]["name"],
                "path": path,
                "documents": len({e["doc"] for e in entries if _within(paths, path) & set(e["collections"])}),
            }
            for key, path in sorted(paths.items(), key=lambda kv: kv[1].casefold())
        ],
    }
