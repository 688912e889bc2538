"""The verifier head (measured, not shipped): exported features, a fit chosen by grouped cross-validation, each set held
out, and the written head predicting what its report says."""

import json

import numpy as np
import pytest
from sourcecheck_eval import head, metrics


def synthetic(rng, n, records, direction):
    """Sentences whose truth is written along one direction of a 16-float state; P(Yes) is weak noise."""
    y = rng.integers(0, 2, n)
    state = rng.standard_normal((n, 16)) + np.outer(2 * y - 1, direction)
    p_raw = np.clip(0.5 + 0.1 * (2 * y - 1) + 0.3 * rng.standard_normal(n), 0.01, 0.99)
    return {
        "record": np.array([f"r{i % records}" for i in range(n)]),
        "index": np.arange(n),
        "y": y,
        "p_raw": p_raw.astype(np.float32),
        "state": state.astype(np.float16),
        "conflict": np.zeros(n, bool),
        "error_types": np.array([""] * n),
    }


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    direction = np.zeros(16)
    direction[3] = 1.0
    return {name: synthetic(rng, 300, 40, direction) for name in ("one", "two", "three")}


def test_the_head_reads_what_the_state_knows_on_sets_it_never_saw(data):
    report = head.leave_one_set_out(data, {"a": 1.0, "b": 0.0})
    for name, r in report.items():
        assert r["auroc_head"] > 0.85 and r["auroc_head"] > r["auroc_now"] + 0.1, name
        assert r["ba_head"] > r["ba_now"], name


def test_grouped_folds_keep_records_together(data):
    folds = head.grouped_folds(data["one"])
    for record in set(data["one"]["record"].tolist()):
        assert len(set(folds[data["one"]["record"] == record].tolist())) == 1
    assert set(folds.tolist()) == set(range(head.FOLDS))


def test_the_written_head_predicts_what_its_report_says(data, tmp_path):
    paths = []
    for name, d in data.items():
        np.savez_compressed(tmp_path / f"{name}.npz", **d)
        paths.append(str(tmp_path / f"{name}.npz"))
    out = tmp_path / "head.json"
    assert head.main(["fit", *paths, "--model", "fake", "--out", str(out), "--tune", "one", "--hold-out", "two"]) == 0
    shipped = json.loads(out.read_text())
    assert shipped["model"] == "fake" and len(shipped["weights"]) == 16
    assert set(shipped["fitted_on"]["leave_one_set_out"]) == {"one", "three"}  # "two" was never fitted on
    assert shipped["sensitivity"]["relaxed"] <= shipped["sensitivity"]["balanced"] <= shipped["sensitivity"]["strict"]
    fitted = {**shipped, "weights": np.asarray(shipped["weights"], dtype=np.float32)}
    d = data["two"]  # never fitted on: the written (rounded) head scores it as the report says
    auroc = metrics.auroc(d["y"], head.predict(fitted, d))
    assert auroc > 0.85 and auroc == pytest.approx(shipped["fitted_on"]["held_out"]["two"]["auroc"], abs=1e-3)


def test_sensitivity_thresholds_flag_the_shares_they_promise():
    rng = np.random.default_rng(1)
    y = np.array([1] * 200 + [0] * 200)
    p = np.concatenate([rng.beta(5, 2, 200), rng.beta(2, 5, 200)])
    t = head.sensitivity(y, p)
    assert np.mean(p[y == 1] < t["relaxed"]) <= 0.02 and np.mean(p[y == 1] < t["balanced"]) <= 0.10
    assert np.mean(p[y == 0] < t["strict"]) >= 0.85 and t["relaxed"] <= t["balanced"] <= t["strict"]


def test_the_records_kept_aside_are_not_fitted_on(data):
    before = head.fit([data["one"]], 1.0)
    kept = {k: v.copy() for k, v in data["two"].items()}
    kept["record"] = np.array(["paper-q1"] * len(kept["y"]))
    kept["y"] = 1 - kept["y"]  # every label turned over: fitted on, it would move the head
    after = head.fit([data["one"], kept], 1.0)
    assert np.array_equal(after["weights"], before["weights"]) and after["bias"] == before["bias"]
