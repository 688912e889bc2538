"""One operating point for every kind of text: calibration.json fitted on all development sets at once.

The judge's P(Yes) ranks sentences about as well on chat answers about abstracts, about full papers and on the
public benchmarks, but the threshold that separates them best moves by more than a logit from one set to the next
(docs/quality.md). A threshold tuned on one set is wrong on the others. So the Platt scaling σ(a·logit P(Yes) + b)
is fitted on every development set together, each set weighing the same and, within a set, its supported and
unsupported sentences weighing the same: then 0.5 is the balanced point of every set on average, the default
sensitivity flags below 0.5, and the probability a card shows agrees with its label. Each set is reported under
the fit on the others (leave one set out), the situation of a kind of text nobody tuned on.

    python -m sourcecheck_eval.operating tests/data/features/*.npz [--out calibration.json]
"""

import argparse
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sourcecheck.calibration import logit, sigmoid

from sourcecheck_eval import metrics

L2 = 1e-2  # a few hundred sentences per fit: keep a and b near where the data puts them
HELD_OUT = ("-test",)  # held-out halves (chatpdfs-test, fullpapers-test) are never fitted on
RELAXED_TRUE_FLAGGED = 0.05  # relaxed flags at most this share of true sentences (mean over the sets)
STRICT_ERRORS_CAUGHT = 0.85  # strict catches at least this share of errors (mean over the sets)


