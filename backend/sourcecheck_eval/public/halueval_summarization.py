"""HaluEval summarization (RUCAIBox/HaluEval): the first 20 records of data/summarization_data.json.

The file is 10,000 JSON lines {document, right_summary, hallucinated_summary} (47 MB). The shared dev portion
is its first 20 records (all that could be read without the blob), so convert() reads only those lines.
Each record gives two uniform records: the right summary (supported) and the hallucinated one (unsupported).
"""

import json
from itertools import islice
from pathlib import Path
from typing import Any

REPO = "RUCAIBox/HaluEval"
REPOS = [{"repo": REPO, "commit": "b7253db3cdaa0ab2c382f92b26b390109174f77e", "licence": "MIT"}]
PATH = "data/summarization_data.json"
FILES = {REPO: [PATH]}
COUNT = 20
SELECTION = (
    f"The first {COUNT} records (lines) of {PATH}, each as two records: the right summary (supported) and the "
    "hallucinated summary (unsupported). The set has no official split and no held-out portion; it is a smoke "
    "test."
)
SEMANTICS = (
    "right_summary = CNN/DM reference highlights (assumed faithful); "
    "hallucinated_summary = ChatGPT-generated, filtered to contain hallucination"
)
VARIANTS = (("right", "supported"), ("hallucinated", "unsupported"))


def records(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": f"halueval_sum-{index}-{variant}",
            "dataset": "halueval_summarization",
            "task": "summarization",
            "sources": [item["document"]],
            # The right summaries (CNN/DM highlights) end with a newline; the text to check is without it.
            "text": item[f"{variant}_summary"].strip(),
            "labels": [{"level": "response", "label": label, "raw_label": variant, "error_types": []}],
            "spans": [],
            "meta": {"pair_index": index, "variant": variant, "label_semantics": SEMANTICS},
        }
        for variant, label in VARIANTS
    ]


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    out = []
    # Stream: only the first COUNT lines of the 47 MB file are read.
    with open(roots[REPO] / PATH, encoding="utf-8") as f:
        lines = list(islice(f, COUNT))
    if len(lines) < COUNT or not all(line.strip() for line in lines):
        raise SystemExit(f"{PATH}: expected {COUNT} JSON lines at the start, got {len(lines)}")
    for index, line in enumerate(lines):
        out += records(index, json.loads(line))
    return out
