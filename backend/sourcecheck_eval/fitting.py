"""Fitting calibration.json on development data, and testing the fit on data sets it has not seen.

The score model, a small logistic one (the consistency + factuality paper's weighted combination of signals):
P(supported) from the judge's logit P(Yes) and, if SCORE_FEATURES names them, the evidence signals
(judge.features). Also measured, not fitted: how well the conflict finder (conflict/__init__.py), which decides
contradicted vs unsupported, tells the benchmarks' typed errors apart.

Every data set weighs the same. Sets labelled per text (SummEdits, FaithBench, HaluEval) teach the score
model as multiple instances: each sentence of a right text is supported, and the weakest sentence of a
wrong one is not. Each set is scored by a fit on the *other* sets (leave-one-set-out): the situation of the
held-out benchmarks, so a fit that only memorises a set's quirks shows it here.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from sourcecheck.judging.calibration import calibrated, sigmoid
from sourcecheck.judging.calibration import fit_logistic as logistic

from sourcecheck_eval import metrics
from sourcecheck_eval.align import items, score_view
from sourcecheck_eval.kept_aside import kept_aside

# What the models read (signal names of judge.features). Chosen by leave-one-set-out on 40 records per
# set (docs/quality.md): adding the evidence signals or the model's answers to other questions to the score
# traded one set against another.
SCORE_FEATURES = ("logit_p",)
L2 = 1e-2  # a few hundred items per fit and correlated answers: keep the weights small
# Error types of the benchmarks that say which kind a wrong sentence is; the others (a nuance, an opinion)
# are neither and are not used.
CONTRADICTION_TYPES = {
    "contradicted",
    "Contradiction",
    "Mis-Referencing",
    "antonym_swap",
    "entity_modification",
    "negation_insertion_removal",
    "Unwanted.Intrinsic",
}
NOT_FOUND_TYPES = {"not_enough_evidence", "Extrinsic Information", "hallucinated_fact_insertion", "Unwanted.Extrinsic"}


def units(
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]],
    name: str,
    calibration: Mapping[str, Any],
    threshold: float = 0.5,
) -> tuple[list[tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]], str]:
    """Per record of the set: (record, result, the scored units of the set's primary view), and that view:
    grounded or sentence where the set labels sentences, else response."""
    out = []
    for record, result in data[name]:
        out.append((record, result, items(record, result, lambda p, f: scored(p, f, calibration), threshold)[0]))
    views = {view for _, _, us in out for view, _ in us}
    view = next((v for v in ("grounded", "sentence") if v in views), "response")
    return [(record, result, [u for v, u in us if v == view]) for record, result, us in out], view


def primary(
    name: str,
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]],
    calibration: Mapping[str, Any],
    threshold: float = 0.5,
) -> float | None:
    """The set's headline number (docs/quality.md's target table): sentence BA at the threshold where the
    set labels sentences, else the share of pairs ranked right, else text BA by the any-sentence rule."""
    per_record, view = units(data, name, calibration, threshold)
    chosen = [u for _, _, us in per_record for u in us]
    if not chosen:
        return None
    if view != "response":
        return metrics.balanced_accuracy([u["y"] for u in chosen], metrics.predict([u["p"] for u in chosen], threshold))
    out = score_view(chosen, threshold, response=True)
    return out.get("pairwise_accuracy", out["balanced_accuracy_any"])


def score_items(
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]],
    names: Iterable[str],
    calibration: Mapping[str, Any],
) -> list[tuple[dict[str, float], int, float]]:
    """(features, y, weight) rows for the score model from the sets in names."""
    rows: list[tuple[dict[str, float], int, float]] = []
    for name in names:
        mine: list[tuple[dict[str, float], int]] = []
        per_record, view = units(data, name, calibration)
        for _record, result, us in per_record:
            if view != "response":
                mine += [(u["features"], u["y"]) for u in us if u.get("features")]
                continue
            verdicts = [v for v in result["verdicts"] if v.get("features")]
            if us and us[0]["y"] == 1:
                mine += [(v["features"], 1) for v in verdicts]
            elif us and verdicts:
                weakest = min(verdicts, key=lambda v: scored(v["p_raw"], v["features"], calibration))
                mine.append((weakest["features"], 0))
        rows += [(f, y, 1.0 / len(mine)) for f, y in mine]
    return rows


def stance_items(
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]], names: Iterable[str]
) -> list[tuple[dict[str, float], int, float]]:
    """(features, is_contradiction, weight) rows: wrong sentences whose error type says which kind they are.

    A set labelled per text gives its weakest sentence the text's types, though the edit may sit in another
    sentence (and FaithBench's types are the union over annotators): noisier items than sentence labels."""
    rows: list[tuple[dict[str, float], int, float]] = []
    for name in names:
        mine: list[tuple[dict[str, float], int]] = []
        per_record, view = units(data, name, {"a": 1.0, "b": 0.0})
        for _record, result, us in per_record:
            wrong = [u for u in us if u["y"] == 0]
            if view == "response" and wrong and result["verdicts"] and result["verdicts"][0].get("features"):
                weakest = min(result["verdicts"], key=lambda v: v["p_raw"])
                wrong = [{"features": weakest["features"], "error_types": wrong[0]["error_types"]}]
            for u in wrong:
                types = set(u["error_types"])
                contra, missing = bool(types & CONTRADICTION_TYPES), bool(types & NOT_FOUND_TYPES)
                if contra != missing and u.get("features"):
                    mine.append((u["features"], int(contra)))
        rows += [(f, y, 1.0 / len(mine)) for f, y in mine]
    return rows


def scored(p: float, features: Mapping[str, float] | None, calibration: Mapping[str, Any]) -> float:
    """P(supported) under a calibration: a logistic model over the judge's signals ({"weights", "bias"}, what this
    module fits, the consistency + factuality paper's way), else the product's Platt map."""
    if "weights" in calibration and features is not None:
        return sigmoid(calibration["bias"] + sum(w * features[n] for n, w in calibration["weights"].items()))
    return calibrated(p, calibration)


def fit_logistic(rows: Iterable[tuple[Mapping[str, float], int, float]], features: Sequence[str]) -> dict[str, Any]:
    X = np.array([[f[n] for n in features] for f, _, _ in rows])
    y = np.array([y for _, y, _ in rows], dtype=float)
    w = np.array([w for _, _, w in rows])
    coef, bias = logistic(X, y, w * len(w) / w.sum(), l2=L2)
    return {"weights": {n: round(float(c), 4) for n, c in zip(features, coef)}, "bias": round(float(bias), 4)}


def fit_score(
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]],
    names: Iterable[str],
    rows: Sequence[tuple[Mapping[str, float], int, float]],
    rounds: int = 3,
) -> dict[str, Any]:
    """The score model from rows = score_items(data, names, current); the weakest sentence of each wrong
    text is re-chosen with each round's fit."""
    calibration = fit_logistic(rows, SCORE_FEATURES)
    for _ in range(rounds - 1):
        calibration = fit_logistic(score_items(data, names, calibration), SCORE_FEATURES)
    return calibration


