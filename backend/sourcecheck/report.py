"""A check as a Markdown report: each sentence with its label, probability, critique, revision and quotes.
extension/lib/report.js writes the same report from the same result (tests/unit/test_report.py holds them equal)."""

from collections.abc import Mapping
from typing import Any

from sourcecheck.judging.cards import in_quotes

LABELS = {
    "contradicted": "Contradicted by your sources",
    "unsupported": "Not supported by your sources",
    "uncertain": "Not sure: check it yourself",
    "supported": "Supported by your sources",
    "skipped": "Not a factual claim",
    "unchecked": "Not checked (the check was stopped first)",
}
ERROR_TYPES = {
    "entity": "a wrong number or name",
    "relation": "a wrong relation",
    "contradictory": "contradicts your PDFs",
    "invented": "not in your PDFs",
    "subjective": "an opinion",
    "unverifiable": "cannot be checked",
}
COUNTS = (
    ("contradicted", "contradicted"),
    ("unsupported", "not supported"),
    ("uncertain", "not sure"),
    ("supported", "supported"),
    ("skipped", "skipped"),
    ("unchecked", "not checked"),
)


def percent(p: float) -> str:
    return "<1%" if 0 < p < 0.01 else ">99%" if 0.99 < p < 1 else f"{int(p * 100 + 0.5)}%"  # JS Math.round


def quoted(text: object) -> str:
    """Text as one Markdown block quote line (a line break in it would end the quote)."""
    return "> " + " ".join(str(text).split())


def markdown(result: Mapping[str, Any], title: str = "", url: str = "", checked_at: str = "") -> str:
    """result: what POST /check answers as JSON (or `sourcecheck check --json` prints)."""
    verdicts = {v["index"]: v for v in result.get("verdicts") or []}
    labels = [
        verdicts[s["index"]]["label"]
        if s["index"] in verdicts
        else "unchecked"
        if s.get("checkable", True)
        else "skipped"
        for s in result["sentences"]
    ]
    lines = ["# sourcecheck report", ""]
    if title or url:
        lines.append(f"- Page: [{title or url}]({url})" if url else f"- Page: {title}")
    if checked_at:
        lines.append(f"- Checked: {checked_at}")
    counts = ", ".join(f"{labels.count(k)} {name}" for k, name in COUNTS if labels.count(k))
    # the grades, not Π p_supported: ten sentences at 0.6 give 0.6 %, which reads as the opposite of the grades
    lines.append(f"- Result: {counts}")
    if (result.get("summary") or {}).get("calibrated") is False:
        lines.append("- Judge: not calibrated; its grades use the default model's scale (`sourcecheck calibrate`)")
    lines.append("")
    for n, (s, label) in enumerate(zip(result["sentences"], labels), start=1):
        v = verdicts.get(s["index"]) or {}
        head = f"## {n}. {LABELS.get(label, label)}"
        # the number only where it agrees with the label (supported at 50 % or more), and always for an uncertain
        # one, whose number is the point (as on the card)
        p = v.get("p_supported")
        if isinstance(p, (int, float)) and (label == "uncertain" or (label == "supported") == (p >= 0.5)):
            head += f" · P(supported) {percent(v['p_supported'])}"
        lines += [head, "", quoted(s["text"]), ""]
        if v.get("error_type"):
            lines.append(f"- Error type: {ERROR_TYPES.get(v['error_type'], v['error_type'])}")
        if v.get("critique"):
            lines.append(f"- Critique: {' '.join(v['critique'].split())}")
        lines += [f"- {note}" for note in cited_notes(v.get("cited") or [])]
        if v.get("revised") and v["revised"] != s["text"]:
            lines.append(f"- Suggested revision: {' '.join(v['revised'].split())}")
        for e in v.get("evidence") or []:
            where = ", ".join(
                x for x in (e.get("filename") or e.get("document_id"), f"p. {e['page']}" if e.get("page") else "") if x
            )
            stance = f" ({e['stance']})" if e.get("stance") and e["stance"] != "related" else ""
            lines.append(f"- Evidence, {where}{stance}: {in_quotes(' '.join(str(e.get('quote') or '').split()))}")
        if lines[-1]:
            lines.append("")
    revised = (result.get("summary") or {}).get("revised_text")
    if revised:
        lines += ["## Revised text", "", revised.strip(), ""]
    return "\n".join(lines)


def cited_notes(cited: Any) -> list[str]:
    """What the citation check found, in sentences, as the card says it (extension/lib/labels.js citedNotes, line for
    line, odd input included): cited papers not in the library, and co-authors a cited paper does not have."""
    entries = [c for c in cited if isinstance(c, dict)] if isinstance(cited, list) else []
    notes = []
    missing = [str(c.get("text") or "") for c in entries if not c.get("document_id")]
    if missing:
        notes.append(f"Cites {', '.join(missing)}, which {'are' if len(missing) > 1 else 'is'} not in your library.")
    for c in entries:
        wrong = c.get("not_authors")
        if not c.get("document_id") or not isinstance(wrong, list) or not wrong:
            continue
        authors = (
            [a for a in c.get("authors") or [] if isinstance(a, str)] if isinstance(c.get("authors"), list) else []
        )
        by = ", ".join(authors[:-1]) + " and " + authors[-1] if len(authors) > 1 else "".join(authors)
        names = ", ".join(str(n) for n in wrong if isinstance(n, str))
        notes.append(
            f"Cites {c.get('text') or ''}, but that paper is by {by or 'other authors'}: {names} is not among them."
        )
    return notes