def load(paths: Iterable[str | Path]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{set name: (y, logit P(Yes))} from features files (head.py export)."""
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for path in paths:
        d = np.load(path)
        out[Path(path).stem] = (d["y"].astype(float), logit(d["p_raw"].astype(float)))
    return out


def fit(sets: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """(a, b) of σ(a·x + b) on the weighted log-loss (metrics.fit_logistic): sets equal, classes equal within each."""
    xs, ys, ws = [], [], []
    for y, x in sets:
        n_pos, n_neg = max(1, int(y.sum())), max(1, int((1 - y).sum()))
        ws.append(np.where(y == 1, 0.5 / n_pos, 0.5 / n_neg))
        xs.append(x)
        ys.append(y)
    w = np.concatenate(ws)
    (a,), b = metrics.fit_logistic(np.concatenate(xs)[:, None], np.concatenate(ys), w / w.sum(), L2)
    return a, b


def scores(y: np.ndarray, p: np.ndarray, threshold: float = 0.5) -> dict[str, Any]:
    flagged = p < threshold
    return {
        "n": int(len(y)),
        "balanced_accuracy": metrics.balanced_accuracy(list(y.astype(int)), list((~flagged).astype(int))),
        "ece": metrics.expected_calibration_error(list(y.astype(int)), list(p)),
        "auroc": metrics.auroc(list(y.astype(int)), list(p)),
        "true_flagged": float(flagged[y == 1].mean()) if (y == 1).any() else None,
        "errors_caught": float(flagged[y == 0].mean()) if (y == 0).any() else None,
    }


def best_threshold(y: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """The logit P(Yes) that separates a set's classes best (balanced accuracy): how far apart the sets' best
    thresholds lie says how much one operating point must give up somewhere."""
    cuts = np.unique(x)
    ba = [((x[y == 1] >= c).mean() + (x[y == 0] < c).mean()) / 2 for c in cuts]
    return float(cuts[int(np.argmax(ba))]), float(max(ba))


def leave_one_set_out(data: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, dict[str, Any]]:
    """Each set scored under the fit on the other development sets; a held-out half under the fit on all."""
    dev = [n for n in data if not n.endswith(HELD_OUT)]
    out: dict[str, dict[str, Any]] = {}
    for name, (y, x) in data.items():
        a, b = fit([data[n] for n in dev if n != name])
        out[name] = {**scores(y, sigmoid(a * x + b)), "fit_on": [n for n in dev if n != name]}
    return out


def sensitivity(data: Mapping[str, tuple[np.ndarray, np.ndarray]], a: float, b: float) -> dict[str, float]:
    """relaxed and strict around the balanced 0.5: the highest threshold whose mean share of true sentences flagged
    is at most RELAXED_TRUE_FLAGGED, the lowest whose mean share of errors caught is at least STRICT_ERRORS_CAUGHT."""
    dev = [data[n] for n in data if not n.endswith(HELD_OUT)]
    grid = np.round(np.arange(0.01, 1.0, 0.005), 4)

    def mean_share(t: float, label: int) -> float:
        return np.mean([(sigmoid(a * x + b)[y == label] < t).mean() for y, x in dev if (y == label).any()])

    relaxed = max([t for t in grid if t <= 0.5 and mean_share(t, 1) <= RELAXED_TRUE_FLAGGED], default=0.01)
    strict = min([t for t in grid if t >= 0.5 and mean_share(t, 0) >= STRICT_ERRORS_CAUGHT], default=0.99)
    return {"relaxed": float(relaxed), "balanced": 0.5, "strict": float(strict)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sourcecheck_eval.operating", description=__doc__.split("\n")[0])
    p.add_argument("features", nargs="+", help="features files (.npz), one per set (head.py export)")
    p.add_argument("--out", help="write the fitted calibration here (e.g. backend/sourcecheck/calibration.json)")
    p.add_argument("--shipped", action="store_true", help="first score the shipped calibration.json as it is")
    args = p.parse_args(argv)
    data = load(args.features)
    if args.shipped:
        from sourcecheck.calibration import load as load_calibration

        cal = load_calibration()
        t = cal["sensitivity"]["balanced"]
        print(f"shipped: a {cal['a']}, b {cal['b']}, balanced threshold {t}")
        print("| set | BA | ECE | true flagged | errors caught |\n| --- |" + " --- |" * 4)
        for name, (y, x) in data.items():
            s = scores(y, sigmoid(cal["a"] * x + cal["b"]), t)
            print(
                f"| {name} | {100 * s['balanced_accuracy']:.1f} | {100 * s['ece']:.1f} | {_pct(s['true_flagged'])} "
                f"| {_pct(s['errors_caught'])} |"
            )
    dev = [n for n in data if not n.endswith(HELD_OUT)]
    a, b = fit([data[n] for n in dev])
    print(f"fitted on {', '.join(dev)}: a {a:.4f}, b {b:.4f}")
    print(
        "| set | n | fit on | BA @0.5 | ECE | AUROC | true flagged | errors caught | best logit θ (BA there) |\n"
        "| --- |" + " --- |" * 8
    )
    for name, s in leave_one_set_out(data).items():
        fit_on = "the others" if name in dev else "all dev"
        theta, best = best_threshold(*data[name])
        print(
            f"| {name} | {s['n']} | {fit_on} | {100 * s['balanced_accuracy']:.1f} | {100 * s['ece']:.1f} "
            f"| {100 * s['auroc']:.1f} | {_pct(s['true_flagged'])} | {_pct(s['errors_caught'])} "
            f"| {theta:.2f} ({100 * best:.1f}) |"
        )
    levels = sensitivity(data, a, b)
    print("sensitivity:", levels)
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {
                    "a": round(a, 4),
                    "b": round(b, 4),
                    "sensitivity": levels,
                    "fitted_on": f"Platt on {', '.join(dev)} (features of the current pipeline, tests/data/features), "
                    "each set weighing the same and its supported and unsupported sentences the same, so that "
                    "0.5 is the balanced point (sourcecheck_eval/operating.py)",
                    "sensitivity_fitted_on": f"relaxed flags at most {RELAXED_TRUE_FLAGGED:.0%} of true sentences, "
                    "strict "
                    f"catches {STRICT_ERRORS_CAUGHT:.0%} of errors (means over the same sets)",
                }
            )
            + "\n"
        )
    return 0


def _pct(v: float | None) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}"


if __name__ == "__main__":
    sys.exit(main())
