"""Factcheck-GPT (yuxiaw/Factcheck-GPT): ChatGPT answers with sentence and claim labels and retrieved evidence.

factcheck-GPT-benchmark.jsonl has one response per line: {prompt, response, revised_response, response_factuality,
sentences: {"sentence1": {text, sentence_factuality_label, claims, claims_factuality_label, auto_evidence (per
claim, a list of passages), stance_claim_autoEvid, if_automatic_evidence_enough_to_verify, ...}, ...}}.
The labels judge real-world truth; grounded_in_sources (per claim) is the view grounded in the retrieved passages.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

REPO = "yuxiaw/Factcheck-GPT"
REPOS = [{"repo": REPO, "commit": "a9e6a04a953ad880806529c504a679dd1ad06528", "licence": "Apache-2.0"}]
BENCHMARK = "factcheck-GPT-benchmark.jsonl"
FILES = {REPO: [BENCHMARK]}
SELECTION = (
    "No official split. A response is held out iff "
    'int(sha256("factcheck_gpt|" + prompt).hexdigest()[:8], 16) % 5 == 0 (15 of 94); the other 79 are kept, in file '
    "order, each with its line number in the file as id."
)
LABEL_SEMANTICS = (
    "label = real-world factuality judged by annotators (may use evidence beyond `sources`); grounded_in_sources = "
    "stance of the auto-retrieved passages in `sources` towards the claim"
)


def held_out(prompt: str) -> bool:
    return int(hashlib.sha256(f"factcheck_gpt|{prompt}".encode()).hexdigest()[:8], 16) % 5 == 0


def label(value: Any) -> str:
    # true / false; anything else ("NA" for opinions, "unknown") has no gold label
    if value is True:
        return "supported"
    if value is False:
        return "unsupported"
    return "unknown"


def grounded(stances: list[str]) -> str:
    """What the retrieved passages say of the claim: any full support wins, then any refutation, then partial."""
    if "completely-support" in stances:
        return "supported"
    if "refute" in stances:
        return "contradicted"
    if "partially-support" in stances:
        return "partially_supported"
    return "not_enough_evidence"


def record(line_number: int, item: dict[str, Any]) -> dict[str, Any]:
    sentences: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    sources: list[str] = []
    for i, s in enumerate(item["sentences"].values()):
        sentences.append(
            {
                "level": "sentence",
                "index": i,
                "text": s["text"],
                "label": label(s["sentence_factuality_label"]),
                "raw_label": s["sentence_factuality_label"],
                "error_types": [],
            }
        )
        for j, claim in enumerate(s["claims"]):
            stances = s["stance_claim_autoEvid"][j]
            claims.append(
                {
                    "level": "claim",
                    "index": len(claims),
                    "text": claim,
                    "sentence_index": i,
                    "label": label(s["claims_factuality_label"][j]),
                    "raw_label": s["claims_factuality_label"][j],
                    "grounded_in_sources": grounded(stances),
                    "evidence_stances": stances,
                    "evidence_sufficient": s["if_automatic_evidence_enough_to_verify"][j],
                    "checkworthiness": s["claim_checkworthiness"][j],
                    "error_types": [],
                }
            )
            for passage in s["auto_evidence"][j]:
                if passage not in sources:  # the same passage is often retrieved for several claims
                    sources.append(passage)
    response = {
        "level": "response",
        "label": label(item["response_factuality"]),
        "raw_label": item["response_factuality"],
        "error_types": [],
    }
    return {
        "id": f"factcheck_gpt-{line_number}",
        "dataset": "factcheck_gpt",
        "task": "open_domain_qa",
        "sources": sources,
        "text": item["response"],
        "labels": [response, *sentences, *claims],
        "spans": [],
        "meta": {
            "prompt": item["prompt"],
            "revised_response": item["revised_response"],
            "label_semantics": LABEL_SEMANTICS,
        },
    }


def convert(roots: dict[str, Path]) -> list[dict[str, Any]]:
    with open(roots[REPO] / BENCHMARK, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    return [record(n, item) for n, item in enumerate(items) if not held_out(item["prompt"])]
