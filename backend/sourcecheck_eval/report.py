"""The eval's outputs: results.json, results.md, predictions.jsonl and a reliability diagram."""

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sourcecheck_eval import metrics

# -- outputs ------------------------------------------------------------------------------------


def write_outputs(out: Path, report: Mapping[str, Any], predictions: Sequence[Mapping[str, Any]]) -> None:
    (out / "results.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as f:
        for u in predictions:
            f.write(json.dumps(u, ensure_ascii=False) + "\n")
    (out / "results.md").write_text(markdown(report))
    curves: list[tuple[str, Sequence[tuple[float, float, int, float, float]]]] = []
    for name, ds in report["datasets"].items():
        units = [u for u in predictions if u["dataset"] == name and u["view"] == ds["primary"]]
        if units and ds["primary"] != "response":
            curves.append((name, metrics.reliability_bins([u["y"] for u in units], [u["p"] for u in units])))
    pooled = [u for u in predictions if u["view"] == report["datasets"][u["dataset"]]["primary"] != "response"]
    if pooled:
        curves.append(
            ("all sentence-level items", metrics.reliability_bins([u["y"] for u in pooled], [u["p"] for u in pooled]))
        )
    reliability_png(
        curves, out / "reliability.png", title="Reliability: sentence-level P(supported) vs. fraction supported"
    )


def markdown(report: Mapping[str, Any]) -> str:
    """Two tables: sentence level (the primary view of each set) and response level."""
    f = metrics.fmt

    def interval(ci: Sequence[float | None] | None) -> str:
        return f"[{f(ci[0], digits=0)}–{f(ci[1], digits=0)}]" if ci and ci[0] is not None else ""

    m: Any  # a metric block of the report (JSON-like); None where a set has none
    lines = [
        f"| set | view | N rec | N items (unsup) | BA @{report.get('threshold', 0.5):.4g} [95% CI] "
        "| BA best θ (θ) | BA 5-fold θ "
        "| P / R / F1 unsup | AUROC | ECE | s/rec |",
        "|" + " --- |" * 11,
    ]
    for name, ds in report["datasets"].items():
        view = ds["primary"]
        if view in (None, "response"):
            continue
        m = ds[view]
        lines.append(
            f"| {name} | {view} | {ds['records']} | {m['n']} ({m['n_unsupported']}) | "
            f"{f(m['balanced_accuracy'])} {interval(m.get('balanced_accuracy_ci95'))} | "
            f"{f(m['balanced_accuracy_best'])} "
            f"({f(m['best_threshold'], pct=False, digits=3)}) | {f(m['balanced_accuracy_cv'])} | "
            f"{f(m['precision'])} / {f(m['recall'])} / {f(m['f1'])} | {f(m['auroc'])} | "
            f"{f(m['ece'])} | {ds['timing']['seconds_per_record']:.1f} |"
        )
    lines += [
        "",
        "| set | N rec (unsup) | BA any-sentence rule [95% CI] | BA @θ (θ) | BA 5-fold θ "
        "| P / R / F1 unsup @θ | AUROC P(text) | pairs ranked | s/rec |",
        "|" + " --- |" * 9,
    ]
    for name, ds in report["datasets"].items():
        m = ds.get("response")
        if not m:
            continue
        pairs = f"{f(m['pairwise_accuracy'])} of {m['pairs']}" if "pairs" in m else "–"
        theta = f"{m['best_threshold']:.3g}" if m["best_threshold"] is not None else "–"
        lines.append(
            f"| {name} | {m['n']} ({m['n_unsupported']}) | {f(m['balanced_accuracy_any'])} "
            f"{interval(m.get('balanced_accuracy_any_ci95'))} | "
            f"{f(m['balanced_accuracy_best'])} ({theta}) | {f(m['balanced_accuracy_cv'])} | "
            f"{f(m.get('precision_best'))} / {f(m.get('recall_best'))} / {f(m.get('f1_best'))} | "
            f"{f(m['auroc'])} | {pairs} | {ds['timing']['seconds_per_record']:.1f} |"
        )
    typed = []
    for name, ds in report["datasets"].items():
        view = ds["primary"]
        m = ds.get(view) if view else None
        by_type = (m or {}).get("recall_by_type_best" if view == "response" else "recall_by_type")
        if by_type:
            where = "response, @θ" if view == "response" else f"{view}, @{m['threshold']}"
            typed.append(
                f"| {name} ({where}) | "
                + ", ".join(
                    f"{t} {f(r['recall'])} ({r['n']})" for t, r in sorted(by_type.items(), key=lambda kv: -kv[1]["n"])
                )
                + " |"
            )
    if typed:
        lines += ["", "| set | recall of unsupported items per error type (n) |", "| --- | --- |", *typed]
    users = [(name, ds["user"]) for name, ds in report["datasets"].items() if ds.get("user")]
    if users:
        lines += [
            "",
            "What a user meets (product-shaped sets; flagged = p below the threshold, red = flagged with a "
            "conflict found in the source):",
            "",
            "| set | true flagged | errors caught | true sentences red | red that are wrong | conflict errors red "
            "| settling passage first | settling passage retrieved |",
            "|" + " --- |" * 8,
        ]
        for name, u in users:
            lines.append(
                f"| {name} | {f(u['true_flagged'])} ({u['true']}) | {f(u['errors_caught'])} ({u['errors']}) | "
                f"{u['true_red']} | {f(u['red_precision'])} ({u['red']}) | {f(u['conflicts_red'])} | "
                f"{f(u['settling_first'])} | {f(u['settling_retrieved'])} |"
            )
    fit = report.get("fit")
    if fit:
        lines += [
            "",
            "Calibration fitted on the other sets (leave-one-set-out; headline number per set, "
            "stance: BA of the conflict finder, contradicted vs unsupported, on wrong items whose error type says "
            "which):",
            "",
            "| set | current | fitted on the other sets | stance items | stance (conflict found) |",
            "|" + " --- |" * 5,
        ]
        for name, r in fit["per_set"].items():
            lines.append(
                f"| {name} | {f(r['current'])} | {f(r['held_out_fit'])} | {r['stance_items']} | "
                f"{f(r['stance_conflict'])} |"
            )

        def rule(r: Mapping[str, Any] | None) -> str:
            return ", ".join(f"{k} {v:.3f}" for k, v in r["weights"].items()) + f", bias {r['bias']:.3f}" if r else "–"

        c = fit["calibration"]
        lines += ["", f"Fitted on all sets (calibration.fitted.json): score {rule(c)}."]
    return "\n".join(lines) + "\n"


COLOURS = [
    (0.12, 0.47, 0.71),
    (1.0, 0.5, 0.05),
    (0.17, 0.63, 0.17),
    (0.84, 0.15, 0.16),
    (0.58, 0.4, 0.74),
    (0.55, 0.34, 0.29),
    (0.89, 0.47, 0.76),
    (0.5, 0.5, 0.5),
    (0.74, 0.74, 0.13),
    (0.09, 0.75, 0.81),
]


def reliability_png(
    curves: Sequence[tuple[str, Sequence[tuple[float, float, int, float, float]]]],
    path: str | Path,
    title: str = "Reliability diagram",
    size: int = 420,
    dpi: int = 144,
) -> None:
    """Draw (name, bins) curves — bins as from metrics.reliability_bins — into a PNG with PyMuPDF."""
    import pymupdf

    left, top, plot = 48, 34, size - 48 - 16
    legend_h = 14 * len(curves) + 8
    doc = pymupdf.open()
    page = doc.new_page(width=size + 170, height=top + plot + 40 + max(0, legend_h - plot))

    def xy(px: float, py: float) -> pymupdf.Point:
        return pymupdf.Point(left + px * plot, top + (1 - py) * plot)

    page.insert_text((left, 20), title, fontsize=9)
    page.draw_rect(pymupdf.Rect(left, top, left + plot, top + plot), color=(0, 0, 0), width=0.8)
    for k in range(1, 10):
        page.draw_line(xy(k / 10, 0), xy(k / 10, 1), color=(0.9, 0.9, 0.9), width=0.5)
        page.draw_line(xy(0, k / 10), xy(1, k / 10), color=(0.9, 0.9, 0.9), width=0.5)
    for k in range(0, 11, 2):
        page.insert_text(xy(k / 10, 0) + (-6, 12), f"{k / 10:.1f}", fontsize=7)
        page.insert_text(xy(0, k / 10) + (-20, 3), f"{k / 10:.1f}", fontsize=7)
    page.insert_text((left + plot / 2 - 60, top + plot + 26), "mean predicted P(supported)", fontsize=8)
    page.insert_text((12, top + plot / 2 + 50), "fraction supported", fontsize=8, rotate=90)
    page.draw_line(xy(0, 0), xy(1, 1), color=(0.4, 0.4, 0.4), width=0.7, dashes="[3 3] 0")
    for i, (name, bins) in enumerate(curves):
        colour = COLOURS[i % len(COLOURS)]
        pooled = name.startswith("all")  # pooled curves bold, per-set ones thin (they are noisier)
        points = [xy(conf, acc) for _, _, _, conf, acc in bins]
        if len(points) > 1:
            page.draw_polyline(
                points, color=colour, width=2.2 if pooled else 0.8, stroke_opacity=1.0 if pooled else 0.7
            )
        total = sum(b[2] for b in bins) or 1
        for (_, _, n, _, _), pt in zip(bins, points):
            page.draw_circle(
                pt,
                (1.5 if pooled else 1.0) + (4 if pooled else 2.5) * math.sqrt(n / total),
                color=colour,
                fill=colour,
                width=0.5,
            )
        ly = top + 8 + 14 * i
        page.draw_line((left + plot + 12, ly - 3), (left + plot + 28, ly - 3), color=colour, width=2.2 if pooled else 1)
        page.insert_text((left + plot + 32, ly), name, fontsize=7.5)
    page.insert_text(
        (left + plot + 12, top + 8 + 14 * len(curves) + 6),
        "dot area ~ items in bin",
        fontsize=6.5,
        color=(0.4, 0.4, 0.4),
    )
    page.get_pixmap(dpi=dpi).save(str(path))
    doc.close()
