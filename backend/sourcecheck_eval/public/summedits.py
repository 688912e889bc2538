"""SummEdits (salesforce/factualNLG): the official "evaluation" split of the 8 domains whose files are in the repo.

Each domain file is one JSON array of items {id, doc, summary, label, original_summary, edit_types, split}.
Dev = every item with split == "evaluation"; the "test" items are held out (the splits share no document).
"""

import json
from pathlib import Path
from typing import Any

REPO = "salesforce/factualNLG"
REPOS = [{"repo": REPO, "commit": "0da1dfa62c783218d26208c1796d3a2605bec745", "licence": "Apache-2.0"}]
# billsum and shakespeare are also in the repo but were left out of the shared dev portion (blobs too large there);
# the order here is the order of the records in dev.jsonl.
DOMAINS = ("ectsum", "news", "podcast", "qmsumm", "sales_call", "sales_email", "samsum", "scitldr")
FILES = {REPO: [f"data/summedits/summedits_{domain}.json" for domain in DOMAINS]}
SELECTION = (
    'Each item carries the official "split" field; all items with split == "evaluation" of the 8 domains '
    "ectsum, news, podcast, qmsumm, sales_call, sales_email, samsum and scitldr are kept (986), in file order; "
    'the "test" items are held out (the two splits share no source document).'
)
LABELS = {1: "supported", 0: "unsupported"}


def record(domain: str, item: dict[str, Any]) -> dict[str, Any]:
    label = item["label"]
    return {
        "id": f"summedits-{domain}-{item['id']}",
        "dataset": "summedits",
        "task": "summarization",
        "sources": [item["doc"]],
        "text": item["summary"],
        "labels": [
            {"level": "response", "label": LABELS[label], "raw_label": label, "error_types": list(item["edit_types"])}
        ],
        "spans": [],
        "meta": {
            "domain": domain,
            "orig_id": item["id"],
            "official_split": item["split"],
            "original_summary": item["original_summary"],
        },
    }


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    root = roots[REPO]
    records = []
    for domain, path in zip(DOMAINS, FILES[REPO]):
        items = json.loads((root / path).read_text(encoding="utf-8"))
        if any("split" not in item for item in items):
            # Older commits of the repo have no split field: without it the held-out items cannot be told apart.
            raise SystemExit(f"{path}: items without the official 'split' field")
        records += [record(domain, item) for item in items if item["split"] == "evaluation"]
    return records
