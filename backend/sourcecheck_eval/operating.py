"""Operating points that hold across kinds of text: the judge's scale and bands fitted on every kind's development
data at once (calibration.fit, each kind weighing the same), and each kind reported under a fit that did not see it.

Kinds: each public set, chat answers about abstracts (chatpdfs) and about full papers (fullpapers). A development
set is scored under the fit on the other kinds; a held-out half (chatpdfs-test, fullpapers-test) under the fit on
all development data, which is the one shipped.

    python -m sourcecheck_eval.operating RUN_DIR... [--features tests/data/features/X.npz ...] [--out calibration.json]

RUN_DIR: a `sourcecheck eval` output folder (its predictions.jsonl); an .npz features file stands in for a set no run
has scored yet. What each grade means per kind: the table printed (docs/quality.md keeps it).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sourcecheck.judging.calibration import fit, fit_second, grade, logit, platt, prompt_id, sigmoid, valid

from sourcecheck_eval import metrics
from sourcecheck_eval.kept_aside import kept_aside

HELD_OUT = ("-test", "-kept")  # never fitted on: the held-out halves, and a set's records kept aside (kept_aside.py)
DEFAULT_JUDGE = "llama_cpp:qwen2.5-coder-1.5b-instruct-q4_k_m"
RESAMPLES = 1000


def kind_of(name: str) -> str:
    """The kind a set belongs to: a product set's halves are one kind."""
    for suffix in ("-dev", *HELD_OUT):
        name = name.removesuffix(suffix)
    return name


def load(runs: Sequence[str | Path], features: Sequence[str | Path] = ()) -> dict[str, list[dict[str, Any]]]:
    """{set name: [{"record", "y", "p_raw", "alone", "conflict"}]}: sentence units of eval runs (predictions.jsonl; a
    set's grounded view where it has one), and of features files for sets the runs lack. alone: the second read's
    highest P(Yes), where the sentence was read again. Records kept aside are in a set of their own (set_aside)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        views: dict[tuple[str, str], list[dict[str, Any]]] = {}  # (set, view) -> units
        for line in Path(run, "predictions.jsonl").read_text().splitlines():
            u = json.loads(line)
            if u.get("view") in ("grounded", "sentence") and u.get("y") is not None:
                views.setdefault((u["dataset"], u["view"]), []).append(
                    {
                        "record": u["record"],
                        "y": int(u["y"]),
                        "p_raw": u["p_raw"],
                        **({"alone": max(u["alone"])} if u.get("alone") else {}),
                        "conflict": bool(u.get("conflict")),
                        "unnamed": bool((u.get("features") or {}).get("names_missing")),
                    }
                )
        for name in sorted({n for n, _ in views}):  # Factcheck-GPT's grounded labels, not real-world truth (records.py)
            out.setdefault(name, []).extend(views.get((name, "grounded")) or views[(name, "sentence")])
    for path in features:
        name = Path(path).stem
        if name in out:
            continue
        d = np.load(path)
        alone = d["alone"] if "alone" in d else np.full(len(d["y"]), np.nan)
        unnamed = d["names_missing"] > 0 if "names_missing" in d else np.zeros(len(d["y"]), dtype=bool)
        out[name] = [
            {
                "record": str(r),
                "y": int(y),
                "p_raw": float(p),
                **({} if np.isnan(a) else {"alone": float(a)}),
                "conflict": bool(c),
                "unnamed": bool(n),
            }
            for r, y, p, a, c, n in zip(d["record"], d["y"], d["p_raw"], alone, d["conflict"], unnamed)
        ]
    return set_aside(out)


def set_aside(sets: Mapping[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """The records kept aside moved out of their set into KIND-kept, which is scored but never fitted on."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, units in sets.items():
        for u in units:
            target = kind_of(name) + "-kept" if kept_aside(u["record"]) else name
            out.setdefault(target, []).append(u)
    return dict(sorted(out.items()))


def fitted(data: Mapping[str, list[dict[str, Any]]], leave_out: str | None = None) -> dict[str, Any]:
    """calibration.fit on the development sets, without the kind named leave_out, and fit_second beside it where the
    sets hold second reads."""
    units = [
        (u, kind_of(n)) for n, us in data.items() if not n.endswith(HELD_OUT) and kind_of(n) != leave_out for u in us
    ]
    p, y, k = [u["p_raw"] for u, _ in units], [u["y"] for u, _ in units], [k for _, k in units]
    first = fit(p, y, k)
    alone = [u.get("alone", np.nan) for u, _ in units]
    second = fit_second(p, alone, y, k, first, [u["conflict"] for u, _ in units])
    return {**first, "second": second} if second else first


