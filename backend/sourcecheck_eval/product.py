"""The product-shaped set (tests/data/chatpdfs): chat answers checked against their papers rendered as PDFs,
and the numbers a user meets: true sentences flagged, errors caught, red marks on true sentences, and whether
the passage that settles a sentence is the one shown first.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import pymupdf
from sourcecheck.text.sentences import sentence_texts
from sourcecheck.text.words import content_words

from sourcecheck_eval.papers import pdf_path

PAGE = pymupdf.Rect(60, 60, 535, 780)
# The product-shaped sets: chat answers about abstracts rendered as PDFs (chatpdfs), and about real full papers,
# R-package vignettes fetched from Debian (fullpapers; `python -m sourcecheck_eval.papers fetch`)
PRODUCT_SETS = ("chatpdfs", "fullpapers")


def paper_pdf(source: str, paper: Mapping[str, Any] | None = None) -> bytes:
    """A PDF of one paper the way the set's sources give it ("title\\n\\nabstract"): title, authors, venue and
    year on page 1 with the first half of the abstract, the rest on page 2 (so page numbers are measured)."""
    title, _, abstract = source.partition("\n\n")
    paper = paper or {}
    sentences = sentence_texts(abstract)
    half = (len(sentences) + 1) // 2
    meta = paper.get("metadata") or {}
    header = "\n".join(
        x
        for x in (
            title.strip(),
            ", ".join(paper.get("authors") or []),
            " ".join(str(x) for x in (meta.get("venue"), meta.get("year")) if x),
        )
        if x
    )
    doc = pymupdf.open()
    for text in (header + "\n\nAbstract\n" + " ".join(sentences[:half]), " ".join(sentences[half:])):
        if text.strip():
            doc.new_page().insert_textbox(PAGE, text, fontsize=11)
    doc.set_metadata({"title": title.strip(), "author": ", ".join(paper.get("authors") or [])})
    data = doc.tobytes(no_new_id=True)  # the same bytes each time: one document id for the same paper
    doc.close()
    return data


def papers(record: Mapping[str, Any]) -> list[tuple[str, bytes]]:
    """(filename, PDF bytes) for each non-empty source, named by its position: paper3.pdf is sources[2]; a
    full-paper record's PDFs (meta.pdfs) under their own names."""
    if record.get("meta", {}).get("pdfs"):
        return [(name, pdf_path(name).read_bytes()) for name in record["meta"]["pdfs"]]
    by_title = {(p.get("title") or "").strip(): p for p in record.get("meta", {}).get("papers") or []}
    out = []
    for i, source in enumerate(record["sources"]):
        if source and source.strip():
            out.append((f"paper{i + 1}.pdf", paper_pdf(source, by_title.get(source.partition("\n\n")[0].strip()))))
    return out


def settles(
    evidence: Mapping[str, Any],
    label: Mapping[str, Any],
    sources: Sequence[str] | None = None,
    pdfs: Sequence[str] | None = None,
) -> bool | None:
    """Whether an evidence item ({"filename", "quote"}) is the passage that settles a labelled sentence. sources:
    the record's sources, where one paper can be listed twice (the same abstract under two entries): either counts;
    pdfs: a full-paper record's PDF names, which source_index points into."""
    if label.get("source_index") is None or not label.get("source_quote"):
        return None
    wanted = {pdfs[label["source_index"]] if pdfs else f"paper{label['source_index'] + 1}.pdf"}
    if sources and not pdfs:
        text = sources[label["source_index"]].partition("\n\n")[2].strip()
        wanted |= {f"paper{i + 1}.pdf" for i, s in enumerate(sources) if s and s.partition("\n\n")[2].strip() == text}
    if evidence["filename"] not in wanted:
        return False
    quote, wanted = set(content_words(evidence["quote"])), set(content_words(label["source_quote"]))
    return len(quote & wanted) >= 0.5 * min(len(quote), len(wanted))


