"""LFQA attribution annotations (Chen et al. 2023, timchen0618/LFQA-Verification): answer sentences vs. evidence docs.

Each annotation file is one JSON array of {question_id, question, answers, annotations: [{labels: [3 votes], answer}]};
data/docs/docs-webgpt.json is one JSON array of {question_id, question, docs: [{doc_id, title, text}]}. The same 100
questions are answered by six systems; a fifth of the questions (hashed) is held out, with all six answers.
"""

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

REPO = "timchen0618/LFQA-Verification"
REPOS = [
    {
        "repo": REPO,
        "commit": "4e905be93fbe919082d62faa77ee32c68e90237c",
        "licence": "none stated (no licence file in the repository; questions from ELI5, documents from WebGPT)",
    }
]
# The order of the records in the shared dev.jsonl.
SYSTEMS = ("webgpt", "gpt3_wdoc", "gpt3_whudoc", "alpaca_wdoc", "gpt3", "alpaca")
DOCS = "data/docs/docs-webgpt.json"
FILES = {REPO: [f"data/annotations/annotations-{system}.json" for system in SYSTEMS] + [DOCS]}
SELECTION = (
    "No official split. Grouped by question_id (the same 100 questions are answered by all six systems), a question "
    'is held out iff int(sha256("lfqa|" + str(question_id)).hexdigest()[:8], 16) % 5 == 0; the answers of every '
    "other question are kept (83 questions, 498 answers), per system in file order. Every system is paired with "
    "docs-webgpt.json, as in the authors' src/Automatic/input_file.json."
)
SOURCES_NOTE = (
    "evidence = data/docs/docs-webgpt.json, the pairing used by the authors' src/Automatic/input_file.json for every "
    "system"
)
LABELS = {"supported": "supported", "partially": "partially_supported", "not_supported": "unsupported"}
FLAGGED = ("unsupported", "partially_supported")


def held_out(question_id: int | str) -> bool:
    return int(hashlib.sha256(f"lfqa|{question_id}".encode()).hexdigest()[:8], 16) % 5 == 0


def majority(votes: list[str]) -> str:
    """The label of at least two of the three annotators; unknown when all three differ."""
    label, n = Counter(votes).most_common(1)[0]
    return LABELS[label] if n >= 2 else "unknown"


def record(system: str, item: dict[str, Any], docs: list[dict[str, Any]]) -> dict[str, Any]:
    sentences: list[dict[str, Any]] = []
    spans: list[dict[str, Any]] = []
    start = 0
    for i, annotation in enumerate(item["annotations"]):
        text = annotation["answer"].strip()
        label = majority(annotation["labels"])
        sentences.append(
            {
                "level": "sentence",
                "index": i,
                "text": text,
                "label": label,
                "raw_label": annotation["labels"],
                "error_types": [],
            }
        )
        if label in FLAGGED:  # the unit of annotation is the sentence, so the spans are whole sentences
            spans.append({"start": start, "end": start + len(text), "text": text, "type": label})
        start += len(text) + 1
    flagged = any(s["label"] in FLAGGED for s in sentences)
    response: dict[str, Any] = {
        "level": "response",
        "label": "unsupported" if flagged else "supported",
        "raw_label": None,
        "error_types": [],
    }
    return {
        "id": f"lfqa-{system}-{item['question_id']}",
        "dataset": "lfqa_verification",
        "task": "lfqa",
        "sources": [f"{doc['title']}\n{doc['text']}" for doc in docs],
        "text": " ".join(s["text"] for s in sentences),
        "labels": [response, *sentences],
        "spans": spans,
        "meta": {
            "question_id": item["question_id"],
            "question": item["question"],
            "system": system,
            "doc_ids": [doc["doc_id"] for doc in docs],
            "sources_note": SOURCES_NOTE,
            "n_sentences_in_answers_field": len(item["answers"]),
        },
    }


def read(path: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return items


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    root = roots[REPO]
    docs = {entry["question_id"]: entry["docs"] for entry in read(root / DOCS)}
    records = []
    for system, path in zip(SYSTEMS, FILES[REPO]):
        for item in read(root / path):
            if held_out(item["question_id"]):
                continue
            if item["question_id"] not in docs:
                raise SystemExit(f"{REPO} {path}: question_id {item['question_id']} has no entry in {DOCS}")
            records.append(record(system, item, docs[item["question_id"]]))
    return records
