"""`sourcecheck eval`: the real checking pipeline over benchmark JSONL files, scored against their labels.

Each record's sources go into a fresh in-memory Library (same chunking, embedding and hybrid retrieval
as a user's library), then check_text() checks the record's text exactly as the API would. Only the
raw model scores (and the judge's signals) are cached; labels, calibration and thresholds are applied
when scoring, so a new calibration.json needs no new model run.

Over 300 lines: one command read top to bottom (sample, check, cache, score, fit, write); the scoring, fitting and
writing it calls live in metrics.py, fitting.py and report.py.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sourcecheck.check import CheckOptions, check_text, collect
from sourcecheck.errors import SourcecheckError

from sourcecheck_eval.align import items, score_view
from sourcecheck_eval.fitting import fit_calibration
from sourcecheck_eval.judge import LabAsking, features, lab_judge
from sourcecheck_eval.product import PRODUCT_SETS, papers, user_view
from sourcecheck_eval.records import dataset_name, load_records, pack_state, select, usable
from sourcecheck_eval.report import write_outputs

if TYPE_CHECKING:  # annotations only: the library and the models are imported where they are used
    from sourcecheck.check import Event
    from sourcecheck.judging.judge import Judge
    from sourcecheck.judging.verdict import Score
    from sourcecheck.library.chunks import Embed
    from sourcecheck.llm.base import Model

# Source files whose changes can change a raw score: part of the cache key (sourcecheck's, then EVAL_FILES).
FINGERPRINT_FILES = (
    "check.py",
    "judging/judge.py",
    "judging/explaining.py",
    "judging/calibration.py",  # the bands that decide which sentences are read a second time
    "calibration.json",  # which sentences are read a second time (its bands and second scale)
    "judging/prompting.py",
    "judging/cards.py",
    "conflict/__init__.py",
    "conflict/quantities.py",
    "conflict/phrases.py",
    "conflict/reading.py",
    "judging/verdict.py",
    "evidence.py",
    "library/__init__.py",
    "library/records.py",
    "library/chunks.py",
    "library/search.py",
    "library/lexical.py",
    "library/store.py",  # the Chroma collection's settings (its distance)
    "pdf/layout.py",
    "library/chunking.py",
    "text/sentences.py",
    "text/citations.py",
    "text/numerals.py",
    "text/words.py",
    "library/embeddings.py",
    "pdf/__init__.py",
    "llm/base.py",
    "llm/fake.py",
    "llm/llama_cpp.py",
    "llm/openai_compat.py",
)
EVAL_FILES = ("judge.py", "product.py")  # of sourcecheck_eval: how the judge asks, and the product-shaped sets' PDFs
CACHED_ERRORS = ("empty_text", "text_too_long", "empty_library", "prompt_too_long", "pdf_no_text")


# -- running the pipeline ------------------------------------------------------------------------


def fingerprint(
    settings: Mapping[str, Any],
    options: CheckOptions,
    model: Model,
    prompt_evidence: str = "shared",
    reading: str = "numbers",
    critique: bool = False,
    reread: tuple[float, float] | None = None,
) -> str:
    """What a raw score depends on: model, embedding, chunking, retrieval options, how the judge asks (LabAsking),
    prompts and core code."""
    h = hashlib.sha256()
    model_id = {
        "backend": settings["BACKEND"],
        "model": model.name,
        "profile": model.profile,
        "n_ctx": settings["N_CTX"],
    }
    path = getattr(model, "path", None)
    if path is not None and Path(path).exists():
        model_id["size"] = Path(path).stat().st_size
    h.update(
        json.dumps(
            {
                "model": model_id,
                "embeddings": settings["EMBEDDINGS"],
                "chunk_words": settings["CHUNK_WORDS"],
                "options": {**asdict(options), "critique": critique},
                "prompt_evidence": prompt_evidence,
                **({} if reading == "numbers" else {"reading": reading}),
                **({} if reread is None else {"reread": list(reread)}),
            },
            sort_keys=True,
        ).encode()
    )
    root, lab = resources.files("sourcecheck"), resources.files("sourcecheck_eval")
    names = list(FINGERPRINT_FILES) + sorted(
        f"prompts/{p.name}" for p in root.joinpath("prompts").iterdir() if p.name.endswith(".txt")
    )
    files = [(name, root.joinpath(name)) for name in names] + [(f"eval/{n}", lab.joinpath(n)) for n in EVAL_FILES]
    for name, f in files:  # a file listed but gone (moved, renamed) would drop out of the key unseen
        if not f.is_file():
            raise FileNotFoundError(f"the cache key names {name} (FINGERPRINT_FILES or EVAL_FILES), which is gone")
        h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def options_pdfs(record: Mapping[str, Any], settings: Mapping[str, Any]) -> bool:
    """Whether a record's sources are checked as PDFs (the product-shaped sets), else as plain text."""
    return str(record.get("dataset", "")).startswith(PRODUCT_SETS)


