"""The judge's scale: how its raw P(Yes) becomes P(supported), and the band of P where it is not sure.

A calibration (calibration.json for the default judge; `sourcecheck calibrate` writes one for any other) holds a
Platt map σ(a · logit P(Yes) + b) and, per sensitivity, a band [low, high): below low a sentence is `unsupported`,
in the band `uncertain`, at high or above `supported`. Both are fitted on labelled sentences of several kinds of
text (chat answers about abstracts and about full papers, public benchmark sets), each kind weighing the same,
because the point where the judge's scale turns moves from one kind to the next (docs/quality.md). The runtime
applies them (judge.py); `sourcecheck calibrate` (calibrate.py) and the evaluation fit them with fit() below.
"""

import functools
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt

SENSITIVITIES = ("relaxed", "balanced", "strict")
# What each sensitivity asks of its band, kinds weighing the same: (share of true sentences below the low edge, i.e.
# amber, on the kind where that share is largest; share of true sentences below the high edge, i.e. amber or
# uncertain, on average over the kinds). The judge ranks well but its scale moves between kinds (docs/quality.md), so
# the low edge is placed for the kind it treats worst, and the band between says "not sure" where kinds disagree.
TARGETS = {"relaxed": (0.02, 0.15), "balanced": (0.05, 0.30), "strict": (0.10, 0.45)}
# Where the second read's scale turns to supported, per sensitivity: it is fitted on the sentences read again, each kind
# and label weighing the same, so 0.5 is their balanced point; relaxed marks fewer, strict more.
SECOND_HIGH = {"relaxed": 0.4, "balanced": 0.5, "strict": 0.6}
L2 = 1e-2  # a few hundred sentences per fit: keep a and b near where the data puts them
# The bands of a calibration that names none (raw scores in tests, an older file): no uncertain grade, one threshold
# per sensitivity, as before graded verdicts.
PLAIN_BANDS = {"relaxed": [0.3, 0.3], "balanced": [0.5, 0.5], "strict": [0.7, 0.7]}
MIN_CLASS = 5  # a kind with fewer true (or wrong) sentences does not place an edge on its own


# The prompts a P(Yes) comes from, per prompt profile (judge.PROFILES): a scale fitted under other words does not hold
# for these (issue 35's A/B: asking the question before the excerpts moved the default judge's P(Yes) by up to 0.16 on
# the same chat sentences). The words only: a change to how excerpts are laid out (prompting.py, evidence.py) moves
# P(Yes) too and is not caught here.
PROMPT_FILES = {"verify": ("system", "verify"), "minicheck": ("minicheck_system", "minicheck")}


@functools.cache
def prompt_id(profile: str = "verify") -> str:
    """A fingerprint of a prompt profile's words: a calibration records the one it was fitted under."""
    prompts = resources.files("sourcecheck").joinpath("prompts")
    names = PROMPT_FILES.get(profile, (profile,))
    text = "\0".join(prompts.joinpath(f"{name}.txt").read_text(encoding="utf-8") for name in names)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def load() -> dict[str, Any]:
    """The shipped calibration.json: the default judge's."""
    return json.loads(resources.files("sourcecheck").joinpath("calibration.json").read_text())


def file_for(folder: str | Path, judge: str) -> Path:
    """Where a judge's own calibration is kept: one JSON file per judge, named after it."""
    return Path(folder) / (re.sub(r"[^\w.-]+", "_", judge).strip("_")[:120] + ".json")


def for_judge(judge: str, folder: str | Path | None, profile: str = "verify") -> tuple[dict[str, Any], bool]:
    """(the calibration to use for this judge, whether it was fitted for it): its own file in folder, else the
    shipped one, which is the default judge's (and the best guess for any other until it is calibrated). Its own
    file fitted under other prompts (another prompt_id(profile), or none recorded: before they were) is still the
    best guess, but the judge shows as not calibrated until `sourcecheck calibrate` runs again."""
    if folder is not None and file_for(folder, judge).is_file():
        try:
            own = json.loads(file_for(folder, judge).read_text())
            if own.get("judge") == judge and valid(own):
                return own, own.get("prompt") == prompt_id(profile)
        except (OSError, ValueError):
            pass  # a damaged file: the shipped scale, and the judge shows as not calibrated
    shipped = load()
    return shipped, shipped.get("judge") == judge and shipped.get("prompt") == prompt_id(profile)


def valid(calibration: Mapping[str, Any]) -> bool:
    bands = calibration.get("bands") or {}
    return all(s in bands and 0 <= bands[s][0] <= bands[s][1] <= 1 for s in SENSITIVITIES)


def save(calibration: Mapping[str, Any], folder: str | Path) -> Path:
    """Write a judge's calibration (its "judge" key names it) where for_judge finds it; atomically."""
    path = file_for(folder, calibration["judge"])
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(calibration, indent=1) + "\n")
    part.replace(path)
    return path


