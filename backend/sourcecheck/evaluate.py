"""`sourcecheck eval`: the real checking pipeline over benchmark JSONL files, scored against their labels.

Each record's sources go into a fresh in-memory Library (same chunking, embedding and hybrid retrieval
as a user's library), then check_text() checks the record's text exactly as the API would. Only the
raw model scores (and the judge's signals) are cached; labels, calibration and thresholds are applied
when scoring, so a new calibration.json or THRESHOLD needs no new model run.

How our sentences meet the data's labels (align()):
* Every labelled sentence/claim is located in the record's text: exact substring (searched from the end
  of the previous one), else the same words with any whitespace and case, else the run of 1-3 of our
  sentences that holds at least 70% of its characters (difflib blocks of 4+ characters), the tightest
  such run winning.
* One of our checkable sentences belongs to a labelled sentence when their overlap is at least half of
  either one (so a labelled sentence our splitter cut in two gets both parts, and one of ours that merges
  two labelled sentences serves both).
* The labelled sentence's score is the product of its parts' P(supported) (Factored Verification's rule).
* Dropped, and counted in "alignment": labelled sentences not found in the text, and those that no
  checkable sentence of ours covers (our splitter called them headings, questions or greetings).
Response level: P(text) = the product over all checked sentences (1 when none is checkable).
"""

import hashlib
import json
import math
import random
import re
import sys
import time
from dataclasses import asdict
from difflib import SequenceMatcher
from importlib import resources
from pathlib import Path

from sourcecheck import metrics
from sourcecheck.check import CheckOptions, check_text, collect
from sourcecheck.errors import SourcecheckError
from sourcecheck.judge import Judge

# Binary gold labels: 1 supported, 0 unsupported, None = not scored.
# FaithBench records carry the data's own binarisation ("binary"), which wins: benign → supported,
# questionable → None. partially_supported counts as unsupported: the tool must flag a sentence of
# which only part is supported.
LABELS = {"supported": 1, "unsupported": 0, "partially_supported": 0, "contradicted": 0,
          "not_enough_evidence": 0, "questionable": None, "benign": 1, "unknown": None}

# Source files whose changes can change a raw score: part of the cache key.
FINGERPRINT_FILES = ("check.py", "judge.py", "evidence.py", "library.py", "lexical.py", "chunking.py", "text.py",
                     "embeddings.py", "llm/base.py", "llm/fake.py", "llm/llama_cpp.py", "llm/openai_compat.py")
CACHED_ERRORS = ("empty_text", "text_too_long", "empty_library", "prompt_too_long", "pdf_no_text")


def gold(item):
    if "binary" in item:
        return LABELS.get(item["binary"]) if item["binary"] else None
    return LABELS.get(item.get("label"))


# -- choosing records ----------------------------------------------------------------------------


