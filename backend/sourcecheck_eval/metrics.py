"""Quality metrics for verdicts, numpy only.

Conventions: y is 1 for "supported" and 0 for "unsupported"; p is the predicted P(supported).
"Positive" for precision / recall / F1 is the class people look for: unsupported.
A metric that is undefined for the data (one class only, nothing predicted) is None, never a made-up number.
"""

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


def _arrays(*xs: npt.ArrayLike) -> list[np.ndarray]:
    return [np.asarray(x, dtype=float).ravel() for x in xs]


def predict(p: npt.ArrayLike, threshold: float) -> np.ndarray:
    """1 (supported) where p >= threshold."""
    (p,) = _arrays(p)
    return (p >= threshold).astype(int)


def balanced_accuracy(y: npt.ArrayLike, pred: npt.ArrayLike) -> float | None:
    """Mean of the recalls of the classes present (the recall of the only class if there is one)."""
    y, pred = _arrays(y, pred)
    recalls = [float(np.mean(pred[y == c] == c)) for c in (0, 1) if np.any(y == c)]
    return float(np.mean(recalls)) if recalls else None


def precision_recall_f1(y: npt.ArrayLike, pred: npt.ArrayLike) -> dict[str, float | None]:
    """Precision, recall and F1 of "unsupported" (y == 0)."""
    y, pred = _arrays(y, pred)
    tp = float(np.sum((pred == 0) & (y == 0)))
    predicted, actual = float(np.sum(pred == 0)), float(np.sum(y == 0))
    precision = tp / predicted if predicted else None
    recall = tp / actual if actual else None
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def ranks(x: npt.ArrayLike) -> np.ndarray:
    """1-based ranks with ties given their average rank."""
    (x,) = _arrays(x)
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    r = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        r[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def auroc(y: npt.ArrayLike, p: npt.ArrayLike) -> float | None:
    """Area under the ROC curve of p for "supported" (= that of 1 - p for "unsupported").

    Mann-Whitney: the chance that a random supported item scores above a random unsupported one,
    ties counting one half. None with one class only.
    """
    y, p = _arrays(y, p)
    n1, n0 = int(np.sum(y == 1)), int(np.sum(y == 0))
    if n1 == 0 or n0 == 0:
        return None
    r = ranks(p)
    return float((np.sum(r[y == 1]) - n1 * (n1 + 1) / 2) / (n1 * n0))


def reliability_bins(
    y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 10
) -> list[tuple[float, float, int, float, float]]:
    """Equal-width bins of p: [(lo, hi, count, mean p, fraction supported)] for the bins that are not empty.

    Bin k holds lo <= p < hi; the last bin also holds p == 1.
    """
    y, p = _arrays(y, p)
    idx = np.minimum((p * n_bins).astype(int), n_bins - 1)
    idx = np.clip(idx, 0, n_bins - 1)
    out = []
    for k in range(n_bins):
        mask = idx == k
        if np.any(mask):
            out.append((k / n_bins, (k + 1) / n_bins, int(mask.sum()), float(p[mask].mean()), float(y[mask].mean())))
    return out


def expected_calibration_error(y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 10) -> float | None:
    """Σ_bins (n_bin / N) · |fraction supported − mean p| over equal-width bins; None without data."""
    y, p = _arrays(y, p)
    if len(y) == 0:
        return None
    return float(sum(n / len(y) * abs(acc - conf) for _, _, n, conf, acc in reliability_bins(y, p, n_bins)))


def recall_by_type(
    y: npt.ArrayLike, pred: npt.ArrayLike, types: Iterable[Iterable[str] | None]
) -> dict[str, dict[str, float]]:
    """For each error type: {n, recall} = the share of unsupported items of that type flagged unsupported."""
    y, pred = _arrays(y, pred)
    found: dict[str, tuple[int, int]] = {}
    for yi, pi, ts in zip(y, pred, types):
        if yi != 0:
            continue
        for t in set(ts or ()):
            n, hit = found.get(t, (0, 0))
            found[t] = (n + 1, hit + int(pi == 0))
    return {t: {"n": n, "recall": hit / n} for t, (n, hit) in sorted(found.items())}


def pairwise_accuracy(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Share of (p_right, p_wrong) pairs where the wrong text scores lower; a tie counts one half."""
    if not pairs:
        return None
    return float(np.mean([1.0 if w < r else 0.5 if w == r else 0.0 for r, w in pairs]))


def bootstrap_interval(
    y: npt.ArrayLike,
    pred: npt.ArrayLike,
    statistic: Callable[[np.ndarray, np.ndarray], float | None] | None = None,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | tuple[None, None]:
    """Percentile bootstrap interval of balanced accuracy (or statistic(y, pred)) over resampled items.

    Items are resampled independently, so sentences of one answer count as independent: a lower bound
    on the real uncertainty. (None, None) with fewer than two items.
    """
    statistic = statistic or balanced_accuracy
    y, pred = _arrays(y, pred)
    if len(y) < 2:
        return None, None
    rng = np.random.default_rng(seed)
    values: list[float | None] | list[float]  # then without the Nones
    values = [statistic(y[i], pred[i]) for i in (rng.integers(0, len(y), len(y)) for _ in range(resamples))]
    values = [v for v in values if v is not None]
    lo, hi = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def best_threshold(y: npt.ArrayLike, p: npt.ArrayLike) -> tuple[float | None, float | None]:
    """The θ maximising balanced accuracy of "supported iff p >= θ", and that accuracy.

    Candidates are midpoints between consecutive distinct scores (plus one below and one above all);
    among equally good ones the lowest wins. (None, None) without data.
    """
    y, p = _arrays(y, p)
    if len(y) == 0:
        return None, None
    u = np.unique(p)
    candidates = np.concatenate([[u[0] - 1e-9], (u[:-1] + u[1:]) / 2, [u[-1] + 1e-9]])
    best_theta, best_ba = None, -1.0
    for theta in candidates:
        ba: float = balanced_accuracy(y, predict(p, theta))  # type: ignore[assignment]  # y is not empty
        if ba > best_ba + 1e-12:
            best_theta, best_ba = float(theta), ba
    return best_theta, best_ba


def cross_validated_accuracy(y: npt.ArrayLike, p: npt.ArrayLike, folds: int = 5, seed: int = 0) -> float | None:
    """Balanced accuracy when θ is chosen on the other folds (an honest estimate of best_threshold's)."""
    y, p = _arrays(y, p)
    if len(y) < 2 * folds or len(np.unique(y)) < 2:
        return None
    fold = np.random.default_rng(seed).permutation(len(y)) % folds
    pred = np.empty(len(y), dtype=int)
    for k in range(folds):
        theta, _ = best_threshold(y[fold != k], p[fold != k])
        pred[fold == k] = predict(p[fold == k], theta)  # type: ignore[arg-type]  # each fold trains on items
    return balanced_accuracy(y, pred)


def summarize(
    y: npt.ArrayLike,
    p: npt.ArrayLike,
    threshold: float = 0.5,
    types: Sequence[Iterable[str] | None] | None = None,
) -> dict[str, Any]:
    """The standard metric block for one set of items."""
    y, p = _arrays(y, p)
    pred = predict(p, threshold)
    theta, ba_best = best_threshold(y, p)
    out: dict[str, Any] = {
        "n": int(len(y)),
        "n_supported": int(np.sum(y == 1)),
        "n_unsupported": int(np.sum(y == 0)),
        "threshold": threshold,
        "balanced_accuracy": balanced_accuracy(y, pred),
        "balanced_accuracy_ci95": bootstrap_interval(y, pred),
        **precision_recall_f1(y, pred),
        "auroc": auroc(y, p),
        "ece": expected_calibration_error(y, p),
        "best_threshold": theta,
        "balanced_accuracy_best": ba_best,
        "balanced_accuracy_cv": cross_validated_accuracy(y, p),
    }
    if types is not None and any(types):
        out["recall_by_type"] = recall_by_type(y, pred, types)
    return out


def fmt(x: float | None, pct: bool = True, digits: int = 1) -> str:
    """A number for a table: percent by default; – for None."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.{digits}f}" if pct else f"{x:.{digits}f}"