@overload
def logit(p: float, eps: float = 1e-6) -> float: ...
@overload
def logit(p: npt.NDArray[Any] | Sequence[float], eps: float = 1e-6) -> npt.NDArray[np.float64]: ...
def logit(p: Any, eps: float = 1e-6) -> float | npt.NDArray[np.float64]:
    """log(p / (1 - p)), clipped away from 0 and 1; a float for a float, an array for an array."""
    p = np.clip(np.asarray(p, dtype=float), eps, 1 - eps)
    out = np.log(p / (1 - p))
    return float(out) if out.ndim == 0 else out


@overload
def sigmoid(z: float) -> float: ...
@overload
def sigmoid(z: npt.NDArray[Any] | Sequence[float]) -> npt.NDArray[np.float64]: ...
def sigmoid(z: Any) -> float | npt.NDArray[np.float64]:
    """1 / (1 + e^-z) without overflow; a float for a float, an array for an array."""
    out = 0.5 * (1 + np.tanh(0.5 * np.asarray(z, dtype=float)))
    return float(out) if out.ndim == 0 else out


def platt(p_raw: float, a: float, b: float) -> float:
    """Platt scaling of raw probabilities: σ(a · logit(p) + b)."""
    return sigmoid(a * logit(p_raw) + b)


def calibrated(p: float, calibration: Mapping[str, Any]) -> float:
    """P(supported) from the raw P(Yes) under a calibration's Platt map."""
    return platt(p, calibration.get("a", 1.0), calibration.get("b", 0.0))


def grade(p: float, band: Sequence[float]) -> str:
    """supported at the band's high edge or above, uncertain inside it, unsupported below it."""
    low, high = band
    return "unsupported" if p < low else "uncertain" if p < high else "supported"


def fit_logistic(
    X: npt.ArrayLike, y: npt.ArrayLike, weights: npt.ArrayLike | None = None, l2: float = 1e-3, iterations: int = 100
) -> tuple[list[float], float]:
    """Weighted logistic regression by Newton steps: (coefficients, bias) with P(y=1) = σ(X·coef + bias).
    A small L2 penalty (on coefficients and bias) keeps them finite when the classes are separable."""
    y = np.asarray(y, dtype=float)
    X = np.asarray(X, dtype=float).reshape(len(y), -1)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    A = np.column_stack([X, np.ones(len(y))])
    theta = np.zeros(A.shape[1])
    for _ in range(iterations):
        q = sigmoid(A @ theta)
        grad = A.T @ (w * (q - y)) + l2 * theta
        hess = (A * (w * q * (1 - q))[:, None]).T @ A + l2 * np.eye(A.shape[1])
        step = np.linalg.solve(hess, grad)
        theta = theta - step
        if np.max(np.abs(step)) < 1e-10:
            break
    return [float(c) for c in theta[:-1]], float(theta[-1])


def fit(p_raw: Sequence[float], y: Sequence[int], kinds: Sequence[str]) -> dict[str, Any]:
    """A calibration from labelled sentences: y 1 = supported; kinds: each sentence's kind of text.

    The Platt map weighs every kind the same and, within a kind, its true and wrong sentences the same, so the
    middle of the scale is the balanced point of the kinds on average. Each sensitivity's band (TARGETS) is placed
    on that scale: the low edge where the kind with the most true sentences below it reaches its share, the high
    edge where the true sentences below it reach theirs on average over the kinds."""
    p, t, k = np.asarray(p_raw, dtype=float), np.asarray(y, dtype=int), np.asarray(kinds)
    names = sorted(set(k.tolist()))
    w = np.zeros(len(t))
    for name in names:
        for label in (0, 1):
            mine = (k == name) & (t == label)
            w[mine] = 0.5 / max(1, int(mine.sum())) / len(names)
    (a,), b = fit_logistic(logit(p)[:, None], t, w / w.sum(), L2)
    q = sigmoid(a * logit(p) + b)
    bands = {s: _band(q, t, k, names, *TARGETS[s]) for s in SENSITIVITIES}
    return {"a": round(a, 4), "b": round(b, 4), "bands": bands, "n": int(len(t)), "kinds": names}


def _band(q: np.ndarray, t: np.ndarray, k: np.ndarray, names: list[str], amber: float, marked: float) -> list:
    true_by_kind = [np.sort(q[(k == n) & (t == 1)]) for n in names]
    true_by_kind = [v for v in true_by_kind if len(v) >= MIN_CLASS]
    if not true_by_kind:
        return [0.5, 0.5]
    # on each kind, the point with at most its share of true sentences strictly below (rounded down, so kept)
    low = math.floor(min(float(v[int(amber * len(v))]) for v in true_by_kind) * 1e4) / 1e4
    high = low
    for cut in np.unique(q[q > low]):  # the highest edge whose mean share of true sentences marked is kept
        if np.mean([(v < cut).mean() for v in true_by_kind]) > marked:
            break
        high = float(cut)
    return [low, math.floor(high * 1e4) / 1e4]


