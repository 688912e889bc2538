"""WiCE (ryokamoi/wice): a Wikipedia claim vs. the web article it cites, claim level, official dev split.

data/entailment_retrieval/claim/dev.jsonl has one claim per line: {label, supporting_sentences, claim, evidence:
[article sentences], meta: {id, claim_title, claim_section, claim_context}}. The dev file is the dev split; the test
file (held out) is not read.
"""

import json
from pathlib import Path
from typing import Any

REPO = "ryokamoi/wice"
REPOS = [
    {
        "repo": REPO,
        "commit": "ddeb6c183665e2a20c5f03c5aa07f03888b9870f",
        "licence": "CC BY-SA 4.0 (Wikipedia claims) and Common Crawl terms of use (archived cited articles)",
    }
]
DEV = "data/entailment_retrieval/claim/dev.jsonl"
FILES = {REPO: [DEV]}
SELECTION = (
    "The whole official dev split: every line of data/entailment_retrieval/claim/dev.jsonl (349 claims), in file "
    "order. The official test split (358 claims, data/entailment_retrieval/claim/test.jsonl) is held out."
)
SOURCES_FORMAT = (
    "sources[0] is the cited article(s), one evidence sentence per line; supporting_sentences index those lines"
)
LABELS = {"supported": "supported", "partially_supported": "partially_supported", "not_supported": "unsupported"}


def record(item: dict[str, Any]) -> dict[str, Any]:
    meta = item["meta"]
    return {
        "id": f"wice-{meta['id']}",
        "dataset": "wice",
        "task": "claim_verification",
        # one line per evidence sentence, so supporting_sentences are line numbers of sources[0]
        "sources": ["\n".join(item["evidence"])],
        "text": item["claim"],
        "labels": [
            {
                "level": "claim",
                "index": 0,
                "text": item["claim"],
                "label": LABELS[item["label"]],
                "raw_label": item["label"],
                "error_types": [],
            }
        ],
        "spans": [],
        "meta": {
            "wice_id": meta["id"],
            "claim_title": meta["claim_title"],
            "claim_section": meta["claim_section"],
            "claim_context": meta["claim_context"],
            "supporting_sentences": item["supporting_sentences"],
            "sources_format": SOURCES_FORMAT,
        },
    }


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    with open(roots[REPO] / DEV, encoding="utf-8") as f:
        return [record(json.loads(line)) for line in f if line.strip()]
