"""The fitted models that turn the judge's raw answer into a verdict (calibration.json): one place for their math.

The runtime applies them (judge.py); the evaluation fits them (sourcecheck_eval/fitting.py) with the same functions.
"""

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, overload

import numpy as np
import numpy.typing as npt


def load() -> dict[str, Any]:
    """The shipped calibration.json."""
    return json.loads(resources.files("sourcecheck").joinpath("calibration.json").read_text())


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


def linear(rule: Mapping[str, Any], features: Mapping[str, float]) -> float:
    """A logistic rule's score, {"weights": {signal: w}, "bias": b} over the judge's signals: ≥ 0 means yes."""
    return rule["bias"] + sum(w * features[name] for name, w in rule["weights"].items())


def platt(p_raw: float, a: float, b: float) -> float:
    """Platt scaling of raw probabilities: σ(a · logit(p) + b)."""
    return sigmoid(a * logit(p_raw) + b)


def calibrated(p: float, features: Mapping[str, float] | None, calibration: Mapping[str, Any]) -> float:
    """P(supported) from the raw P(Yes): Platt scaling ({"a", "b"}), or a logistic model over the signals
    ({"weights": {name: w}, "bias": b}), the consistency + factuality paper's way of combining the judge with
    cheap checks."""
    if "weights" in calibration and features is not None:
        return sigmoid(linear(calibration, features))
    return platt(p, calibration.get("a", 1.0), calibration.get("b", 0.0))