def rereads(q1: np.ndarray, bands: Mapping[str, Sequence[float]]) -> np.ndarray:
    """Which sentences some sensitivity reads a second time: first P(supported) inside its band (judge.rereads)."""
    return np.any([(q1 >= b[0]) & (q1 < b[1]) for b in bands.values()], axis=0)


def fit_second(
    p_raw: Sequence[float],
    alone: Sequence[float] | npt.NDArray[np.float64],
    y: Sequence[int],
    kinds: Sequence[str],
    first: Mapping[str, Any],
    conflict: Sequence[bool] | None = None,
) -> dict[str, Any] | None:
    """The second read's scale, fitted beside a first calibration: P(supported) = σ(a₁·logit P₁ + a₂·logit max
    P_alone + b) over the sentences some band reads again (p_raw: the first read's P(Yes), alone: the highest of the
    second's, NaN where there is none; conflict: red whatever the reads say), each kind and label weighing the same;
    then each sensitivity's second band placed as fit() places the first's, on what users see after both reads: the
    first's grade outside its band, the second's inside. None when no kind has both true and wrong sentences to read
    again (no scale to fit: the judge then reads once)."""
    p, m, t, k = (np.asarray(v) for v in (p_raw, alone, y, kinds))
    p, m, t = p.astype(float), m.astype(float), t.astype(int)
    red = np.zeros(len(t), bool) if conflict is None else np.asarray(conflict, bool)
    q1 = sigmoid(first["a"] * logit(p) + first["b"])
    bands = first.get("bands") or PLAIN_BANDS
    mine = rereads(q1, bands) & ~red & ~np.isnan(m)
    names = [n for n in sorted(set(k[mine].tolist())) if len(set(t[mine & (k == n)].tolist())) == 2]
    if not names:
        return None
    mine &= np.isin(k, names)
    w = np.zeros(len(t))
    for name in names:
        for label in (0, 1):
            cell = mine & (k == name) & (t == label)
            w[cell] = 0.5 / max(1, int(cell.sum())) / len(names)
    X = np.column_stack([logit(p), logit(np.where(np.isnan(m), 0.5, m))])
    (a1, a2), b = fit_logistic(X[mine], t[mine], w[mine] / max(w.sum(), 1e-12), L2)
    if a1 < 0:  # inside the band the first read can rank against the truth; a higher first P never lowers the second
        (a2,), b = fit_logistic(X[mine][:, 1:], t[mine], w[mine] / max(w.sum(), 1e-12), L2)
        a1 = 0.0
    q2 = sigmoid(X @ np.array([a1, a2]) + b)
    once = np.isnan(m)  # no second read: its first grade stands
    second = {s: _second_band(q1, q2, t, k, red, once, bands[s], TARGETS[s][0], SECOND_HIGH[s]) for s in SENSITIVITIES}
    return {"a": [round(a1, 4), round(a2, 4)], "b": round(b, 4), "bands": second, "n": int(mine.sum())}


def _second_band(
    q1: np.ndarray,
    q2: np.ndarray,
    t: np.ndarray,
    k: np.ndarray,
    red: np.ndarray,
    once: np.ndarray,
    band: Sequence[float],
    amber: float,
    high: float,
) -> list[float]:
    """The second band [low, high) for one sensitivity: low the highest edge at which no kind has more than `amber`
    of its true sentences amber after both reads (the first read's amber counts); high the sensitivity's point of the
    second scale (SECOND_HIGH), never below low."""
    inside = (q1 >= band[0]) & (q1 < band[1]) & ~red & ~once
    below = (q1 < band[0]) & ~red  # amber from the first read, whatever the second band
    kinds = [n for n in sorted(set(k.tolist())) if ((k == n) & (t == 1)).sum() >= MIN_CLASS]
    if not kinds or not inside.any():
        return [float(band[0]), float(band[1])]

    def worst(cut: float) -> float:  # the largest share, over the kinds, of true sentences amber at this low edge
        amber_now = below | (inside & (q2 < cut))
        return max(float((amber_now & (k == n) & (t == 1)).sum() / ((k == n) & (t == 1)).sum()) for n in kinds)

    low = 0.0
    for cut in np.unique(np.concatenate([[0.0], q2[inside]])):
        if cut > high or worst(cut) > amber:
            break
        low = float(cut)
    return [math.floor(low * 1e4) / 1e4, max(math.floor(low * 1e4) / 1e4, high)]
