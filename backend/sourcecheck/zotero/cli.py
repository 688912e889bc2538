"""`sourcecheck ingest --zotero [DATA_DIR]`: a Zotero library's PDFs into the library, or in step with it again."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sourcecheck import zotero
from sourcecheck.zotero.sync import check_same_library, load_state, sync

if TYPE_CHECKING:  # annotations only: the command line opens the library and hands it over
    from sourcecheck.library import Library


def ingest_zotero(
    data_dir: str | None, index_dir: str, open_library: Callable[[], Library], replace: bool = False
) -> int:
    """Read Zotero, register its PDFs (hashed, checked), ingest what is new or changed; 1 when a PDF failed. An
    interrupted run (Ctrl-C, a kill) resumes where it stopped: run it again. Another library than the last one
    synced only with replace. open_library: the library, opened once Zotero has been read (its errors come first);
    the caller closes it."""
    from tqdm import tqdm

    found = zotero.find_data_dir(data_dir or load_state(index_dir).get("data_dir"))
    if not replace:
        check_same_library(index_dir, found)
    snap = zotero.read(found)
    pdfs = sum(a.content_type == "application/pdf" for a in snap.attachments)
    print(f"Zotero library {snap.data_dir}: {snap.items} items, {len(snap.attachments)} attachments ({pdfs} PDFs)")
    library, failed = open_library(), 0
    bar = tqdm(total=len(snap.attachments), unit="file", desc="zotero", file=sys.stderr, disable=None)
    try:
        report = sync(library, index_dir, snap, progress=lambda a: bar.update())
        bar.reset(total=len(report.queued))
        bar.unit, bar.desc = "PDF", "ingest"
        for doc in library.ingest_many(report.queued):
            bar.update()
            if doc["status"] == "failed":
                library.delete(doc["id"])  # as a folder ingest does: the reason is printed, the next run tries again
                bar.write(f"{doc['filename']}: {doc['error']['message']}", file=sys.stderr)
                failed += 1
            else:
                bar.write(f"{doc['id']}  {doc['title'][:60]}  {doc['pages']} pages, {doc['chunks']} chunks")
    except KeyboardInterrupt:
        library.stop()  # the write under way ends; the next run resumes from here
        bar.write("Stopped; run the same command again to go on.", file=sys.stderr)
        return 130
    finally:
        bar.close()
    print(
        f"added {report.added}, re-read {report.changed} changed, removed {report.removed}, "
        f"unchanged {report.unchanged}; {len(report.skipped)} skipped" + skipped_summary(report.skipped)
    )
    for s in report.skipped:
        print(f"  skipped {s['title'] or s['file']}: {s['error']['message']}", file=sys.stderr)
    return 1 if failed else 0


REASONS = {
    "not_a_pdf": "not a PDF",
    "zotero_link_only": "a link to a web page",
    "zotero_attachment_missing": "missing on disk",
}


def skipped_summary(skipped: list[dict[str, Any]]) -> str:
    """' (not a PDF: 2, missing on disk: 1)': the reasons, a PDF's own refusal (pdf_encrypted) by its code."""
    counts = Counter(s["error"]["code"] for s in skipped)
    parts = [f"{REASONS.get(code, code)}: {n}" for code, n in counts.most_common()]
    return f" ({', '.join(parts)})" if parts else ""
