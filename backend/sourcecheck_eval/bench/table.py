"""The bench's results as one table: measure, measured, target, met."""

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sourcecheck_eval.bench.data import ANSWER
from sourcecheck_eval.bench.host import fmt
from sourcecheck_eval.bench.targets import target


def rows(r: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    out: list[tuple[str, str, str, str]] = []

    def row(name: str, value: str, target: str = "", met: bool | None = None) -> None:
        out.append((name, value, target, "" if met is None else ("yes" if met else "NO")))

    if "ours" in r:
        o, n, w = r["ours"], r["naive"], r["warm"]
        same = sum(a == b for a, b in zip(o["labels"], n["labels"])) / len(ANSWER)
        row("check: first verdict (ours)", f"{o['first_s']:.2f} s", *target("check_first_verdict_s", o["first_s"]))
        row(
            "check: all 10 verdicts (ours)",
            f"{o['verdicts_s']:.1f} s",
            *target("check_all_verdicts_s", o["verdicts_s"]),
        )
        if o.get("settled_s"):  # the second reads of the unsure ones, after every first verdict (issue 48: ≤ 1.3×)
            ratio = o["settled_s"] / o["verdicts_s"]
            row("check: every verdict settled, second reads included (ours)", f"{o['settled_s']:.1f} s ({ratio:.2f}×)")
        row("check: all 10 verdicts and their critiques (ours)", f"{o['all_s']:.1f} s")
        row("check: naive, first / all (critiques included)", f"{n['first_s']:.1f} s / {n['all_s']:.1f} s")
        row(
            "check: speed-up, naive ÷ ours (all verdicts)",
            f"{n['all_s'] / o['verdicts_s']:.1f}×",
            *target("check_speedup", n["all_s"] / o["verdicts_s"]),
        )
        row("check: speed-up, naive ÷ ours (with critiques)", f"{n['all_s'] / o['all_s']:.1f}×")
        row("check: speed-up, naive ÷ ours (first)", f"{n['first_s'] / o['first_s']:.1f}×")
        row("check: same label as naive", f"{100 * same:.0f}%", *target("check_same_label", same))
        row("check: prompt tokens read, ours / naive", f"{o['prompt']} / {n['prompt']}")
        row("check: tokens written (critiques), ours / naive", f"{o['written']} / {n['written']}")
        if "unshared" in r:
            u = r["unshared"]
            row(
                "check: ours without the shared block, all",
                f"{u['all_s']:.1f} s ({u['all_s'] / o['all_s']:.2f}× ours; "
                f"{u['prompt']} prompt tokens, {u['written']} written)",
            )
        row(
            "check: warm re-check (verdict cache, kept sentence vectors), all",
            f"{1000 * w['all_s']:.0f} ms ({o['all_s'] / w['all_s']:.0f}× faster)",
        )
        for name in ("ours", "naive"):
            right = sum(
                (lab == "supported") == (want == "supported") for lab, (_, want) in zip(r[name]["labels"], ANSWER)
            )
            row(f"check: {name} right on supported/not (of 10)", f"{right}")
    if "ingest_s" in r:
        pps, bound = r["pages"] / r["ingest_s"], r["ingest_s"] / r["embed_only_s"]
        row(
            "ingest: pages/s incl. embeddings",
            f"{pps:.1f} ({r['pages']} pages, {r['chunks']} chunks, {r['ingest_s']:.1f} s)",
            *target("ingest_pages_per_s", pps),
        )
        row(
            "ingest: time ÷ embedding-only bound",
            f"{bound:.2f}× (bound {r['embed_only_s']:.1f} s)",
            *target("ingest_embedding_bound", bound),
        )
        f = r["folder"]
        row(
            "ingest: folder (reader in its own process, next PDF read while this one is embedded), pages/s",
            f"{f['pages'] / f['read_ahead']:.1f} ({f['read_ahead']:.1f} s; one by one with the same reader "
            f"{f['pages'] / f['one_by_one']:.1f} pages/s, {f['one_by_one']:.1f} s: "
            f"{f['one_by_one'] / f['read_ahead']:.2f}×)",
        )
        z = r["zotero"]
        row(
            "ingest: the same PDFs from a Zotero library (`ingest --zotero`), pages/s",
            f"{z['pages'] / z['total']:.1f} ({z['total']:.1f} s, {z['total'] / f['read_ahead']:.2f}× the folder's; "
            f"reading zotero.sqlite and registering {z['sync']:.1f} s; a second sync, nothing changed, "
            f"{z['resync']:.2f} s)",
        )
        if r["langchain_s"] is None:
            row("ingest: LangChain recipe", r["langchain_note"])
        else:
            row(
                "ingest: LangChain time ÷ ours",
                f"{r['langchain_s'] / r['ingest_s']:.2f}× ({r['langchain_s']:.1f} s; {r['langchain_note']})",
                *target("ingest_langchain", r["langchain_s"] / r["ingest_s"]),
            )
    if "server_rss_mb" in r:
        row(
            "server: ready (GET /health answers)",
            f"{r['server_ready_s']:.2f} s",
            *target("server_ready_s", r["server_ready_s"]),
        )
        row(
            "server: first check of 3 sentences, after an upload (models warmed in the background)",
            f"{r['server_first_check_s']:.1f} s",
        )
        row(
            "server: idle RSS, model loaded after a check",
            f"{fmt(r['server_rss_mb'], '.2f', 1 / 1024, ' GB')} "
            f"(started {fmt(r['server_rss_started_mb'], '.0f', 1, ' MB')}, "
            f"after an upload {fmt(r['server_rss_ingested_mb'], '.0f', 1, ' MB')})",
            *target("server_idle_rss_mb", r["server_rss_mb"]),
        )
    if "users" in r:
        n = max(r["users"], key=int)
        one, many = r["users"]["1"], r["users"][n]
        for name, u in (("1 user", one), (f"{n} users at once", many)):
            c = u["checks"]
            row(
                f"server: {name}, {len(c)} checks of 3 sentences: verdicts/min",
                f"{u['per_min']:.1f}; p95 per check: first verdict {p95([x['first_s'] for x in c]):.1f} s, "
                f"all verdicts {p95([x['verdicts_s'] for x in c]):.1f} s, "
                f"with critiques {p95([x['all_s'] for x in c]):.1f} s",
            )
        row(f"server: throughput, {n} users ÷ 1 user", f"{many['per_min'] / one['per_min']:.2f}×")
    if "search_hybrid_ms" in r:
        row(
            f"search: top-5 hybrid at {r['search_chunks']:,} chunks (median)",
            f"{r['search_hybrid_ms']:.0f} ms (max {r['search_hybrid_max_ms']:.0f})",
            *target("search_hybrid_ms", r["search_hybrid_ms"]),
        )
        row("search: dense (Chroma HNSW) only, median", f"{r['search_dense_ms']:.1f} ms")
        c = r["search_cold"]
        row(
            "search: first search of a new process (library opened, then one search)",
            f"{c['open_s'] + c['first_s']:.2f} s (open {c['open_s']:.2f} s, search {1000 * c['first_s']:.0f} ms; "
            f"the next {1000 * c['second_s']:.0f} ms)",
            *target("search_first_s", c["open_s"] + c["first_s"]),
        )
    if "parallel" in r:
        p, one, many = r["parallel"], r["parallel"]["one_at_a_time"], r["parallel"]["at_once"]
        row(
            f"remote judge answering in {p['delay_s']} s: a check of 10 sentences ({one['requests']} calls), "
            f"one at a time / {p['concurrent']} at once",
            f"{one['s']:.2f} s / {many['s']:.2f} s ({p['speedup']:.1f}×; at most {many['peak']} calls at once)",
            *target("parallel_speedup", p["speedup"]),
        )  # 13 calls in 4 rounds
    if "zotero_large" in r:
        z = r["zotero_large"]
        where = f"{z['documents']:,} PDFs in {z['collections']} collections"
        row(
            f"zotero: GET /zotero, {where}",
            f"{r['zotero_status_s']:.3f} s",
            *target("zotero_status_s", r["zotero_status_s"]),
        )
        row(
            f"zotero: a sync with nothing changed, {where}",
            f"{r['zotero_resync_s']:.2f} s",
            *target("zotero_resync_s", r["zotero_resync_s"]),
        )
    for name, error in r.get("errors", {}).items():
        row(f"{name}: FAILED", error[:100])
    if "others_cores" in r:
        parts = {**r["others_cores"], **{k: r[k]["others_cores"] for k in ("ours", "naive", "unshared") if k in r}}
        shown = ", ".join(f"{k} {fmt(v, '.2f')}" for k, v in parts.items())
        row(f"other processes' CPU meanwhile (cores of {os.cpu_count()})", shown, "≈ 0")
    return out


def print_table(r: Mapping[str, Any]) -> None:
    table = [("measure", "measured", "target", "met")] + rows(r)
    widths = [max(len(t[i]) for t in table) for i in range(4)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(t, widths)) + " |" for t in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print("\n".join(lines))


def p95(values: Sequence[float]) -> float:
    return float(np.percentile(values, 95))
