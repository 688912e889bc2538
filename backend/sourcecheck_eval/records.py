"""Benchmark records in the uniform schema: reading, choosing a sample, and their gold labels."""

import base64
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# Binary gold labels: 1 supported, 0 unsupported, None = not scored.
# FaithBench records carry the data's own binarisation ("binary"), which wins: benign → supported,
# questionable → None. partially_supported counts as unsupported: the tool must flag a sentence of
# which only part is supported.
LABELS: dict[str | None, int | None] = {  # looked up with a record's label, None when it has none
    "supported": 1,
    "unsupported": 0,
    "partially_supported": 0,
    "contradicted": 0,
    "not_enough_evidence": 0,
    "questionable": None,
    "benign": 1,
    "unknown": None,
}


def gold(item: Mapping[str, Any]) -> int | None:
    if "binary" in item:
        return LABELS.get(item["binary"]) if item["binary"] else None
    return LABELS.get(item.get("label"))


# -- choosing records ----------------------------------------------------------------------------


def load_records(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def usable(record: Mapping[str, Any]) -> bool:
    """A record with non-empty sources (or PDFs: the full-paper set) and at least one label we score."""
    if not any(s and s.strip() for s in record.get("sources") or ()) and not record.get("meta", {}).get("pdfs"):
        return False
    return any(gold(item) is not None for item in record["labels"]) or bool(grounded_items(record))


def select(records: Sequence[dict[str, Any]], limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Usable records; with a limit, a reproducible random sample of whole pairs (HaluEval's right and
    hallucinated summaries stay together). The sample for a smaller limit is a prefix of a larger one."""
    chosen = [r for r in records if usable(r)]
    if limit is None or limit >= len(chosen):
        return chosen
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in chosen:
        key = r.get("meta", {}).get("pair_index", r["id"])
        groups.setdefault(str(key), []).append(r)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    out: list[dict[str, Any]] = []
    for key in keys:
        if len(out) >= limit:
            break
        out.extend(groups[key])
    return out


def dataset_name(records: Sequence[Mapping[str, Any]], path: str | Path) -> str:
    return records[0].get("dataset") if records and records[0].get("dataset") else Path(path).parent.name  # type: ignore[return-value]  # get(): not None when tested


def grounded_items(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Factcheck-GPT's source-grounded view: a sentence is supported iff every claim in it is supported by
    the retrieved passages given as sources (grounded_in_sources); its own `label` is real-world truth."""
    claims = [c for c in record["labels"] if c["level"] == "claim" and "grounded_in_sources" in c]
    if not claims:
        return []
    out = []
    for s in (x for x in record["labels"] if x["level"] == "sentence"):
        mine = [c for c in claims if c.get("sentence_index") == s["index"]]
        if mine:
            y = int(all(c["grounded_in_sources"] == "supported" for c in mine))
            out.append(
                {
                    **s,
                    "label": "supported" if y else "unsupported",
                    "y": y,
                    "error_types": sorted({c["grounded_in_sources"] for c in mine} - {"supported"}),
                }
            )
    return out


def pack_state(state: npt.ArrayLike) -> str:
    """A hidden state as compact text for the JSONL cache: float16, base64."""
    return base64.b64encode(np.asarray(state, dtype="<f2").tobytes()).decode("ascii")


def unpack_state(text: str | bytes) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f2").astype(np.float32)