def run_record(
    record: Mapping[str, Any],
    judge: Judge,
    embedding_function: Embed,
    settings: Mapping[str, Any],
    options: CheckOptions,
    critique: bool = False,
) -> dict[str, Any]:
    """Check one record through the real pipeline: what the cache keeps for it; with critique, its flagged
    sentences' cards too."""
    from sourcecheck.library import Library

    started = time.monotonic()
    library = Library(None, embedding_function, settings["CHUNK_WORDS"])
    try:
        if options_pdfs(record, settings):  # the papers as PDFs, through the parser like a user's
            for filename, data in papers(record):
                library.ingest(library.add_pdf(data, filename)[0]["id"])
        else:
            for i, source in enumerate(record["sources"], 1):
                if source and source.strip():
                    library.add_text(f"source {i}", [source], filename=f"source{i}.txt")
        indexed = time.monotonic()
        chunks = library.counts()["chunks"]
        scores: dict[int, Score] = {}  # what each verdict's p came from: its raw score, evidence and state
        events = check_text(
            record["text"],
            library,
            judge,
            None,
            options,
            settings["MAX_TEXT_CHARS"],
            settings["MAX_SENTENCES"],
            scored=scores.__setitem__,
        )
        got = collect(events if critique else scoring_only(events))
        verdicts = []
        for v in got["verdicts"]:
            score = scores[v["index"]]
            asking = cast(LabAsking, judge.asking)
            state = asking.state_of.get(asking.key(score.claim, score.evidence, score.shown))
            verdicts.append(
                {
                    "index": v["index"],
                    "label": v["label"],
                    "p": v["p_supported"],
                    "p_raw": score.p_raw,
                    "alone": score.alone,  # the second read's P(Yes) per item, most relevant first; [] if not read
                    "features": features(score),
                    "evidence": [{k: e[k] for k in ("filename", "page", "quote", "stance")} for e in v["evidence"]],
                    **({k: v[k] for k in ("error_type", "critique", "revised")} if critique else {}),
                    **({"state": pack_state(state)} if state is not None else {}),
                    "read": [  # the evidence as the judge read it, most relevant first: what a calibration set replays
                        {k: getattr(e, k) for k in ("passage", "quote", "filename", "page", "relevance")}
                        for e in score.evidence
                    ],
                }
            )
        return {
            "id": record["id"],
            "sentences": got["sentences"],
            "verdicts": verdicts,
            "error": None,
            "chunks": chunks,  # how long the sources are: a property a calibration may read
            "index_s": round(indexed - started, 3),
            "check_s": round(time.monotonic() - indexed, 3),
        }
    except SourcecheckError as e:
        if e.code not in CACHED_ERRORS:
            raise
        return {
            "id": record["id"],
            "sentences": [],
            "verdicts": [],
            "error": e.to_dict(),
            "index_s": 0.0,
            "check_s": round(time.monotonic() - started, 3),
        }
    finally:
        library.close()


