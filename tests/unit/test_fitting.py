"""Fitting calibration.json: the score model, multiple-instance items, leave-one-set-out; the conflict finder
measured."""

import math

import numpy as np
import pytest
from sourcecheck.text.sentences import split_sentences
from sourcecheck_eval import fitting
from sourcecheck_eval.fitting import fit_calibration, score_items, stance_items

IDENTITY = {"a": 1.0, "b": 0.0}
ALL_FEATURES = ("logit_p", "overlap", "numbers_missing", "names_missing", "rerank")


def synthetic(rng, n_records, per_text=False):
    """Records of two sentences whose truth follows 1.5·logit_p + 3·overlap − 2; a wrong sentence is a
    contradiction when most of its words are in the evidence (overlap > 0.5), else a fact not found."""
    out = []
    for r in range(n_records):
        text = f"Claim {r} says one thing here. Claim {r} says another thing here."
        sentences = [s.to_dict() for s in split_sentences(text)]
        labels, verdicts = [], []
        for i, s in enumerate(sentences):
            p_raw, overlap, names = float(rng.uniform(0.02, 0.98)), float(rng.random()), float(rng.random() < 0.5)
            truth = 1.5 * math.log(p_raw / (1 - p_raw)) + 3 * overlap - 2 + rng.logistic() > 0
            features = dict.fromkeys(ALL_FEATURES, 0.0)
            # the conflict finder: right on contradictions with much overlap, wrong on a tenth of the rest
            features.update(
                logit_p=math.log(p_raw / (1 - p_raw)),
                overlap=overlap,
                names_missing=names,
                conflict=float(overlap > 0.5 if not truth else (r + i) % 10 == 0),
            )
            verdicts.append(
                {"index": s["index"], "label": "supported", "p": p_raw, "p_raw": p_raw, "features": features}
            )
            types = [] if truth else (["contradicted"] if overlap > 0.5 else ["not_enough_evidence"])
            labels.append(
                {
                    "level": "sentence",
                    "index": i,
                    "text": s["text"],
                    "error_types": types,
                    "label": "supported" if truth else "unsupported",
                }
            )
        if per_text:
            wrong = [x for x in labels if x["label"] == "unsupported"]
            labels = [
                {
                    "level": "response",
                    "label": "unsupported" if wrong else "supported",
                    "error_types": wrong[0]["error_types"] if wrong else [],
                }
            ]
        out.append(
            (
                {"id": f"r{r}", "text": text, "sources": ["x"], "labels": labels},
                {"id": f"r{r}", "sentences": sentences, "verdicts": verdicts, "error": None},
            )
        )
    return out


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return {"one": synthetic(rng, 150), "two": synthetic(rng, 150), "texts": synthetic(rng, 150, per_text=True)}


def test_the_fit_finds_the_signals_and_helps_sets_it_was_not_fitted_on(data, monkeypatch):
    monkeypatch.setattr(fitting, "SCORE_FEATURES", ("logit_p", "overlap"))
    fit = fit_calibration(data, IDENTITY)
    weights = fit["calibration"]["weights"]
    assert weights["logit_p"] == pytest.approx(1.5, abs=0.6) and weights["overlap"] == pytest.approx(3, abs=1.2)
    for name in ("one", "two"):
        assert fit["per_set"][name]["held_out_fit"] > fit["per_set"][name]["current"] + 0.02
    # a text-labelled set, scored by the any-sentence rule, learnt from the sentences of the other two
    assert fit["per_set"]["texts"]["held_out_fit"] > 0.7
    # the conflict finder is measured on the typed errors, not fitted: it tells them apart exactly here
    assert fit["per_set"]["one"]["stance_items"] > 20 and fit["per_set"]["one"]["stance_conflict"] == 1.0


def test_a_text_labelled_set_teaches_every_sentence_of_a_right_text_and_the_weakest_of_a_wrong_one(data):
    rows = score_items(data, ["texts"], IDENTITY)
    right = sum(1 for r, _ in data["texts"] if r["labels"][0]["label"] == "supported")
    assert len(rows) == 2 * right + (len(data["texts"]) - right)
    record, result = next((r, res) for r, res in data["texts"] if r["labels"][0]["label"] == "unsupported")
    weakest = min(result["verdicts"], key=lambda v: v["p_raw"])["features"]
    assert any(f is weakest and y == 0 for f, y, _ in rows)
    assert sum(w for _, _, w in rows) == pytest.approx(1.0)  # each set weighs the same
    assert {y for _, y, _ in stance_items(data, ["texts"])} == {0, 1}


def test_no_fit_from_a_cache_without_the_answers_it_needs(data):
    for _, result in data["one"]:
        for v in result["verdicts"]:
            del v["features"]["logit_p"]
    assert fit_calibration(data, IDENTITY) is None


def test_a_logistic_calibration_combines_the_signals_and_a_platt_one_reads_only_p():
    from sourcecheck_eval.fitting import scored

    weights = {"logit_p": 1.0, "numbers_missing": -4.0}
    f = {"logit_p": 0.0, "numbers_missing": 1.0}
    assert scored(0.5, f, {"weights": weights, "bias": 0.0}) == pytest.approx(1 / (1 + 2.718281828**4), rel=1e-6)
    assert scored(0.8, f, {"a": 1.0, "b": 0.0}) == pytest.approx(0.8)


def test_the_records_kept_aside_are_not_fitted_on(data, monkeypatch):
    monkeypatch.setattr(fitting, "SCORE_FEATURES", ("logit_p", "overlap"))
    before = fit_calibration(data, IDENTITY)["calibration"]
    flipped = []
    for record, result in data["one"][:40]:  # the same answers under a kept-aside id, every label turned over
        labels = [{**x, "label": "unsupported" if x["label"] == "supported" else "supported"} for x in record["labels"]]
        flipped.append(({**record, "id": "paper-q1", "labels": labels}, {**result, "id": "paper-q1"}))
    after = fit_calibration({**data, "one": data["one"] + flipped}, IDENTITY)["calibration"]
    assert after["weights"] == before["weights"] and after["fitted_on"] == before["fitted_on"]
