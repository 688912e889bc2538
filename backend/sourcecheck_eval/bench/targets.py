"""Issue 5's speed targets, as data: each measure's bound and how the table shows it (docs/performance.md)."""

import operator
from collections.abc import Callable
from typing import NamedTuple


class Target(NamedTuple):
    compare: Callable[[float, float], bool]  # measured, bound → met
    bound: float
    shown: str  # the table's "target" column


TARGETS = {
    "check_first_verdict_s": Target(operator.le, 2, "≤ 2 s"),
    "check_all_verdicts_s": Target(operator.le, 10, "≤ 10 s"),
    "check_speedup": Target(operator.ge, 8, "≥ 8×"),  # naive ÷ ours, all verdicts
    "check_same_label": Target(operator.ge, 0.95, "≥ 95%"),  # share of sentences with naive's label
    "ingest_pages_per_s": Target(operator.ge, 20, "≥ 20"),
    "ingest_embedding_bound": Target(operator.le, 1.3, "≤ 1.3×"),  # ingest time ÷ embedding-only time
    "ingest_langchain": Target(operator.gt, 1, "> 1×"),  # LangChain's time ÷ ours
    "server_ready_s": Target(operator.le, 3, "≤ 3 s"),
    "server_idle_rss_mb": Target(operator.le, 2048, "≤ 2 GB"),
    "search_hybrid_ms": Target(operator.le, 50, "≤ 50 ms"),  # median, at 100k chunks
    "search_first_s": Target(operator.le, 1, "≤ 1 s"),  # a new process: open the library, one search
    "parallel_speedup": Target(operator.ge, 3, "≥ 3×"),
    "zotero_status_s": Target(operator.le, 1, "≤ 1 s"),  # GET /zotero, 5,000 items in 200 collections
    "zotero_resync_s": Target(operator.le, 2, "≤ 2 s"),  # a sync with nothing changed
}


def target(name: str, measured: float | None) -> tuple[str, bool | None]:
    """(the target as shown, whether measured meets it; None when it was not measured)."""
    t = TARGETS[name]
    return t.shown, None if measured is None else t.compare(measured, t.bound)
