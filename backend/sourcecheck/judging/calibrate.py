"""`sourcecheck calibrate`: fit the configured judge's own scale on the calibration set shipped with the package.

The set (calibration_set.jsonl.gz, its licences in calibration_set.md) holds labelled sentences of chat answers about
abstracts and about full papers and of public benchmark sets, each with the evidence the product chose for it, so
calibrating runs only the judge: each answer's sentences are scored in order over one shared evidence block, as a
check scores them (evidence.EvidenceBlock), and calibration.fit places the judge's Platt map and bands; then the
sentences inside a band are read a second time, each evidence item on its own (judge.alone), and calibration.fit_second
places the second read's scale and bands.
"""

from __future__ import annotations

import functools
import gzip
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from sourcecheck.errors import SourcecheckError
from sourcecheck.evidence import Evidence, EvidenceBlock
from sourcecheck.judging.calibration import fit, fit_second, platt, prompt_id, rereads

if TYPE_CHECKING:
    from sourcecheck.judging.judge import Judge


@dataclass
class Progress:
    """What a running calibration has done: the API's and the side panel's status."""

    state: str = "idle"  # idle | running | done | failed | cancelled
    done: int = 0
    total: int = 0
    eta_s: float | None = None
    error: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Cancelled(SourcecheckError):
    def __init__(self) -> None:
        super().__init__(
            "The calibration was cancelled; the judge keeps the scale it had.", code="cancelled", status=409
        )


@functools.cache
def calibration_size(limit: int | None = None) -> int:
    """How many sentences a calibration with this limit reads."""
    return sum(len(r["sentences"]) for r in answers(limit))


def answers(limit: int | None = None) -> list[dict[str, Any]]:
    """The shipped calibration set: one answer a line, {"kind", "sentences": [{"claim", "y", "evidence"}]};
    limit: at most this many answers of each kind (a quicker, coarser calibration)."""
    raw = resources.files("sourcecheck").joinpath("calibration_set.jsonl.gz").read_bytes()
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("utf-8").splitlines() if line.strip()]
    if limit is None:
        return rows
    taken: dict[str, int] = {}
    out = []
    for row in rows:
        if taken.get(row["kind"], 0) < limit:
            taken[row["kind"]] = taken.get(row["kind"], 0) + 1
            out.append(row)
    return out


def scores(judge: Judge, rows: list[dict[str, Any]]) -> Iterator[tuple[float, int, str, str, list[Evidence]]]:
    """(raw P(Yes), label, kind, claim, evidence) of every sentence, each answer's sentences over one growing evidence
    block, each showing what a check's prompt would (Judge.show)."""
    for row in rows:
        block = EvidenceBlock()
        for s in row["sentences"]:
            evidence = [
                Evidence(e["filename"], e["filename"], e["page"], e["quote"], e["passage"], e.get("relevance", 0.0))
                for e in s["evidence"]
            ]
            try:
                p = judge.raw(s["claim"], evidence, judge.show(s["claim"], evidence, block))
            except SourcecheckError as e:
                if e.code != "prompt_too_long":
                    raise
                # a judge with a small context: this sentence over its own evidence, and the block starts over
                block = EvidenceBlock()
                p = judge.raw(s["claim"], evidence, judge.show(s["claim"], evidence, block))
            yield p, int(s["y"]), row["kind"], s["claim"], evidence


def calibrate(
    judge: Judge,
    limit: int | None = None,
    progress: Callable[[Progress], object] = lambda p: None,
    cancelled: Callable[[], bool] = lambda: False,
    rows: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The judge's calibration (calibration.fit over the shipped set, or rows in its form), named by the judge;
    progress is called after each sentence with what is done and the time left; raises Cancelled when cancelled()
    turns true."""
    rows = answers(limit) if rows is None else rows
    status = Progress("running", 0, sum(len(r["sentences"]) for r in rows))
    progress(status)
    started = time.monotonic()
    found = []
    for item in scores(judge, rows):
        if cancelled():
            raise Cancelled()
        found.append(item)
        status.done = len(found)
        status.eta_s = round((time.monotonic() - started) / status.done * (status.total - status.done), 1)
        progress(status)
    p_raw, y, kinds, claims, evidence = zip(*found)
    fitted = fit(p_raw, y, kinds)
    # the second read: the sentences some band leaves unsure, each item on its own
    again = np.flatnonzero(rereads(np.array([platt(p, fitted["a"], fitted["b"]) for p in p_raw]), fitted["bands"]))
    status.total += len(again)
    alone = np.full(len(found), np.nan)
    for i in again:
        if cancelled():
            raise Cancelled()
        alone[i] = max(judge.alone(claims[i], evidence[i]), default=np.nan)
        status.done += 1
        status.eta_s = round((time.monotonic() - started) / status.done * (status.total - status.done), 1)
        progress(status)
    second = fit_second(p_raw, alone, y, kinds, fitted)
    return {
        "judge": judge.model.judge_id(),
        "prompt": prompt_id(judge.profile),
        **fitted,
        **({"second": second} if second else {}),
        "fitted_on": f"sourcecheck calibrate: {len(found)} sentences of the shipped calibration set "
        f"({', '.join(fitted['kinds'])}; each kind weighing the same)",
        "seconds": round(time.monotonic() - started, 1),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
