"""Metric code against cases computed by hand. y: 1 supported, 0 unsupported; p: P(supported)."""

import math

import numpy as np
import pytest
from sourcecheck.judging.calibration import fit_logistic, logit, platt
from sourcecheck_eval import metrics


def test_balanced_accuracy_is_the_mean_of_class_recalls():
    # recall(supported) = 2/3, recall(unsupported) = 1
    assert metrics.balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0]) == pytest.approx(5 / 6)


def test_balanced_accuracy_with_one_class_is_that_class_recall_and_none_when_empty():
    assert metrics.balanced_accuracy([1, 1], [1, 0]) == pytest.approx(0.5)
    assert metrics.balanced_accuracy([0, 0, 0, 0], [0, 0, 0, 1]) == pytest.approx(0.75)
    assert metrics.balanced_accuracy([], []) is None


def test_precision_recall_f1_are_for_unsupported():
    # unsupported = 0: true 0s at 0, 1, 4; predicted 0s at 0, 2, 4 → TP 2, P 2/3, R 2/3, F1 2/3
    got = metrics.precision_recall_f1([0, 0, 1, 1, 0], [0, 1, 0, 1, 0])
    assert got == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3})


def test_precision_recall_f1_edge_cases():
    # nothing predicted unsupported: precision undefined, recall 0, F1 undefined
    assert metrics.precision_recall_f1([0, 1], [1, 1]) == {"precision": None, "recall": 0.0, "f1": None}
    # no unsupported item at all: recall undefined
    assert metrics.precision_recall_f1([1, 1], [0, 1]) == {"precision": 0.0, "recall": None, "f1": None}
    # both zero: F1 is 0, not a division by zero
    assert metrics.precision_recall_f1([0, 1], [1, 0]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_ranks_average_ties():
    assert list(metrics.ranks([3, 1, 3, 2])) == [3.5, 1, 3.5, 2]
    assert list(metrics.ranks([5, 5, 5])) == [2, 2, 2]


def test_auroc_counts_ordered_pairs():
    # supported 0.9, 0.4 vs unsupported 0.6, 0.1: 0.9>0.6, 0.9>0.1, 0.4<0.6, 0.4>0.1 → 3/4
    assert metrics.auroc([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1]) == pytest.approx(0.75)
    assert metrics.auroc([1, 0], [0.9, 0.1]) == 1.0
    assert metrics.auroc([1, 0], [0.1, 0.9]) == 0.0


def test_auroc_ties_count_one_half_and_one_class_is_none():
    assert metrics.auroc([1, 0], [0.5, 0.5]) == pytest.approx(0.5)
    # 0.7 > 0.5 → 1; 0.5 = 0.5 → 1/2; (1 + 0.5) / 2
    assert metrics.auroc([1, 1, 0], [0.7, 0.5, 0.5]) == pytest.approx(0.75)
    assert metrics.auroc([1, 1], [0.2, 0.8]) is None
    assert metrics.auroc([], []) is None


def test_auroc_for_unsupported_equals_auroc_for_supported():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 2, 50), rng.random(50).round(1)  # rounded: many ties
    assert metrics.auroc(1 - y, 1 - p) == pytest.approx(metrics.auroc(y, p))


def test_ece_over_equal_width_bins_skips_empty_ones():
    y, p = [1, 0, 1, 1], [0.05, 0.15, 0.95, 1.0]
    bins = metrics.reliability_bins(y, p)
    # bin 0: one item, p .05, all supported; bin 1: p .15, none; bin 9 holds .95 and 1.0 (p == 1 goes last)
    assert [(lo, n) for lo, _, n, _, _ in bins] == [(0.0, 1), (0.1, 1), (0.9, 2)]
    assert bins[2][3] == pytest.approx(0.975) and bins[2][4] == 1.0
    # 1/4·|1−.05| + 1/4·|0−.15| + 2/4·|1−.975| = .2375 + .0375 + .0125
    assert metrics.expected_calibration_error(y, p) == pytest.approx(0.2875)


def test_ece_edge_cases():
    assert metrics.expected_calibration_error([1, 0], [1.0, 0.0]) == 0.0
    assert metrics.expected_calibration_error([], []) is None
    assert metrics.reliability_bins([1], [0.1])[0][:3] == (0.1, 0.2, 1)  # a boundary goes up
    # one class only: still defined
    assert metrics.expected_calibration_error([1, 1], [0.5, 0.7]) == pytest.approx(0.4)


def test_recall_by_type_counts_only_unsupported_items():
    y, pred = [0, 0, 0, 1], [0, 1, 0, 0]
    types = [["entity"], ["entity", "relation"], [], ["entity"]]
    assert metrics.recall_by_type(y, pred, types) == {
        "entity": {"n": 2, "recall": 0.5},
        "relation": {"n": 1, "recall": 0.0},
    }
    assert metrics.recall_by_type([1], [1], [["x"]]) == {}