def user_view(units: Sequence[Mapping[str, Any]], threshold: float, override: bool = True) -> dict[str, Any]:
    """The product numbers for scored units of this set (each unit: y, p, conflict, evidence, label)."""
    true = [u for u in units if u["y"] == 1]
    wrong = [u for u in units if u["y"] == 0]

    def flagged(u: Mapping[str, Any]) -> bool:  # a found conflict is red whatever p says (unless a row turns that off)
        return u["p"] < threshold or (override and bool(u.get("conflict")))

    def red(u: Mapping[str, Any]) -> bool:
        return flagged(u) and bool(u.get("conflict"))

    reds = [u for u in units if red(u)]
    settled = [u for u in units if u.get("settles") is not None]
    conflicting = [u for u in wrong if {"entity", "relation", "contradictory"} & set(u["error_types"])]
    return {
        "true": len(true),
        "errors": len(wrong),
        "true_flagged": _share(sum(map(flagged, true)), len(true)),
        "errors_caught": _share(sum(map(flagged, wrong)), len(wrong)),
        "true_red": sum(map(red, true)),
        "red_precision": _share(sum(1 for u in reds if u["y"] == 0), len(reds)),
        "red": len(reds),
        "conflicts_red": _share(sum(map(red, conflicting)), len(conflicting)),
        "settling_first": _share(sum(1 for u in settled if u["settles"][0]), len(settled)),
        "settling_retrieved": _share(sum(1 for u in settled if any(u["settles"])), len(settled)),
        "caught_by_type": {
            t: _share(
                sum(1 for u in wrong if t in u["error_types"] and flagged(u)),
                sum(1 for u in wrong if t in u["error_types"]),
            )
            for t in sorted({t for u in wrong for t in u["error_types"]})
        },
    }


def type_right(units: Sequence[Mapping[str, Any]], threshold: float, override: bool = True) -> float | None:
    """Of the flagged errors with a card, the share whose card names one of the error's labelled FAVA types."""
    typed = [
        u for u in units if u["y"] == 0 and u.get("card") and (u["p"] < threshold or (override and u.get("conflict")))
    ]
    return _share(sum(1 for u in typed if u["card"].get("error_type") in u["error_types"]), len(typed))