def conflict_accuracy(rows: Sequence[tuple[Mapping[str, float], int, float]]) -> float | None:
    """Balanced accuracy of "a conflict was found" against "the error type says contradicted"."""
    return metrics.balanced_accuracy([y for _, y, _ in rows], [int(f.get("conflict", 0) > 0) for f, _, _ in rows])


def fit_calibration(
    data: Mapping[str, Sequence[tuple[dict[str, Any], dict[str, Any]]]],
    current: Mapping[str, Any],
    threshold: float = 0.5,
) -> dict[str, Any] | None:
    """A new calibration.json from all sets, and each set's number under the current calibration vs a fit
    on the other sets, the records kept aside left out (kept_aside.py). None when the cache lacks the answers the
    model needs (an older pipeline's)."""
    measured = data  # every record is scored; the fits see none kept aside
    data = {n: [(rec, r) for rec, r in items if not kept_aside(rec["id"])] for n, items in data.items()}
    names = [n for n in data if data[n]]
    has = [v.get("features", {}) for n in names for _, r in data[n] for v in r["verdicts"]]
    if not has or not all(set(SCORE_FEATURES) <= set(f) for f in has):
        return None
    per_set: dict[str, dict[str, Any]] = {}
    for name in names:
        others = [n for n in names if n != name]
        score_rows = score_items(data, others, current)
        score = fit_score(data, others, score_rows) if score_rows else None
        rows = stance_items(data, [name])
        per_set[name] = {
            "current": primary(name, measured, current, threshold),
            "held_out_fit": primary(name, measured, score, threshold) if score else None,
            "stance_items": len(rows),
            "stance_conflict": conflict_accuracy(rows) if rows and "conflict" in rows[0][0] else None,
        }
    score_rows = score_items(data, names, current)
    if not score_rows:
        return None
    fitted = fit_score(data, names, score_rows)
    if current.get("bands"):  # placed separately, across kinds (calibration.fit, operating.py)
        fitted["bands"] = current["bands"]
    fitted["fitted_on"] = f"{', '.join(names)}: {sum(len(data[n]) for n in names)} records (fitting.py)"
    return {"calibration": fitted, "per_set": per_set}
