"""sourcecheck_eval/operating.py: the judge's scale and bands fitted across kinds of text, each kind reported under a
fit that did not see it, with intervals over records."""

import json

import numpy as np
from sourcecheck_eval.operating import final_p, fitted, kind_of, load, marks, report, table


def sets():
    rng = np.random.default_rng(0)

    def one(name, n, shift):  # supported sentences score higher; the whole set shifted, as kinds of text are
        y = (rng.random(n) < 0.5).astype(int)
        p = 1 / (1 + np.exp(-rng.normal(np.where(y == 1, 1.0, -1.0) + shift, 1.0)))
        return [
            {"record": f"{name}-{i // 5}", "y": int(t), "p_raw": float(q), "conflict": i == 0, "unnamed": False}
            for i, (t, q) in enumerate(zip(y, p))
        ]

    return {"a": one("a", 200, 0.5), "b": one("b", 200, -0.5), "c-dev": one("c", 100, 0.0), "c-test": one("t", 100, 0)}


def test_a_kind_is_left_out_of_its_own_fit_and_a_test_half_is_never_fitted_on():
    data = sets()
    assert kind_of("c-dev") == kind_of("c-test") == "c" and kind_of("a") == "a"
    assert fitted(data)["kinds"] == ["a", "b", "c"]  # the test half adds no kind and no sentence
    assert fitted(data)["n"] == 500 and fitted(data, "c")["n"] == 400 and fitted(data, "c")["kinds"] == ["a", "b"]


def test_marks_are_red_for_a_found_conflict_else_the_grade_of_the_calibrated_p():
    units = [{"p_raw": 0.9, "conflict": True}, {"p_raw": 0.1, "conflict": False}, {"p_raw": 0.5, "conflict": False}]
    calibration = {"a": 1.0, "b": 0.0, "bands": {"balanced": [0.3, 0.6]}}
    assert marks(units, calibration) == ["contradicted", "unsupported", "uncertain"]


def test_a_second_read_clears_no_sentence_that_names_what_its_passages_do_not():
    second = {"a": [0.0, 1.0], "b": 0.0, "bands": {"balanced": [0.3, 0.6]}}
    calibration = {"a": 1.0, "b": 0.0, "bands": {"balanced": [0.3, 0.6]}, "second": second}
    units = [
        {"p_raw": 0.5, "alone": 0.9, "conflict": False, "unnamed": False},  # read again: supported
        {"p_raw": 0.5, "alone": 0.9, "conflict": False, "unnamed": True},  # as the product: its first grade stands
        {"p_raw": 0.5, "alone": 0.1, "conflict": False, "unnamed": True},  # a second read may still flag it
    ]
    assert marks(units, calibration) == ["supported", "uncertain", "unsupported"]
    assert final_p(units[1], calibration) == 0.5 and final_p(units[0], calibration) == 0.9


def test_the_table_reports_each_set_with_intervals_over_records(tmp_path):
    data = sets()
    r = report(data["a"], fitted(data, "a"))
    for key in ("true_flagged", "true_uncertain", "errors_marked", "ba_flagged", "auroc"):
        point, low, high = r[key]
        assert low <= point <= high and 0 <= low and high <= 1
    text, everything = table(data)
    assert "| c-test | 100 (" in text and "all dev" in text and "| a | 200 (" in text and "all but a" in text
    assert everything == fitted(data)
    # a run's predictions file is read for its sentence units
    (tmp_path / "run").mkdir()
    rows = [{"dataset": "a", "view": "sentence", **u} for u in data["a"][:3]]
    rows.append({"dataset": "a", "view": "response", "record": "x", "y": 1, "p_raw": 0.5})
    # a set with a grounded view (Factcheck-GPT) is read for it: its labels are the sources', not real-world truth
    rows += [{"dataset": "g", "view": "sentence", **u} for u in data["a"][:2]]
    rows += [{"dataset": "g", "view": "grounded", **{**u, "y": 1 - u["y"]}} for u in data["a"][:2]]
    (tmp_path / "run" / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load([tmp_path / "run"]) == {"a": data["a"][:3], "g": [{**u, "y": 1 - u["y"]} for u in data["a"][:2]]}
    rows[0]["features"] = {"names_missing": 0.5}  # the evaluation's share of the claim's names no passage has
    (tmp_path / "run" / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [u["unnamed"] for u in load([tmp_path / "run"])["a"]] == [True, False, False]


def test_the_shipped_calibration_is_reproduced_from_the_committed_features():
    """tests/data/features: the default judge's raw P(Yes) on every kind's development sentences (and the held-out
    chatpdfs half, which the fit leaves out): the shipped scale and bands come from them."""
    from pathlib import Path

    from sourcecheck.judging.calibration import load as shipped

    data = load([], sorted(Path(__file__).parents[1].joinpath("data", "features").glob("*.npz")))
    fit = fitted(data)
    assert {k: fit[k] for k in ("a", "b", "bands")} == {k: shipped()[k] for k in ("a", "b", "bands")}
    assert fit["kinds"] == ["chatpdfs", "factcheck_gpt", "fullpapers", "lfqa_verification", "tofueval", "wice"]
    # the gate of the second read (check.reread_sentence) is read from them too: full papers name things no passage has
    assert 0 < sum(u["unnamed"] for u in data["fullpapers-dev"]) < len(data["fullpapers-dev"])


def test_the_ceiling_is_the_best_band_chosen_with_hindsight():
    from sourcecheck_eval.operating import ceiling, ceilings

    def units(pairs):
        return [{"record": str(i), "y": y, "p_raw": p, "conflict": False} for i, (y, p) in enumerate(pairs)]

    # ordered perfectly: a cut between the classes marks every error and no true sentence
    assert ceiling(units([(1, 0.9), (1, 0.8), (0, 0.2), (0, 0.1)])) == {"ba_flagged": 1.0, "errors_marked": 1.0}
    # ten true sentences, the lowest of them below both errors: flagging both errors flags 1 true (10 %, allowed)
    ten = units([(1, 0.1)] + [(1, 0.9)] * 9 + [(0, 0.3), (0, 0.4)])
    assert ceiling(ten) == {"ba_flagged": (1 + 0.9) / 2, "errors_marked": 1.0}
    # reversed: every error above every true sentence; marking errors means marking true sentences first
    worst = ceiling(units([(1, 0.1)] * 10 + [(0, 0.9)] * 10))
    assert worst == {"ba_flagged": 0.5, "errors_marked": 0.0}
    # no band that keeps true sentences red or amber at 10 % or less does better than the ceiling, and one reaches it
    from sourcecheck_eval.operating import figures

    data = sets()
    c = ceiling(data["a"])
    reached = []
    for low in np.linspace(0.01, 0.99, 99):
        f = figures(data["a"], marks(data["a"], {"a": 1.0, "b": 0.0, "bands": {"balanced": [low, low]}}))
        if f["true_flagged"] <= 0.10:
            assert f["ba_flagged"] <= c["ba_flagged"] + 1e-9
            reached.append(f["ba_flagged"])
    assert len(reached) > 5 and max(reached) > c["ba_flagged"] - 0.02
    assert "| a | " in ceilings(data) and "| c-test | " in ceilings(data)
