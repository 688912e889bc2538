"""scripts/bench: issue 5's speed targets measured in one run on this machine; see docs/performance.md.

One module per part (ingest, check, server, search; parallel is sourcecheck_eval/parallel.py), data.py for the input,
targets.py for the targets, host.py for the machine and its load, table.py for the table printed at the end.
"""

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from sourcecheck_eval.bench.check import bench_check
from sourcecheck_eval.bench.data import ANSWER_QUERY, INDEX, WORK, make_pdfs, now
from sourcecheck_eval.bench.estimate import bench_estimate
from sourcecheck_eval.bench.host import cpu_seconds, fmt, load_average, machine, others_cores, others_cores_between
from sourcecheck_eval.bench.ingest import bench_ingest
from sourcecheck_eval.bench.search import bench_search
from sourcecheck_eval.bench.server import bench_server
from sourcecheck_eval.bench.table import print_table
from sourcecheck_eval.bench.text import bench_text
from sourcecheck_eval.bench.zotero import bench_zotero
from sourcecheck_eval.bench.zotero_huge import bench_zotero_huge
from sourcecheck_eval.parallel import bench_parallel

PARTS = ["ingest", "check", "server", "search", "parallel", "zotero", "zotero-huge", "text", "estimate"]


def section(name: str, r: dict[str, Any], wait_idle: bool, fn: Callable[..., Any], *args: Any) -> Any:
    """Run one part; record how many cores other processes kept busy meanwhile (0 = a quiet machine)."""
    deadline = now() + 40 * 60
    while wait_idle and now() < deadline:
        busy = others_cores()
        if busy is None:
            print("  cannot tell how busy the machine is (n/a): not waiting", flush=True)
            break
        if busy <= 0.25:
            break
        print(f"  waiting for a quiet machine: other processes use {busy:.1f} cores", flush=True)
        time.sleep(20)
    print(f"{name} ...", flush=True)
    start, t = cpu_seconds(), now()
    try:
        return fn(*args)
    except Exception as e:  # one part failing still leaves the others' rows
        r.setdefault("errors", {})[name] = f"{type(e).__name__}: {e}"
        print(f"  {name} failed: {e}", flush=True)
    finally:
        r.setdefault("others_cores", {})[name] = others_cores_between(start, cpu_seconds(), now() - t)
        (WORK / "results.json").write_text(json.dumps(r, indent=1))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only", nargs="*", choices=PARTS, default=[p for p in PARTS if p not in ("zotero-huge", "estimate")]
    )
    parser.add_argument("--ablation", action="store_true", help="also check without the shared evidence block")
    parser.add_argument(
        "--wait-idle",
        action="store_true",
        help="before each part, wait (up to 40 min) until other processes use under 0.25 cores",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import MiniLMEmbedding

    r: dict[str, Any] = {"machine": machine(), "load_before": load_average()}
    WORK.mkdir(parents=True, exist_ok=True)  # each part writes results.json there
    started = now()
    print(r["machine"], f"— load average {fmt(r['load_before'], '.2f')}", flush=True)
    if set(args.only) - {"parallel", "zotero", "zotero-huge", "text"}:  # these need neither the PDFs nor MiniLM
        pdfs = make_pdfs()
        emb = MiniLMEmbedding()
        if "ingest" in args.only or not (INDEX / "documents.json").exists():  # written at the first record
            lib = section("ingest", r, args.wait_idle, bench_ingest, pdfs, emb, r)
        else:
            lib = Library(INDEX, emb)
    if "check" in args.only:
        section("check", r, args.wait_idle, bench_check, lib, r, args.ablation)
    if "server" in args.only:
        answer_pdf = next(p for p in pdfs if p.stem == ANSWER_QUERY)
        section("server", r, args.wait_idle, bench_server, answer_pdf, r)
    if "search" in args.only:
        section("search", r, args.wait_idle, bench_search, emb, r)
    if "parallel" in args.only:
        section("parallel", r, args.wait_idle, bench_parallel, r)
    if "zotero" in args.only:
        section("zotero", r, args.wait_idle, bench_zotero, r)
    if "zotero-huge" in args.only:  # not among the defaults' cost: it builds 100,000 PDFs once (~4 min, 0.5 GB)
        section("zotero-huge", r, args.wait_idle, bench_zotero_huge, r)
    if "estimate" in args.only:  # not among the defaults: it runs another model process beside the check
        section("estimate", r, args.wait_idle, bench_estimate, lib, r)
    if "text" in args.only:
        section("text", r, args.wait_idle, bench_text, r)
    r["load_after"], r["total_s"] = load_average(), now() - started
    (WORK / "results.json").write_text(json.dumps(r, indent=1))
    print(
        f"\nload average {fmt(r['load_before'], '.2f')} before, {fmt(r['load_after'], '.2f')} after; "
        f"{r['total_s']:.0f} s in all\n"
    )
    print_table(r)
