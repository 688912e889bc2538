"""TofuEval (amazon-science/tofueval): topic-focused dialogue summaries with expert sentence labels, official dev split.

factual_consistency/{mediasum,meetingbank}_factual_eval_dev.csv has one row per summary sentence (doc_id,
annotation_id, topic, model_name, sent_idx, summ_sent, sent_label yes/no, exp, type). The annotations come without
their dialogues: the MeetingBank transcripts are in a second repository (AnPruch/summary_hallucinations, made with
the snippet in TofuEval's README); MediaSum's are in no repository, so those records have no sources.
"""

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

REPO = "amazon-science/tofueval"
TRANSCRIPTS_REPO = "AnPruch/summary_hallucinations"
REPOS = [
    {
        "repo": REPO,
        "commit": "ade0f385448e0ad25936091ffbb3df73fa62aeee",
        "licence": "MIT-0 (annotations; an evaluation benchmark, not to be used to train NLP models)",
    },
    {
        "repo": TRANSCRIPTS_REPO,
        "commit": "ba3a7d6a8b84ae91faf870caef5fbd2c47b98f51",
        "licence": "MIT (repository); MeetingBank transcripts under a Creative Commons licence "
        "(meetingbank.github.io/license)",
    },
]
CORPORA = ("mediasum", "meetingbank")  # the order of the records in the shared dev.jsonl
SPLIT = "document_ids_dev_test_split.json"
TRANSCRIPTS = "TofuEval Files/meetingbank_dev_doc.csv"
FILES = {
    REPO: [f"factual_consistency/{corpus}_factual_eval_dev.csv" for corpus in CORPORA] + [SPLIT],
    TRANSCRIPTS_REPO: [TRANSCRIPTS],
}
SELECTION = (
    "The whole official dev split: every row of factual_consistency/{mediasum,meetingbank}_factual_eval_dev.csv "
    "whose doc_id is a dev document in document_ids_dev_test_split.json (35 + 35 documents), one record per "
    "(doc_id, annotation_id, topic, model_name) in file order, MediaSum first (1,243 summaries). The official test "
    "split (534 summaries, 15 + 15 documents) is held out."
)
NOTES = {
    "mediasum": "source transcript not available in any fetched repo; doc_id refers to MediaSum news_dialogue.json "
    "(see tofueval README)",
    "meetingbank": f"MeetingBank transcript from {TRANSCRIPTS_REPO} '{TRANSCRIPTS}'",
}
LABELS = {"yes": "supported", "no": "unsupported"}


def read_csv(path: Path) -> list[dict[str, str]]:
    # utf-8-sig: a spreadsheet-written CSV may start with a byte-order mark that would rename the first column
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def sentence(index: int, row: dict[str, str]) -> dict[str, Any]:
    return {
        "level": "sentence",
        "index": index,
        "text": row["summ_sent"],
        "label": LABELS[row["sent_label"]],
        "raw_label": row["sent_label"],
        # "type" lists one or more error types separated by commas
        "error_types": [t.strip() for t in row["type"].split(",") if t.strip()],
        "explanation": row["exp"] or None,
    }


def record(corpus: str, rows: list[dict[str, str]], transcript: str | None) -> dict[str, Any]:
    first = rows[0]
    # sent_idx orders the sentences (a stable sort keeps file order between equal indices)
    ordered = sorted(rows, key=lambda row: int(row["sent_idx"]))
    sentences = [sentence(i, row) for i, row in enumerate(ordered)]
    spans, start = [], 0
    for s in sentences:
        if s["label"] == "unsupported":
            end = start + len(s["text"])
            spans.append({"start": start, "end": end, "text": s["text"], "type": "|".join(s["error_types"])})
        start += len(s["text"]) + 1
    flagged = bool(spans)
    meta: dict[str, Any] = {
        "corpus": corpus,
        "doc_id": first["doc_id"],
        "annotation_id": first["annotation_id"],
        "topic": first["topic"],
        "model_name": first["model_name"],
        "sources_missing": transcript is None,
        "sources_note": NOTES[corpus],
    }
    if transcript is not None:
        meta["topic_instruction"] = first["topic"]
    topic_hash = hashlib.sha1(first["topic"].encode()).hexdigest()[:8]  # the topic may hold any character
    return {
        "id": f"tofueval-{corpus}-{first['doc_id']}-{first['annotation_id']}-{first['model_name']}-{topic_hash}",
        "dataset": "tofueval",
        "task": "topic_focused_dialogue_summarization",
        "sources": [] if transcript is None else [transcript],
        "text": " ".join(s["text"] for s in sentences),
        "labels": [
            {
                "level": "response",
                "label": "unsupported" if flagged else "supported",
                "raw_label": None,
                "error_types": [],
            },
            *sentences,
        ],
        "spans": spans,
        "meta": meta,
    }


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    root = roots[REPO]
    dev = json.loads((root / SPLIT).read_text(encoding="utf-8"))["dev"]
    transcripts = {row["meeting_id"]: row["source"] for row in read_csv(roots[TRANSCRIPTS_REPO] / TRANSCRIPTS)}
    records = []
    for corpus, path in zip(CORPORA, FILES[REPO]):
        summaries: dict[tuple[str, ...], list[dict[str, str]]] = {}
        for row in read_csv(root / path):
            if row["doc_id"] in dev[corpus]:
                key = (row["doc_id"], row["annotation_id"], row["topic"], row["model_name"])
                summaries.setdefault(key, []).append(row)
        for (doc_id, *_), rows in summaries.items():
            transcript = None
            if corpus == "meetingbank":
                if doc_id not in transcripts:
                    raise SystemExit(f"{TRANSCRIPTS_REPO} '{TRANSCRIPTS}' has no transcript of {doc_id}")
                transcript = transcripts[doc_id]
            records.append(record(corpus, rows, transcript))
    return records