def scoring_only(events: Iterator[Event]) -> Iterator[Event]:
    """A check's events up to its last sentence's verdict (a sentence read twice: its second), then the check closed:
    the critiques of flagged sentences come after every verdict (check._events), and closing the check before them
    starts none (an evaluation that scores needs no critique)."""
    with closing(events) as check:  # type: ignore[type-var]  # a generator
        left: int | None = None
        rereading: set[int] = set()
        seen: set[int] = set()
        for event in check:
            if event["type"] == "sentences":
                left = sum(s["checkable"] for s in event["sentences"])
            elif event["type"] == "verdict":
                seen.add(event["index"])
                (rereading.add if event.get("rereading") else rereading.discard)(event["index"])
            yield event  # read first: collect() takes "type" out of the event
            if left is not None and len(seen) == left and not rereading:
                return


class Cache:
    """One JSONL file per data set and fingerprint; a line per finished record, so a crash loses one."""

    def __init__(self, directory: str | Path, dataset: str, key: str) -> None:
        self.path = Path(directory) / f"{dataset}-{key}.jsonl"
        self.results: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    result = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interruption
                self.results[result["id"]] = result

    def get(self, record_id: str) -> dict[str, Any] | None:
        return self.results.get(record_id)

    def put(self, result: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(result, ensure_ascii=False) + "\n")
        self.results[result["id"]] = result


# -- the run ------------------------------------------------------------------------------------