def final_p(u: Mapping[str, Any], calibration: Mapping[str, Any], sensitivity: str = "balanced") -> float:
    """P(supported) as the user gets it: the first read's, or both reads' where the first leaves the sentence in its
    band and a second read was recorded (check.reread_sentence), unless that would clear a sentence that names
    something none of its passages names (unnamed: the first read's doubt stands)."""
    return _reread(u, calibration, sensitivity)[0]


def _reread(u: Mapping[str, Any], calibration: Mapping[str, Any], sensitivity: str) -> tuple[float, bool]:
    """(final_p, whether the second read's scale and band grade it)."""
    q1 = platt(u["p_raw"], calibration["a"], calibration["b"])
    second, band = calibration.get("second"), calibration["bands"][sensitivity]
    if not second or not band[0] <= q1 < band[1] or np.isnan(u.get("alone", np.nan)):
        return q1, False
    both = float(sigmoid(second["a"][0] * logit(u["p_raw"]) + second["a"][1] * logit(u["alone"]) + second["b"]))
    if u.get("unnamed") and grade(both, second["bands"][sensitivity]) == "supported":
        return q1, False
    return both, True


def marks(units: list[dict[str, Any]], calibration: Mapping[str, Any], sensitivity: str = "balanced") -> list[str]:
    """What the user sees for each unit: red for a found conflict, else the grade of its P(supported), by the second
    read's band where the first read's band left it and its verdict stands (final_p)."""
    out = []
    for u in units:
        p, second = _reread(u, calibration, sensitivity)
        bands = calibration["second"]["bands"] if second else calibration["bands"]
        out.append("contradicted" if u["conflict"] else grade(p, bands[sensitivity]))
    return out


def figures(units: list[dict[str, Any]], seen: list[str], final: list[float] | None = None) -> dict[str, float | None]:
    y = np.array([u["y"] for u in units])
    m = np.array(seen)
    true, wrong = y == 1, y == 0
    flagged = np.isin(m, ("contradicted", "unsupported"))

    def share(mask: np.ndarray, of: np.ndarray) -> float | None:
        return float(mask[of].mean()) if of.any() else None

    return {
        "true_red": share(m == "contradicted", true),
        "true_flagged": share(flagged, true),
        "true_uncertain": share(m == "uncertain", true),
        "errors_marked": share(m != "supported", wrong),
        "errors_flagged": share(flagged, wrong),
        "ba_flagged": metrics.balanced_accuracy(list(y), list((~flagged).astype(int))),
        "auroc": metrics.auroc(list(y), [u["p_raw"] for u in units]),
        # what the user is shown: red lowest, then P(supported) after both reads
        "auroc_final": None
        if final is None
        else metrics.auroc(list(y), [-1.0 if u["conflict"] else f for u, f in zip(units, final)]),
    }


def report(units: list[dict[str, Any]], calibration: Mapping[str, Any], sensitivity: str = "balanced") -> dict:
    """figures() with 95 % bootstrap intervals over records (a record's sentences move together)."""
    seen = marks(units, calibration, sensitivity)
    final = [final_p(u, calibration, sensitivity) for u in units]
    return {
        "n": len(units),
        "errors": sum(u["y"] == 0 for u in units),
        **resampled(
            units, lambda idx: figures([units[i] for i in idx], [seen[i] for i in idx], [final[i] for i in idx])
        ),
    }


def resampled(
    units: list[dict[str, Any]],
    stat: Callable[[list[int]], Mapping[str, float | None]],
    resamples: int = RESAMPLES,
    rng: np.random.Generator | None = None,
) -> dict[str, tuple]:
    """{name: (value, low, high)} of each figure stat() gives for these units (called with their indices), with a 95 %
    bootstrap interval over records (None, None where no draw gives one)."""
    rng = np.random.default_rng(0) if rng is None else rng
    point = stat(list(range(len(units))))
    records = sorted({u["record"] for u in units})
    by_record = {r: [i for i, u in enumerate(units) if u["record"] == r] for r in records}
    draws: dict[str, list[float]] = {k: [] for k in point}
    for _ in range(resamples):
        for k, v in stat([i for r in rng.choice(records, len(records)) for i in by_record[r]]).items():
            if v is not None:
                draws[k].append(v)
    return {
        k: (v, *(np.quantile(draws[k], [0.025, 0.975]).tolist() if draws[k] else (None, None)))
        for k, v in point.items()
    }