def load_records(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def usable(record):
    """A record with non-empty sources and at least one label we score."""
    if not any(s and s.strip() for s in record.get("sources") or ()):
        return False
    return any(gold(item) is not None for item in record["labels"]) or bool(grounded_items(record))


def select(records, limit=None, seed=0):
    """Usable records; with a limit, a reproducible random sample of whole pairs (HaluEval's right and
    hallucinated summaries stay together). The sample for a smaller limit is a prefix of a larger one."""
    chosen = [r for r in records if usable(r)]
    if limit is None or limit >= len(chosen):
        return chosen
    groups = {}
    for r in chosen:
        key = r.get("meta", {}).get("pair_index", r["id"])
        groups.setdefault(str(key), []).append(r)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    out = []
    for key in keys:
        if len(out) >= limit:
            break
        out.extend(groups[key])
    return out


def dataset_name(records, path):
    return records[0].get("dataset") if records and records[0].get("dataset") else Path(path).parent.name


# -- running the pipeline ------------------------------------------------------------------------


class RecordingJudge(Judge):
    """The normal judge, noting for each scored sentence the raw P(Yes) and the signals its final p came from."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.raw, self.features = [], []
        self._last = None

    def calibrate(self, p, features=None):
        self._last = (p, features)
        return super().calibrate(p, features)

    def score(self, *args, **kwargs):
        self._last = None
        v = super().score(*args, **kwargs)
        if self._last is None:
            raise RuntimeError("Judge.score() no longer calls calibrate(); the harness cannot see raw scores")
        self.raw.append(self._last[0])
        self.features.append(self._last[1])
        return v


def fingerprint(settings, options, model):
    """What a raw score depends on: model, embedding, chunking, retrieval options, prompts and core code."""
    h = hashlib.sha256()
    model_id = {"backend": settings["BACKEND"], "model": getattr(model, "name", settings["MODEL"]),
                "n_ctx": settings["N_CTX"]}
    path = getattr(model, "path", None)
    if path is not None and Path(path).exists():
        model_id["size"] = Path(path).stat().st_size
    h.update(json.dumps({"model": model_id, "embeddings": settings["EMBEDDINGS"],
                         "chunk_words": settings["CHUNK_WORDS"], "options": asdict(options)},
                        sort_keys=True).encode())
    root = resources.files("sourcecheck")
    names = list(FINGERPRINT_FILES) + sorted(f"prompts/{p.name}" for p in root.joinpath("prompts").iterdir()
                                             if p.name.endswith(".txt"))
    for name in names:
        f = root.joinpath(name)
        if f.is_file():
            h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def run_record(record, judge, embedding_function, settings, options):
    """Check one record through the real pipeline: what the cache keeps for it."""
    from sourcecheck.library import Library

    started = time.monotonic()
    library = Library(None, embedding_function, settings["CHUNK_WORDS"])
    try:
        for i, source in enumerate(record["sources"], 1):
            if source and source.strip():
                library.add_text(f"source {i}", [source], filename=f"source{i}.txt")
        indexed = time.monotonic()
        judge.raw, judge.features = [], []
        # collect() keeps each sentence's final verdict in scoring order, the order judge.raw was filled in
        # (with critiques, a supported sentence's final verdict comes before those scored earlier)
        got = collect(check_text(record["text"], library, judge, None, options, settings["MAX_TEXT_CHARS"]))
        sentences = got["sentences"]
        verdicts = [{"index": v["index"], "label": v["label"], "p": v["p_supported"]} for v in got["verdicts"]]
        if len(judge.raw) != len(verdicts):
            raise RuntimeError("RecordingJudge saw a different number of verdicts than check_text yielded")
        for v, raw, features in zip(verdicts, judge.raw, judge.features):
            v["p_raw"] = raw
            if features is not None:
                v["features"] = features
        return {"id": record["id"], "sentences": sentences, "verdicts": verdicts, "error": None,
                "index_s": round(indexed - started, 3), "check_s": round(time.monotonic() - indexed, 3)}
    except SourcecheckError as e:
        if e.code not in CACHED_ERRORS:
            raise
        return {"id": record["id"], "sentences": [], "verdicts": [], "error": {"code": e.code, "message": e.message},
                "index_s": 0.0, "check_s": round(time.monotonic() - started, 3)}
    finally:
        try:  # an in-memory Chroma client lives on in the process: drop this record's collection
            library._client.delete_collection(library._collection.name)
        except Exception:
            pass


class Cache:
    """One JSONL file per data set and fingerprint; a line per finished record, so a crash loses one."""

    def __init__(self, directory, dataset, key):
        self.path = Path(directory) / f"{dataset}-{key}.jsonl"
        self.results = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    result = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interruption
                self.results[result["id"]] = result

    def get(self, record_id):
        return self.results.get(record_id)

    def put(self, result):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(result, ensure_ascii=False) + "\n")
        self.results[result["id"]] = result


# -- aligning labels with our sentences ----------------------------------------------------------


def locate(golds, text, sentences):
    """The (start, end) of each labelled sentence in text, or None (see the module docstring)."""
    spans, cursor = [], 0
    for g in golds:
        g = g.strip()
        span = None
        i = text.find(g, cursor)
        if i < 0:
            i = text.find(g)
        if g and i >= 0:
            span = (i, i + len(g))
        else:
            words = re.findall(r"\w+|[^\w\s]", g)
            if words:
                pattern = re.compile(r"\s*".join(re.escape(w) for w in words), re.IGNORECASE)
                m = pattern.search(text, cursor) or pattern.search(text)
                if m:
                    span = (m.start(), m.end())
        if span is None:
            span = _fuzzy(g, sentences)
        if span is not None:
            cursor = span[1]
        spans.append(span)
    return spans


def _fuzzy(g, sentences, min_coverage=0.7):
    """The run of 1-3 of our sentences that contains most of g's characters (in blocks of 4 or more),
    the tightest such run winning; None when no run holds min_coverage of g."""
    best, best_key = None, (min_coverage, 0.0)
    for i in range(len(sentences)):
        for j in range(i, min(i + 3, len(sentences))):
            window = " ".join(s["text"] for s in sentences[i:j + 1])
            m = SequenceMatcher(None, window.lower(), g.lower(), autojunk=False)
            coverage = sum(b.size for b in m.get_matching_blocks() if b.size >= 4) / max(1, len(g))
            key = (round(coverage, 2), m.ratio())
            if key >= best_key:
                best, best_key = (sentences[i]["start"], sentences[j]["end"]), key
    return best


def align(golds, text, sentences, verdicts):
    """For each labelled sentence: the indices of our checked sentences that score it ([] = dropped),
    and the reason when dropped ("not_found" or "not_checked")."""
    spans = locate(golds, text, sentences)
    by_index = {s["index"]: s for s in sentences}
    checked = [by_index[v["index"]] for v in verdicts]
    out = []
    for span in spans:
        if span is None:
            out.append(([], "not_found"))
            continue
        a, b = span
        parts = []
        for s in checked:
            overlap = min(b, s["end"]) - max(a, s["start"])
            if overlap > 0 and (overlap >= 0.5 * (s["end"] - s["start"]) or overlap >= 0.5 * (b - a)):
                parts.append(s["index"])
        out.append((parts, None if parts else "not_checked"))
    return out


# -- from results to scored items ----------------------------------------------------------------


def grounded_items(record):
    """Factcheck-GPT's source-grounded view: a sentence is supported iff every claim in it is supported by
    the retrieved passages given as sources (grounded_in_sources); its own `label` is real-world truth."""
    claims = [c for c in record["labels"] if c["level"] == "claim" and "grounded_in_sources" in c]
    if not claims:
        return []
    out = []
    for s in (x for x in record["labels"] if x["level"] == "sentence"):
        mine = [c for c in claims if c.get("sentence_index") == s["index"]]
        if mine:
            y = int(all(c["grounded_in_sources"] == "supported" for c in mine))
            out.append({**s, "label": "supported" if y else "unsupported", "y": y,
                        "error_types": sorted({c["grounded_in_sources"] for c in mine} - {"supported"})})
    return out


def items(record, result, calibrate, threshold):
    """Scored units of one record: (view, item) pairs; a view is "sentence", "grounded" or "response"."""
    if result["error"]:
        return [], {}
    p_by_index = {v["index"]: calibrate(v["p_raw"], v.get("features")) for v in result["verdicts"]}
    raw_by_index = {v["index"]: v["p_raw"] for v in result["verdicts"]}
    features_by_index = {v["index"]: v.get("features") for v in result["verdicts"]}
    views = {"sentence": [x for x in record["labels"] if x["level"] in ("sentence", "claim")
                          and "sentence_index" not in x and gold(x) is not None]}
    if grounded_items(record):
        views["grounded"] = grounded_items(record)
    out, stats = [], {}
    for view, labelled in views.items():
        if not labelled:
            continue
        st = stats.setdefault(view, {"labelled": 0, "scored": 0, "not_found": 0, "not_checked": 0, "split": 0,
                                     "merged": 0})
        aligned = align([x["text"] for x in labelled], record["text"], result["sentences"], result["verdicts"])
        counts = {}
        for _, (parts, _) in zip(labelled, aligned):
            for i in parts:
                counts[i] = counts.get(i, 0) + 1
        st["merged"] += sum(1 for n in counts.values() if n > 1)
        for x, (parts, reason) in zip(labelled, aligned):
            st["labelled"] += 1
            if reason:
                st[reason] += 1
                continue
            st["scored"] += 1
            st["split"] += len(parts) > 1
            unit = {"record": record["id"], "index": x["index"], "y": x.get("y", gold(x)),
                    "p": math.prod(p_by_index[i] for i in parts),
                    "p_raw": math.prod(raw_by_index[i] for i in parts), "parts": len(parts),
                    "error_types": x.get("error_types") or []}
            if len(parts) == 1 and features_by_index[parts[0]] is not None:
                unit["features"] = features_by_index[parts[0]]
            out.append((view, unit))
    for x in record["labels"]:
        if x["level"] == "response" and gold(x) is not None:
            ps = list(p_by_index.values())
            meta = record.get("meta", {})
            out.append(("response", {"record": record["id"], "y": gold(x), "p": math.prod(ps),
                                     "any_unsupported": any(p < threshold for p in ps), "sentences": len(ps),
                                     "error_types": x.get("error_types") or [],
                                     "pair": meta.get("pair_index"), "variant": meta.get("variant")}))
    return out, stats


def score_view(units, threshold, response=False):
    y = [u["y"] for u in units]
    p = [u["p"] for u in units]
    types = [u["error_types"] for u in units]
    if response:
        # P(text) is a product: compare it with a θ chosen on the data, not the sentence threshold.
        out = metrics.summarize(y, p, threshold=threshold, types=types)
        pred_any = [0 if u["any_unsupported"] else 1 for u in units]
        out["balanced_accuracy_any"] = metrics.balanced_accuracy(y, pred_any)
        out["balanced_accuracy_any_ci95"] = metrics.bootstrap_interval(y, pred_any)
        out["recall_any"] = metrics.precision_recall_f1(y, pred_any)["recall"]
        if out["best_threshold"] is not None:
            pred = metrics.predict(p, out["best_threshold"])
            out.update({f"{k}_best": v for k, v in metrics.precision_recall_f1(y, pred).items()})
            if any(types):
                out["recall_by_type_best"] = metrics.recall_by_type(y, pred, types)
        pairs = {}
        for u in units:
            if u.get("pair") is not None:
                pairs.setdefault(u["pair"], {})[u["variant"]] = u["p"]
        ranked = [(v["right"], v["hallucinated"]) for v in pairs.values() if "right" in v and "hallucinated" in v]
        if ranked:
            out["pairs"] = len(ranked)
            out["pairwise_accuracy"] = metrics.pairwise_accuracy(ranked)
        return out
    return metrics.summarize(y, p, threshold=threshold, types=types)


# -- the run ------------------------------------------------------------------------------------


def evaluate(paths, settings, limit=None, seed=0, out="eval-out", cache_dir=None, critique=False,
             decompose=False, model=None, log=None, rescore=None, shared_evidence=True, fit=None):
    """Run and score every data file; write results.json, results.md, predictions.jsonl, reliability.png
    (and calibration.fitted.json with fit).

    rescore: a fingerprint from an earlier results.json: score the verdicts cached under it (an earlier
    pipeline's) with the current metrics and calibration, running nothing; uncached records are left out.
    fit: fitting.fit_calibration, to fit a calibration on these records (written as calibration.fitted.json)
    and report how it does on each set when fitted on the others.
    """
    from sourcecheck.embeddings import make_embedding_function
    from sourcecheck.llm import load_model

    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(cache_dir) if cache_dir else out / "cache"
    model = model or load_model(settings)
    judge = RecordingJudge(model, threshold=settings["THRESHOLD"])
    embedding_function = make_embedding_function(settings["EMBEDDINGS"])
    options = CheckOptions(top_k=settings["TOP_K"], decompose=decompose, critique=critique,
                           shared_evidence=shared_evidence)
    key = rescore or fingerprint(settings, options, model)
    report = {"fingerprint": key, "rescored": bool(rescore), "settings": {k: settings[k] for k in (
        "BACKEND", "MODEL", "N_CTX", "N_THREADS", "EMBEDDINGS", "TOP_K", "CHUNK_WORDS", "THRESHOLD")},
        "options": asdict(options), "limit": limit, "seed": seed, "calibration": judge.calibration,
        "datasets": {}}
    predictions, data = [], {}
    for path in paths:
        records = load_records(path)
        name = dataset_name(records, path)
        chosen = select(records, limit, seed)
        cache = Cache(cache_dir, name, key)
        log(f"{name}: {len(chosen)} of {len(records)} records ({len(records) - sum(map(usable, records))} "
            f"without sources or usable labels)")
        results, fresh_s, fresh_n, cached_s, missing = [], 0.0, 0, 0.0, 0
        for n, record in enumerate(chosen, 1):
            result = cache.get(record["id"])
            if result is None and rescore:
                missing += 1
                continue
            if result is None:
                result = run_record(record, judge, embedding_function, settings, options)
                cache.put(result)
                fresh_s += result["index_s"] + result["check_s"]
                fresh_n += 1
                log(f"  [{n}/{len(chosen)}] {record['id']}: {len(result['verdicts'])} sentences, "
                    f"{result['index_s'] + result['check_s']:.1f} s" + (f" ({result['error']['code']})"
                                                                          if result["error"] else ""))
            else:
                cached_s += result["index_s"] + result["check_s"]
            results.append((record, result))
        data[name] = results
        report["datasets"][name] = ds = score_dataset(name, results, judge, settings["THRESHOLD"], predictions)
        sentences = sum(len(r["verdicts"]) for _, r in results)
        total_s = sum(r["index_s"] + r["check_s"] for _, r in results)
        ds["timing"] = {"records": len(results), "sentences": sentences, "seconds": round(total_s, 1),
                        "seconds_per_record": round(total_s / max(1, len(results)), 2),
                        "seconds_per_sentence": round(total_s / max(1, sentences), 2),
                        "index_seconds": round(sum(r["index_s"] for _, r in results), 1),
                        "this_run_records": fresh_n, "this_run_seconds": round(fresh_s, 1)}
        ds["file"] = str(path)
        if missing:
            ds["missing_from_cache"] = missing
    report["fit"] = fit(data, judge.calibration, settings["THRESHOLD"]) if fit else None
    if report["fit"]:
        (out / "calibration.fitted.json").write_text(json.dumps(report["fit"]["calibration"], indent=1) + "\n")
    write_outputs(out, report, predictions)
    return report


def score_dataset(name, results, judge, threshold, predictions):
    by_view, stats = {}, {}
    errors = {}
    for record, result in results:
        if result["error"]:
            errors[result["error"]["code"]] = errors.get(result["error"]["code"], 0) + 1
        units, st = items(record, result, judge.calibrate, threshold)
        for view, unit in units:
            by_view.setdefault(view, []).append(unit)
            predictions.append({"dataset": name, "view": view, **unit})
        for view, counts in st.items():
            agg = stats.setdefault(view, {})
            for k, v in counts.items():
                agg[k] = agg.get(k, 0) + v
    ds = {"records": len(results), "errors": errors, "alignment": stats}
    for view, units in by_view.items():
        ds[view] = score_view(units, threshold, response=view == "response")
    ds["primary"] = next((v for v in ("grounded", "sentence", "response") if v in by_view), None)
    return ds


# -- outputs ------------------------------------------------------------------------------------


def write_outputs(out, report, predictions):
    (out / "results.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as f:
        for u in predictions:
            f.write(json.dumps(u, ensure_ascii=False) + "\n")
    (out / "results.md").write_text(markdown(report))
    curves = []
    for name, ds in report["datasets"].items():
        units = [u for u in predictions if u["dataset"] == name and u["view"] == ds["primary"]]
        if units and ds["primary"] != "response":
            curves.append((name, metrics.reliability_bins([u["y"] for u in units], [u["p"] for u in units])))
    pooled = [u for u in predictions if u["view"] == report["datasets"][u["dataset"]]["primary"] != "response"]
    if pooled:
        curves.append(("all sentence-level items", metrics.reliability_bins([u["y"] for u in pooled],
                                                                           [u["p"] for u in pooled])))
    reliability_png(curves, out / "reliability.png",
                    title="Reliability: sentence-level P(supported) vs. fraction supported")


def markdown(report):
    """Two tables: sentence level (the primary view of each set) and response level."""
    f = metrics.fmt

    def interval(ci):
        return f"[{f(ci[0], digits=0)}–{f(ci[1], digits=0)}]" if ci and ci[0] is not None else ""

    lines = ["| set | view | N rec | N items (unsup) | BA @0.5 [95% CI] | BA best θ (θ) | BA 5-fold θ "
             "| P / R / F1 unsup | AUROC | ECE | s/rec |", "|" + " --- |" * 11]
    for name, ds in report["datasets"].items():
        view = ds["primary"]
        if view in (None, "response"):
            continue
        m = ds[view]
        lines.append(f"| {name} | {view} | {ds['records']} | {m['n']} ({m['n_unsupported']}) | "
                     f"{f(m['balanced_accuracy'])} {interval(m.get('balanced_accuracy_ci95'))} | "
                     f"{f(m['balanced_accuracy_best'])} "
                     f"({f(m['best_threshold'], pct=False, digits=3)}) | {f(m['balanced_accuracy_cv'])} | "
                     f"{f(m['precision'])} / {f(m['recall'])} / {f(m['f1'])} | {f(m['auroc'])} | "
                     f"{f(m['ece'])} | {ds['timing']['seconds_per_record']:.1f} |")
    lines += ["", "| set | N rec (unsup) | BA any-sentence rule [95% CI] | BA @θ (θ) | BA 5-fold θ "
              "| P / R / F1 unsup @θ | AUROC P(text) | pairs ranked | s/rec |", "|" + " --- |" * 9]
    for name, ds in report["datasets"].items():
        m = ds.get("response")
        if not m:
            continue
        pairs = f"{f(m['pairwise_accuracy'])} of {m['pairs']}" if "pairs" in m else "–"
        theta = f"{m['best_threshold']:.3g}" if m["best_threshold"] is not None else "–"
        lines.append(f"| {name} | {m['n']} ({m['n_unsupported']}) | {f(m['balanced_accuracy_any'])} "
                     f"{interval(m.get('balanced_accuracy_any_ci95'))} | "
                     f"{f(m['balanced_accuracy_best'])} ({theta}) | {f(m['balanced_accuracy_cv'])} | "
                     f"{f(m.get('precision_best'))} / {f(m.get('recall_best'))} / {f(m.get('f1_best'))} | "
                     f"{f(m['auroc'])} | {pairs} | {ds['timing']['seconds_per_record']:.1f} |")
    typed = []
    for name, ds in report["datasets"].items():
        view = ds["primary"]
        m = ds.get(view) if view else None
        by_type = (m or {}).get("recall_by_type_best" if view == "response" else "recall_by_type")
        if by_type:
            where = "response, @θ" if view == "response" else f"{view}, @{m['threshold']}"
            typed.append(f"| {name} ({where}) | " + ", ".join(
                f"{t} {f(r['recall'])} ({r['n']})" for t, r in sorted(by_type.items(), key=lambda kv: -kv[1]["n"]))
                + " |")
    if typed:
        lines += ["", "| set | recall of unsupported items per error type (n) |", "| --- | --- |", *typed]
    fit = report.get("fit")
    if fit:
        lines += ["", "Calibration fitted on the other sets (leave-one-set-out; headline number per set, "
                  "stance: BA of contradicted vs unsupported on wrong items whose error type says which):", "",
                  "| set | current | fitted on the other sets | stance items | stance current | stance fitted |",
                  "|" + " --- |" * 6]
        for name, r in fit["per_set"].items():
            lines.append(f"| {name} | {f(r['current'])} | {f(r['held_out_fit'])} | {r['stance_items']} | "
                         f"{f(r['stance_current'])} | {f(r['stance_held_out_fit'])} |")
        def rule(r):
            return ", ".join(f"{k} {v:.3f}" for k, v in r["weights"].items()) + f", bias {r['bias']:.3f}" if r else "–"

        c = fit["calibration"]
        lines += ["", f"Fitted on all sets (calibration.fitted.json): score {rule(c)}; stance {rule(c['stance'])}."]
    return "\n".join(lines) + "\n"


COLOURS = [(0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.17, 0.63, 0.17), (0.84, 0.15, 0.16), (0.58, 0.4, 0.74),
           (0.55, 0.34, 0.29), (0.89, 0.47, 0.76), (0.5, 0.5, 0.5), (0.74, 0.74, 0.13), (0.09, 0.75, 0.81)]


def reliability_png(curves, path, title="Reliability diagram", size=420, dpi=144):
    """Draw (name, bins) curves — bins as from metrics.reliability_bins — into a PNG with PyMuPDF."""
    import pymupdf

    left, top, plot = 48, 34, size - 48 - 16
    legend_h = 14 * len(curves) + 8
    doc = pymupdf.open()
    page = doc.new_page(width=size + 170, height=top + plot + 40 + max(0, legend_h - plot))

    def xy(px, py):
        return pymupdf.Point(left + px * plot, top + (1 - py) * plot)

    page.insert_text((left, 20), title, fontsize=9)
    page.draw_rect(pymupdf.Rect(left, top, left + plot, top + plot), color=(0, 0, 0), width=0.8)
    for k in range(1, 10):
        page.draw_line(xy(k / 10, 0), xy(k / 10, 1), color=(0.9, 0.9, 0.9), width=0.5)
        page.draw_line(xy(0, k / 10), xy(1, k / 10), color=(0.9, 0.9, 0.9), width=0.5)
    for k in range(0, 11, 2):
        page.insert_text(xy(k / 10, 0) + (-6, 12), f"{k / 10:.1f}", fontsize=7)
        page.insert_text(xy(0, k / 10) + (-20, 3), f"{k / 10:.1f}", fontsize=7)
    page.insert_text((left + plot / 2 - 60, top + plot + 26), "mean predicted P(supported)", fontsize=8)
    page.insert_text((12, top + plot / 2 + 50), "fraction supported", fontsize=8, rotate=90)
    page.draw_line(xy(0, 0), xy(1, 1), color=(0.4, 0.4, 0.4), width=0.7, dashes="[3 3] 0")
    for i, (name, bins) in enumerate(curves):
        colour = COLOURS[i % len(COLOURS)]
        pooled = name.startswith("all")  # pooled curves bold, per-set ones thin (they are noisier)
        points = [xy(conf, acc) for _, _, _, conf, acc in bins]
        if len(points) > 1:
            page.draw_polyline(points, color=colour, width=2.2 if pooled else 0.8,
                               stroke_opacity=1.0 if pooled else 0.7)
        total = sum(b[2] for b in bins) or 1
        for (_, _, n, _, _), pt in zip(bins, points):
            page.draw_circle(pt, (1.5 if pooled else 1.0) + (4 if pooled else 2.5) * math.sqrt(n / total),
                             color=colour, fill=colour, width=0.5)
        ly = top + 8 + 14 * i
        page.draw_line((left + plot + 12, ly - 3), (left + plot + 28, ly - 3), color=colour,
                       width=2.2 if pooled else 1)
        page.insert_text((left + plot + 32, ly), name, fontsize=7.5)
    page.insert_text((left + plot + 12, top + 8 + 14 * len(curves) + 6), "dot area ~ items in bin", fontsize=6.5,
                     color=(0.4, 0.4, 0.4))
    page.get_pixmap(dpi=dpi).save(str(path))
    doc.close()
