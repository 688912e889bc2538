"""FaithBench (vectara/FaithBench): LLM summaries with human span annotations, minus a held-out fifth of the sources.

Each batch file is {"samples": [{sample_id, source, summary, annotations: [...], metadata: {...}}, ...]}.
FaithBench has no official split: a sample is held out iff the sha256 of its source text falls in one fifth
(see held_out), so the ten summaries of one source are always on the same side.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

REPO = "vectara/FaithBench"
REPOS = [{"repo": REPO, "commit": "cf89797d82812c23b5d5e5c121f1d9b8983bbbce", "licence": "CC BY-NC-SA 4.0"}]
BATCHES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16)  # batch 13 was never released
FILES = {REPO: [f"data_for_release/batch_{batch}.json" for batch in BATCHES]}
SELECTION = (
    "FaithBench has no official split. A sample is held out iff "
    'int(sha256("faithbench|" + source).hexdigest()[:8], 16) % 5 == 0, so all summaries of one source text '
    "fall on the same side; every other sample of batches 1-12, 14-16 is kept (610 samples, 61 sources), "
    "in batch and file order."
)
# Response label = the worst label over all annotations of the sample.
SEVERITY = ("unsupported", "questionable", "benign", "supported")
BINARY = {"unsupported": "unsupported", "questionable": None, "benign": "supported", "supported": "supported"}


def held_out(source: str) -> bool:
    return int(hashlib.sha256(f"faithbench|{source}".encode()).hexdigest()[:8], 16) % 5 == 0


def severity(labels: list[str]) -> str:
    if any(label.startswith("Unwanted") for label in labels):
        return "unsupported"
    if "Questionable" in labels:
        return "questionable"
    if "Benign" in labels:
        return "benign"
    return "supported"


def span(annotation: dict[str, Any]) -> dict[str, Any]:
    return {
        "start": annotation["summary_start"],
        "end": annotation["summary_end"],
        "text": annotation["summary_span"],
        "type": "|".join(annotation["label"]),
        "note": annotation["note"],
        "annotator": annotation["annotator_id"],
        "source_span": annotation["source_span"],
        "source_start": annotation["source_start"],
        "source_end": annotation["source_end"],
    }


def record(batch: int, sample: dict[str, Any]) -> dict[str, Any]:
    annotations = sample["annotations"]
    labels = sorted({label for annotation in annotations for label in annotation["label"]})
    worst = min((severity(a["label"]) for a in annotations), key=SEVERITY.index, default="supported")
    return {
        "id": f"faithbench-b{batch}-s{sample['sample_id']}",
        "dataset": "faithbench",
        "task": "summarization",
        "sources": [sample["source"]],
        "text": sample["summary"],
        "labels": [
            {"level": "response", "label": worst, "raw_label": worst, "binary": BINARY[worst], "error_types": labels}
        ],
        "spans": [span(annotation) for annotation in annotations],
        "meta": {"batch": batch, "sample_id": sample["sample_id"], **sample["metadata"]},
    }


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    root = roots[REPO]
    records = []
    for batch, path in zip(BATCHES, FILES[REPO]):
        samples = json.loads((root / path).read_text(encoding="utf-8"))["samples"]
        records += [record(batch, sample) for sample in samples if not held_out(sample["source"])]
    return records