def table(data: Mapping[str, list[dict[str, Any]]], sensitivity: str = "balanced") -> tuple[str, dict[str, Any]]:
    """The Markdown table of every set under a fit that did not see it, and the fit on all development data."""
    everything = fitted(data)
    cols = (
        "true_red",
        "true_flagged",
        "true_uncertain",
        "errors_marked",
        "errors_flagged",
        "ba_flagged",
        "auroc",
        "auroc_final",
    )
    lines = [
        "| set | n (errors) | fit on | band | " + " | ".join(c.replace("_", " ") for c in cols) + " |",
        "| --- |" + " --- |" * (3 + len(cols)),
    ]
    for name, units in data.items():
        held = name.endswith(HELD_OUT)
        calibration = everything if held else fitted(data, kind_of(name))
        r = report(units, calibration, sensitivity)
        band = calibration["bands"][sensitivity]
        cells = [_cell(r[c]) for c in cols]
        fit_on = "all dev" if held else f"all but {kind_of(name)}"
        lines.append(
            f"| {name} | {r['n']} ({r['errors']}) | {fit_on} | {band[0]:.2f}–{band[1]:.2f} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines), everything


def ceiling(units: list[dict[str, Any]], amber: float = 0.10, unsure: float = 0.30) -> dict[str, float | None]:
    """The best any band on the judge's score could do on these very sentences, chosen with hindsight: a Platt map
    with a > 0 (every fit so far) keeps the judge's order, so a band is two cuts on p_raw. "ba_flagged": the best
    balanced accuracy of red or amber vs the rest with at most `amber` of true sentences red or amber;
    "errors_marked": the most errors marked (red, amber or uncertain) with at most `amber` + `unsure` of true
    sentences marked. A target above these, under those limits, is out of reach of any calibration or band of this
    judge on this kind of text: only a better ranking moves it."""
    y = np.array([u["y"] for u in units])
    p = np.array([u["p_raw"] for u in units])
    red = np.array([u["conflict"] for u in units], dtype=bool)
    if y.all() or not y.any():
        return {"ba_flagged": None, "errors_marked": None}
    best_ba, best_marked = 0.0, 0.0
    for cut in np.unique(np.r_[p, np.inf]):
        below = (p < cut) | red
        true_below, errors_below = below[y == 1].mean(), below[y == 0].mean()
        if true_below <= amber:
            best_ba = max(best_ba, (errors_below + 1 - true_below) / 2)
        if true_below <= amber + unsure:
            best_marked = max(best_marked, errors_below)
    return {"ba_flagged": float(best_ba), "errors_marked": float(best_marked)}


def ceilings(data: Mapping[str, list[dict[str, Any]]]) -> str:
    """The Markdown table of ceiling() per set, with 95 % intervals over records (200 resamples)."""
    lines = [
        "| set | best BA red/amber, ≤ 10 % of true red/amber | most errors marked, ≤ 40 % of true marked |",
        "| --- | --- | --- |",
    ]
    rng = np.random.default_rng(0)
    for name, units in data.items():
        # each draw searches every cut: fewer draws, the same order of interval
        def stat(idx: list[int], units: list[dict[str, Any]] = units) -> dict[str, float | None]:
            return ceiling([units[i] for i in idx])

        found = resampled(units, stat, RESAMPLES // 5, rng)
        cells = [_cell(found[k]) for k in ("ba_flagged", "errors_marked")]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(v: tuple) -> str:
    point, low, high = v
    if point is None:
        return "–"
    return f"{100 * point:.1f} [{100 * low:.0f}–{100 * high:.0f}]"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sourcecheck_eval.operating", description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="*", help="`sourcecheck eval` output folders")
    p.add_argument("--features", nargs="*", default=(), help=".npz features files for sets no run has scored")
    p.add_argument("--sensitivity", default="balanced", choices=("relaxed", "balanced", "strict"))
    p.add_argument("--out", help="write the calibration fitted on all development data here (calibration.json)")
    p.add_argument("--judge", default=DEFAULT_JUDGE, help="the judge the runs scored with (the calibration's key)")
    p.add_argument("--save-features", help="folder: each run set's sentences as NAME.npz, to fit again without a run")
    args = p.parse_args(argv)
    data = load(args.runs, args.features)
    text, everything = table(data, args.sensitivity)
    print(text)
    print("\nThe best any band on the judge's score could do on each set, chosen on that set with hindsight:\n")
    print(ceilings(data))
    print("\nfitted on all development data:", json.dumps(everything))
    if args.save_features:
        for name, units in data.items():
            keys = ("record", "y", "p_raw", "alone", "conflict")
            columns: dict[str, Any] = {k: np.array([u.get(k, np.nan) for u in units]) for k in keys}
            np.savez_compressed(Path(args.save_features) / f"{name}.npz", **columns)
    if args.out:
        shipped = {
            "judge": args.judge,
            "prompt": prompt_id(),  # taken on trust: the runs and features must have scored under today's prompts
            **everything,
            "fitted_on": "python -m sourcecheck_eval.operating on "
            f"{', '.join(n for n in sorted(data) if not n.endswith(HELD_OUT))} ({everything['n']} development "
            "sentences, each kind weighing the same, the records kept aside left out; docs/quality.md)",
        }
        assert valid(shipped)
        Path(args.out).write_text(json.dumps(shipped) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