def intervals(
    units: Sequence[Mapping[str, Any]], threshold: float, n: int = 1000, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """95 % intervals of user_view's shares (and type_right) by a bootstrap over the answers (records): the
    sentences of one answer share a library and a writer, so they are not independent."""
    import numpy as np

    by_record: dict[Any, list[Mapping[str, Any]]] = {}
    draws: dict[str, list[float]]
    for u in units:
        by_record.setdefault(u["record"], []).append(u)
    records, rng, draws = list(by_record), np.random.default_rng(seed), {}
    for _ in range(n):
        sample = [u for i in rng.integers(0, len(records), len(records)) for u in by_record[records[i]]]
        view = {**user_view(sample, threshold), "type_right": type_right(sample, threshold)}
        for k, v in view.items():
            if isinstance(v, float):
                draws.setdefault(k, []).append(v)
    return {k: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for k, v in draws.items()}


def _share(k: float, n: int) -> float | None:
    return k / n if n else None


def cards(units: Sequence[Mapping[str, Any]]) -> dict[str, int] | None:
    """What the cards of flagged sentences say (a run with critiques): the critique written from a found conflict,
    by the model, or the plain fallback when the model's misstated the sources; the revisions shown; and, for
    errors whose label gives both values, how many revisions carry the source's value and drop the sentence's."""
    from sourcecheck.judging.cards import NOT_FOUND

    flagged = [u for u in units if u.get("card") and u["card"]["label"] in ("unsupported", "contradicted")]
    if not flagged:
        return None
    source = sum(1 for u in flagged if u.get("conflict"))
    fallback = sum(1 for u in flagged if not u.get("conflict") and u["card"]["critique"] == NOT_FOUND)
    revised = [u for u in flagged if u["card"]["revised"]]
    valued = [u for u in revised if u["y"] == 0 and u["card"]["claim_value"] and u["card"]["source_value"]]
    return {
        "flagged": len(flagged),
        "critique_from_conflict": source,
        "critique_fallback": fallback,
        "critique_by_model": len(flagged) - source - fallback,
        "revised": len(revised),
        "revised_true": sum(1 for u in revised if u["y"] == 1),
        "revised_with_values": len(valued),
        "revised_fixes_value": sum(map(_fixes, valued)),
    }


def _fixes(unit: Mapping[str, Any]) -> bool:
    """Whether a revision states the source's value and no longer the sentence's (numbers, else distinctive words)."""
    card = unit["card"]
    revised, claim, source = (set(content_words(card[k])) for k in ("revised", "claim_value", "source_value"))
    has_source = len(source & revised) >= 0.5 * len(source) if source else False
    return has_source and not (claim - source) & revised


def ablation(
    units: Sequence[Mapping[str, Any]],
    calibration: Mapping[str, Any],
    threshold: float = 0.5,
    sensitivity: str = "balanced",
) -> dict[str, dict[str, Any]]:
    """The user numbers of one set under each step: the old verdicts (calibrated P(Yes) at 0.5, red when ≥ 60 %
    of the sentence's words are in its evidence), red for a found conflict, then the tuned threshold."""
    from sourcecheck.judging.calibration import calibrated

    plain = [{**u, "p": calibrated(u["p_raw"], calibration)} for u in units]
    before = [{**u, "conflict": u.get("features", {}).get("overlap", 0) >= 0.6} for u in plain]
    return {
        "P(Yes) calibrated @0.5, red = word overlap ≥ 60 % (before)": user_view(before, 0.5, override=False),
        "@0.5, red = a conflict found (whatever P(Yes))": user_view(plain, 0.5),
        f"@{threshold} ({sensitivity}, tuned on chatpdfs-dev), red = a conflict found": user_view(plain, threshold),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print the ablation table of the product-shaped sets in an eval run's predictions.jsonl."""
    import argparse
    import json
    from pathlib import Path

    from sourcecheck.judging.calibration import calibrated, load

    from sourcecheck_eval.metrics import fmt

    p = argparse.ArgumentParser(prog="python -m sourcecheck_eval.product", description=main.__doc__)
    p.add_argument("predictions")
    p.add_argument(
        "--sensitivity", default="balanced", help="whose band's low edge (calibration.json) the last row uses"
    )
    p.add_argument("--threshold", type=float, help="the last row's threshold instead of the sensitivity's")
    args = p.parse_args(argv)
    calibration = load()
    units: dict[str, list[dict[str, Any]]] = {}
    for line in Path(args.predictions).read_text(encoding="utf-8").splitlines():
        u = json.loads(line)
        if u["view"] == "sentence" and u["dataset"].startswith(PRODUCT_SETS):
            units.setdefault(u["dataset"], []).append(u)
    print(
        "| set | verdicts | true flagged | errors caught | true red | red that are wrong | conflict errors red "
        "| settling passage first |\n" + "|" + " --- |" * 8
    )
    for name, us in sorted(units.items()):
        threshold = args.threshold or calibration["bands"][args.sensitivity][0]
        rows = ablation(us, calibration, threshold, args.sensitivity)
        for row, v in rows.items():
            print(
                f"| {name} | {row} | {fmt(v['true_flagged'])} ({v['true']}) | {fmt(v['errors_caught'])} "
                f"({v['errors']}) | {v['true_red']} | {fmt(v['red_precision'])} ({v['red']}) | "
                f"{fmt(v['conflicts_red'])} | {fmt(v['settling_first'])} |"
            )
    for name, us in sorted(units.items()):
        threshold = args.threshold or calibration["bands"][args.sensitivity][0]
        plain = [{**u, "p": calibrated(u["p_raw"], calibration)} for u in us]
        print(
            f"{name} @{threshold:.4g}, 95 % intervals over answers: "
            + ", ".join(f"{k} [{fmt(a)}, {fmt(b)}]" for k, (a, b) in intervals(plain, threshold).items())
            + f"; error type right {fmt(type_right(plain, threshold))}"
        )
        c = cards(us)
        if c:
            print(f"{name} cards: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
