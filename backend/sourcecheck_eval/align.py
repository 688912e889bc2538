"""How our sentences meet the data's labels: locating labelled sentences, aligning verdicts, scored units.

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

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from sourcecheck_eval import metrics
from sourcecheck_eval.product import settles
from sourcecheck_eval.records import gold, grounded_items

# -- aligning labels with our sentences ----------------------------------------------------------


def locate(golds: Iterable[str], text: str, sentences: Sequence[Mapping[str, Any]]) -> list[tuple[int, int] | None]:
    """The (start, end) of each labelled sentence in text, or None (see the module docstring)."""
    spans: list[tuple[int, int] | None]
    spans, cursor = [], 0
    for g in golds:
        g = g.strip()
        span: tuple[int, int] | None = None
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


def _fuzzy(g: str, sentences: Sequence[Mapping[str, Any]], min_coverage: float = 0.7) -> tuple[int, int] | None:
    """The run of 1-3 of our sentences that contains most of g's characters (in blocks of 4 or more),
    the tightest such run winning; None when no run holds min_coverage of g."""
    best: tuple[int, int] | None
    best, best_key = None, (min_coverage, 0.0)
    for i in range(len(sentences)):
        for j in range(i, min(i + 3, len(sentences))):
            window = " ".join(s["text"] for s in sentences[i : j + 1])
            m = SequenceMatcher(None, window.lower(), g.lower(), autojunk=False)
            coverage = sum(b.size for b in m.get_matching_blocks() if b.size >= 4) / max(1, len(g))
            key = (round(coverage, 2), m.ratio())
            if key >= best_key:
                best, best_key = (sentences[i]["start"], sentences[j]["end"]), key
    return best


def align(
    golds: Iterable[str], text: str, sentences: Sequence[Mapping[str, Any]], verdicts: Iterable[Mapping[str, Any]]
) -> list[tuple[list[int], str | None]]:
    """For each labelled sentence: the indices of our checked sentences that score it ([] = dropped),
    and the reason when dropped ("not_found" or "not_checked")."""
    spans = locate(golds, text, sentences)
    by_index = {s["index"]: s for s in sentences}
    checked = [by_index[v["index"]] for v in verdicts]
    out: list[tuple[list[int], str | None]] = []
    for span in spans:
        if span is None:
            out.append(([], "not_found"))
            continue
        a, b = span
        parts: list[int] = []
        for s in checked:
            overlap = min(b, s["end"]) - max(a, s["start"])
            if overlap > 0 and (overlap >= 0.5 * (s["end"] - s["start"]) or overlap >= 0.5 * (b - a)):
                parts.append(s["index"])
        out.append((parts, None if parts else "not_checked"))
    return out


# -- from results to scored items ----------------------------------------------------------------


def items(
    record: Mapping[str, Any],
    result: Mapping[str, Any],
    calibrate: Callable[[float, Any], float],  # (p_raw, features) -> p: a calibration that may read the features
    threshold: float,
) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, dict[str, int]]]:
    """Scored units of one record: (view, item) pairs; a view is "sentence", "grounded" or "response"."""
    if result["error"]:
        return [], {}
    p_by_index = {v["index"]: calibrate(v["p_raw"], v.get("features")) for v in result["verdicts"]}
    raw_by_index = {v["index"]: v["p_raw"] for v in result["verdicts"]}
    features_by_index = {v["index"]: v.get("features") for v in result["verdicts"]}
    evidence_by_index = {v["index"]: v.get("evidence") for v in result["verdicts"]}
    states_by_index = {v["index"]: v.get("state") for v in result["verdicts"]}
    verdict_by_index = {v["index"]: v for v in result["verdicts"]}
    views = {
        "sentence": [
            x
            for x in record["labels"]
            if x["level"] in ("sentence", "claim") and "sentence_index" not in x and gold(x) is not None
        ]
    }
    if grounded_items(record):
        views["grounded"] = grounded_items(record)
    out: list[tuple[str, dict[str, Any]]]
    stats: dict[str, dict[str, int]]
    out, stats = [], {}
    for view, labelled in views.items():
        if not labelled:
            continue
        st = stats.setdefault(
            view, {"labelled": 0, "scored": 0, "not_found": 0, "not_checked": 0, "split": 0, "merged": 0}
        )
        aligned = align([x["text"] for x in labelled], record["text"], result["sentences"], result["verdicts"])
        counts: dict[int, int] = {}
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
            unit: dict[str, Any] = {
                "record": record["id"],
                "index": x["index"],
                "y": x.get("y", gold(x)),
                "p": math.prod(p_by_index[i] for i in parts),
                "p_raw": math.prod(raw_by_index[i] for i in parts),
                "parts": len(parts),
                "error_types": x.get("error_types") or [],
            }
            if len(parts) == 1 and features_by_index[parts[0]] is not None:
                unit["features"] = features_by_index[parts[0]]
            if len(parts) == 1 and states_by_index.get(parts[0]):
                unit["state"] = states_by_index[parts[0]]
            if len(parts) == 1 and verdict_by_index[parts[0]].get("alone"):  # the second read's, per item
                unit["alone"] = verdict_by_index[parts[0]]["alone"]
            # what the user sees: red where a part's conflict was found; the evidence shown for its first part
            unit["conflict"] = any((features_by_index[i] or {}).get("conflict") for i in parts)
            shown = evidence_by_index.get(parts[0])
            if shown is not None and x.get("source_index") is not None:
                unit["settles"] = [
                    settles(e, x, record["sources"], record.get("meta", {}).get("pdfs")) for e in shown
                ] or [False]
            card = verdict_by_index.get(parts[0], {})
            if "critique" in card:  # a run with critiques: what the card says, and the label's values
                unit["card"] = {k: card[k] for k in ("label", "error_type", "critique", "revised")}
                unit["card"].update(
                    text=x["text"], claim_value=x.get("claim_value"), source_value=x.get("source_value")
                )
            out.append((view, unit))
    for x in record["labels"]:
        if x["level"] == "response" and gold(x) is not None:
            ps = list(p_by_index.values())
            meta = record.get("meta", {})
            out.append(
                (
                    "response",
                    {
                        "record": record["id"],
                        "y": gold(x),
                        "p": math.prod(ps),
                        "any_unsupported": any(p < threshold for p in ps),
                        "sentences": len(ps),
                        "error_types": x.get("error_types") or [],
                        "pair": meta.get("pair_index"),
                        "variant": meta.get("variant"),
                    },
                )
            )
    return out, stats


def score_view(units: Sequence[Mapping[str, Any]], threshold: float, response: bool = False) -> dict[str, Any]:
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
        pairs: dict[Any, dict[str, float]] = {}
        for u in units:
            if u.get("pair") is not None:
                pairs.setdefault(u["pair"], {})[u["variant"]] = u["p"]
        ranked = [(v["right"], v["hallucinated"]) for v in pairs.values() if "right" in v and "hallucinated" in v]
        if ranked:
            out["pairs"] = len(ranked)
            out["pairwise_accuracy"] = metrics.pairwise_accuracy(ranked)
        return out
    return metrics.summarize(y, p, threshold=threshold, types=types)