def test_pairwise_accuracy_wrong_text_must_score_lower():
    # (p_right, p_wrong): right, tie, wrong → (1 + 0.5 + 0) / 3
    assert metrics.pairwise_accuracy([(0.9, 0.1), (0.5, 0.5), (0.2, 0.8)]) == pytest.approx(0.5)
    assert metrics.pairwise_accuracy([]) is None


def test_best_threshold_maximises_balanced_accuracy_lowest_wins_ties():
    # sorted .1 .2 .3 .8 → candidates .15 (BA .75), .25 (.5), .55 (.75): the lower .15 wins
    theta, ba = metrics.best_threshold([0, 0, 1, 1], [0.1, 0.3, 0.2, 0.8])
    assert theta == pytest.approx(0.15) and ba == pytest.approx(0.75)
    theta, ba = metrics.best_threshold([0, 1], [0.2, 0.6])
    assert theta == pytest.approx(0.4) and ba == 1.0
    assert metrics.best_threshold([], []) == (None, None)


def test_best_threshold_with_ties_and_one_class():
    theta, ba = metrics.best_threshold([0, 1, 1], [0.5, 0.5, 0.5])  # cannot separate: everything one way
    assert ba == pytest.approx(0.5)
    theta, ba = metrics.best_threshold([1, 1], [0.3, 0.6])
    assert ba == 1.0 and theta < 0.3


def test_cross_validated_accuracy():
    y = [0] * 10 + [1] * 10
    p = list(np.linspace(0, 0.3, 10)) + list(np.linspace(0.7, 1, 10))
    assert metrics.cross_validated_accuracy(y, p) == 1.0
    assert metrics.cross_validated_accuracy([0, 1] * 3, [0.1, 0.9] * 3) is None  # too few items
    assert metrics.cross_validated_accuracy([1] * 20, [0.5] * 20) is None  # one class


def test_summarize_has_every_metric_and_handles_one_class():
    m = metrics.summarize([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], threshold=0.5, types=[[], ["entity"], [], []])
    # predicted [1, 0, 0, 1]: half of each class right; pairs .9>.2 .9>.6 .4>.2 .4<.6 → AUROC 3/4
    assert m["balanced_accuracy"] == pytest.approx(0.5) and m["auroc"] == pytest.approx(0.75)
    assert m["recall_by_type"] == {"entity": {"n": 1, "recall": 1.0}}
    one = metrics.summarize([1, 1], [0.9, 0.8])
    assert one["auroc"] is None and one["recall"] is None and one["balanced_accuracy"] == 1.0


def test_fmt():
    assert metrics.fmt(0.8123) == "81.2" and metrics.fmt(None) == "–" and metrics.fmt(0.5, pct=False) == "0.5"


def test_bootstrap_interval():
    assert metrics.bootstrap_interval([1, 0, 1, 0], [1, 0, 1, 0]) == (1.0, 1.0)  # always right
    lo, hi = metrics.bootstrap_interval([1, 0] * 50, [1, 0, 0, 1] * 25)  # BA 0.5 on 100 items
    assert lo < 0.5 < hi and hi - lo < 0.3
    assert metrics.bootstrap_interval([1], [1]) == (None, None)


def test_fit_logistic_recovers_known_platt_parameters():
    rng = np.random.default_rng(0)
    raw = rng.uniform(0.01, 0.99, 20000)
    y = (rng.random(20000) < platt(raw, 2.0, -1.0)).astype(int)
    (a,), b = fit_logistic(logit(raw)[:, None], y, l2=1e-3)
    assert a == pytest.approx(2.0, abs=0.1) and b == pytest.approx(-1.0, abs=0.1)


def test_fit_logistic_weights_and_separable_data():
    # equal weights on a symmetric set: b = 0; duplicating an item equals weighting it twice
    raw, y = [0.2, 0.4, 0.6, 0.8, 0.3, 0.7], [0, 1, 0, 1, 0, 1]
    (a1,), b1 = fit_logistic(logit(raw + [0.8])[:, None], y + [1], l2=1e-3)
    (a2,), b2 = fit_logistic(logit(raw)[:, None], y, [1, 1, 1, 2, 1, 1], l2=1e-3)
    assert (a1, b1) == pytest.approx((a2, b2), abs=1e-6)
    (a,), b = fit_logistic(logit([0.1, 0.2, 0.8, 0.9])[:, None], [0, 0, 1, 1], l2=1e-3)  # separable
    assert math.isfinite(a) and math.isfinite(b) and a > 1
