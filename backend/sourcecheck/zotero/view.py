"""What checks, the API and the side panel read of the Zotero source: collections (a check limited to one and its
subcollections), the zotero:// links on evidence, and the status with counts. Written by zotero/sync.py's syncs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck import zotero
from sourcecheck.errors import BadRequest, EmptyLibrary, NotFound, SourcecheckError
from sourcecheck.zotero.sync import load_state

SKIPPED_SHOWN = 200  # attachments not read, listed in the status (skipped_count says how many in all)

if TYPE_CHECKING:  # annotations only: the caller hands over its library
    from sourcecheck.library import Library


@dataclass(frozen=True)
class Tree:
    """The collections as a tree: each one's path ("Thesis/Chapter 2"), its children, and the collections whose
    parent link was dropped because it led round in a cycle (a crafted or damaged database): they count as tops."""

    paths: dict[str, str]
    children: dict[str, list[str]]
    tops: list[str]
    cycles: list[str]

    def within(self, key: str) -> list[str]:
        """key and every collection under it, each once (a walk with no recursion: any depth)."""
        out, todo = [], [key]
        while todo:
            k = todo.pop()
            out.append(k)
            todo += self.children.get(k, [])
        return out


def tree(collections: Mapping[str, Mapping[str, Any]]) -> Tree:
    paths: dict[str, str] = {}
    parent: dict[str, str | None] = {}
    cycles: list[str] = []
    for start in collections:
        chain: list[str] = []  # from start up to the first collection whose path is known, or a top
        on_chain: set[str] = set()
        k: str | None = start
        while k is not None and k not in paths:
            chain.append(k)
            on_chain.add(k)
            up = collections[k]["parent"]
            if up in on_chain:  # k's parent link closes a cycle: dropped, k counts as a top
                cycles.append(k)
                up = None
            parent[k] = up if up in collections else None
            k = parent[k]
        for c in reversed(chain):
            up = parent[c]
            name = collections[c]["name"]
            paths[c] = f"{paths[up]}/{name}" if up is not None else name
    children: dict[str, list[str]] = {}
    for k, up in parent.items():
        if up is not None:
            children.setdefault(up, []).append(k)
    return Tree(paths, children, [k for k, up in parent.items() if up is None], cycles)


def _norm(name: str) -> str:
    return re.sub(r"\s*/\s*", "/", name.strip().strip("/")).casefold()


def collection_documents(index_dir: str | Path, name: str, library: Library) -> list[str]:
    """The documents of the Zotero collection named (by its name, or its path "Parent/Child"), its subcollections
    included, as the last sync found them."""
    state = load_state(index_dir)
    cols = tree(state.get("collections", {}))
    paths = cols.paths
    names = state.get("collections", {})  # its own name may hold "/" ("Methods/Results"): not the path's tail
    picked = {k for k, p in paths.items() if _norm(name) in (_norm(p), _norm(str(names.get(k, {}).get("name", ""))))}
    if not picked:
        known = ", ".join(sorted(paths.values())[:12]) or "none: sync Zotero first (`sourcecheck ingest --zotero`)"
        raise NotFound(
            f"No Zotero collection is named {name!r}. The collections: {known}.", code="collection_not_found"
        )
    inside = {k for q in picked for k in cols.within(q)}
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
    t = tree(cols)
    held: dict[str, set[str]] = {}  # each collection's own documents, then (below) its subtree's
    for e in entries:
        for key in e["collections"]:
            held.setdefault(key, set()).add(e["doc"])
    # each collection's subtree counted once: children before parents, a child's set merged into its parent's
    for k in reversed([k for top in t.tops for k in t.within(top)]):
        for child in t.children.get(k, []):
            held.setdefault(k, set()).update(held.get(child, ()))
    found = state.get("data_dir")
    if not found:
        try:
            found = str(zotero.find_data_dir())
        except SourcecheckError:
            found = None
    skipped = state.get("skipped", [])
    return {
        "data_dir": found,
        "synced_at": state.get("synced_at"),
        "items": state.get("items", 0),
        "documents": len({e["doc"] for e in entries}),
        "ready": len({e["doc"] for e in entries if docs[e["doc"]]["status"] == "ready"}),
        "skipped": skipped[:SKIPPED_SHOWN],
        "skipped_count": len(skipped),
        "collections": [
            {"key": key, "name": cols[key]["name"], "path": path, "documents": len(held.get(key, ()))}
            for key, path in sorted(t.paths.items(), key=lambda kv: kv[1].casefold())
        ],
        "collection_cycles": sorted(t.paths[k] for k in t.cycles),
    }
