"""sourcecheck_eval/operating.py: one calibration fitted on every development set, each set scored under the others'
fit."""

import numpy as np
from sourcecheck.calibration import logit, sigmoid
from sourcecheck_eval.operating import fit, leave_one_set_out, sensitivity


def sets():
    rng = np.random.default_rng(0)

    def one(n, shift):  # supported sentences score higher; the whole set shifted, as kinds of text are
        y = (rng.random(n) < 0.5).astype(float)
        return y, rng.normal(np.where(y == 1, 1.0, -1.0) + shift, 1.0)

    return {"a": one(200, 0.5), "b": one(200, -0.5), "c": one(100, 0.0), "c-test": one(100, 0.0)}


def test_each_set_and_class_weighs_the_same_so_that_half_is_the_balanced_point():
    data = sets()
    a, b = fit([data[n] for n in ("a", "b", "c")])
    assert a > 0.5 and abs(b) < 0.3  # the shifts of a and b cancel: no set pulls the point its way
    many = (np.ones(1000), np.full(1000, 3.0))  # a set of supported sentences only, five times the size
    a2, b2 = fit([data["a"], data["b"], many])
    assert sigmoid(a2 * 0 + b2) < 0.9  # it weighs as one set, its one class as half of it


def test_a_set_is_scored_under_the_fit_on_the_others_and_a_held_out_half_under_all():
    out = leave_one_set_out(sets())
    assert out["a"]["fit_on"] == ["b", "c"] and out["c-test"]["fit_on"] == ["a", "b", "c"]
    assert all(0.6 < s["balanced_accuracy"] < 1 and 0 <= s["ece"] < 1 for s in out.values())


def test_relaxed_flags_less_and_strict_more_than_balanced():
    data = sets()
    a, b = fit([data[n] for n in ("a", "b", "c")])
    levels = sensitivity(data, a, b)
    assert levels["relaxed"] < 0.5 == levels["balanced"] < levels["strict"]
    assert logit(levels["relaxed"]) < 0 < logit(levels["strict"])