def evaluate(
    paths: Iterable[str | Path],
    settings: Mapping[str, Any],
    limit: int | None = None,
    seed: int = 0,
    out: str | Path = "eval-out",
    cache_dir: str | Path | None = None,
    critique: bool = False,
    decompose: bool = False,
    model: Model | None = None,
    log: Callable[[str], object] | None = None,
    rescore: str | None = None,
    prompt_evidence: str = "shared",
    fit: bool = False,
    reading: str = "numbers",
    reread: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """Run and score every data file; write results.json, results.md, predictions.jsonl, reliability.png
    (and calibration.fitted.json with fit).

    rescore: a fingerprint from an earlier results.json: score the verdicts cached under it (an earlier
    pipeline's) with the current metrics and calibration, running nothing; uncached records are left out.
    prompt_evidence, reading: how the judge asks (judge.LabAsking; the defaults are what users get).
    reread: read again every sentence whose first P(supported) lies in [low, high) (Judge's reread), so that a
    second read's scale can be fitted on them (calibration.fit_second); default: what users get.
    fit: fit a calibration on these records (fitting.fit_calibration, written as calibration.fitted.json)
    and report how it does on each set when fitted on the others.
    """
    from sourcecheck.library.embeddings import make_embedding_function
    from sourcecheck.llm import load_model

    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(cache_dir) if cache_dir else out / "cache"
    model = model or load_model(settings)
    # the hidden state is read and cached with each raw score, so a verifier head can be fitted on it (head.py)
    judge = lab_judge(
        model,
        prompt_evidence=prompt_evidence,
        reading=reading,
        states=True,
        sensitivity=settings["SENSITIVITY"],
        reread=reread,
    )
    threshold = judge.band[0]  # "flagged" is amber or red, as users see it: below the band's low edge
    embedding_function = make_embedding_function(settings["EMBEDDINGS"])
    options = CheckOptions(top_k=settings["TOP_K"], decompose=decompose)
    key = rescore or fingerprint(settings, options, model, prompt_evidence, reading, critique, reread)
    report: dict[str, Any] = {
        "fingerprint": key,
        "rescored": bool(rescore),
        # the order of each verdict's `read` evidence: runs before 2026-12-06 kept it most relevant last
        "evidence_order": "most relevant first",
        "settings": {
            k: settings[k] for k in ("BACKEND", "MODEL", "N_CTX", "N_THREADS", "EMBEDDINGS", "TOP_K", "CHUNK_WORDS")
        },
        "threshold": threshold,
        "options": {**asdict(options), "critique": critique, "prompt_evidence": prompt_evidence, "reading": reading},
        "limit": limit,
        "seed": seed,
        "calibration": judge.calibration,
        "datasets": {},
    }
    predictions: list[dict[str, Any]]
    data: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]
    predictions, data = [], {}
    for path in paths:
        records = load_records(path)
        name = dataset_name(records, path)
        chosen = select(records, limit, seed)
        cache = Cache(cache_dir, name, key)
        log(
            f"{name}: {len(chosen)} of {len(records)} records ({len(records) - sum(map(usable, records))} "
            f"without sources or usable labels)"
        )
        results: list[tuple[dict[str, Any], dict[str, Any]]]
        results, fresh_s, fresh_n, missing = [], 0.0, 0, 0
        for n, record in enumerate(chosen, 1):
            result = cache.get(record["id"])
            if result is None and rescore:
                missing += 1
                continue
            if result is None:
                result = run_record(record, judge, embedding_function, settings, options, critique)
                cache.put(result)
                fresh_s += result["index_s"] + result["check_s"]
                fresh_n += 1
                log(
                    f"  [{n}/{len(chosen)}] {record['id']}: {len(result['verdicts'])} sentences, "
                    f"{result['index_s'] + result['check_s']:.1f} s"
                    + (f" ({result['error']['code']})" if result["error"] else "")
                )
            results.append((record, result))
        data[name] = results
        report["datasets"][name] = ds = score_dataset(name, results, judge, threshold, predictions)
        sentences = sum(len(r["verdicts"]) for _, r in results)
        total_s = sum(r["index_s"] + r["check_s"] for _, r in results)
        ds["timing"] = {
            "records": len(results),
            "sentences": sentences,
            "seconds": round(total_s, 1),
            "seconds_per_record": round(total_s / max(1, len(results)), 2),
            "seconds_per_sentence": round(total_s / max(1, sentences), 2),
            "index_seconds": round(sum(r["index_s"] for _, r in results), 1),
            "this_run_records": fresh_n,
            "this_run_seconds": round(fresh_s, 1),
        }
        ds["file"] = str(path)
        if missing:
            ds["missing_from_cache"] = missing
    report["fit"] = fit_calibration(data, judge.calibration, threshold) if fit else None
    if report["fit"]:
        (out / "calibration.fitted.json").write_text(json.dumps(report["fit"]["calibration"], indent=1) + "\n")
    write_outputs(out, report, predictions)
    return report


def score_dataset(
    name: str,
    results: Sequence[tuple[dict[str, Any], dict[str, Any]]],
    judge: Judge,
    threshold: float,
    predictions: list[dict[str, Any]],
) -> dict[str, Any]:
    by_view: dict[str, list[dict[str, Any]]]
    stats: dict[str, dict[str, int]]
    by_view, stats = {}, {}
    errors: dict[str, int] = {}
    units: list[Any]  # a record's (view, unit) pairs, then a view's units
    for record, result in results:
        if result["error"]:
            errors[result["error"]["code"]] = errors.get(result["error"]["code"], 0) + 1
        units, st = items(record, result, lambda p, _: judge.calibrate(p), threshold)
        for view, unit in units:
            by_view.setdefault(view, []).append(unit)
            predictions.append({"dataset": name, "view": view, **unit})
        for view, counts in st.items():
            agg = stats.setdefault(view, {})
            for k, v in counts.items():
                agg[k] = agg.get(k, 0) + v
    ds: dict[str, Any] = {"records": len(results), "errors": errors, "alignment": stats}
    for view, units in by_view.items():
        ds[view] = score_view(units, threshold, response=view == "response")
    ds["primary"] = next((v for v in ("grounded", "sentence", "response") if v in by_view), None)
    if any("settles" in u for u in by_view.get("sentence", [])):
        ds["user"] = user_view(by_view["sentence"], threshold)
    return ds
