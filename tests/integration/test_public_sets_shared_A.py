"""sourcecheck_eval.public (sets of person A) against the private benchmarks folder: the source files rebuilt from each
set's raw/ (the original records of the dev portion, in the original layout) convert to exactly the shared dev.jsonl.

The folder is named by SOURCECHECK_BENCHMARKS (docs/development.md); skipped without it: that folder is what the
converters reproduce.
"""

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from sourcecheck_eval.public import factcheck_gpt, lfqa_verification, tofueval, wice

pytestmark = pytest.mark.integration

SHARED = Path(os.environ.get("SOURCECHECK_BENCHMARKS") or "/nonexistent")  # a copy of the benchmarks folder
if not SHARED.is_dir():
    pytest.skip("no SOURCECHECK_BENCHMARKS folder: nothing to compare the converters with", allow_module_level=True)


def rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def expected(name):
    return rows(SHARED / name / "dev.jsonl")


def lines(records):
    return [json.dumps(r, ensure_ascii=False) for r in records]


def assert_same(got, name):
    want = expected(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w, g["id"]
    # byte-identical lines, as fetch() writes them
    assert lines(got) == (SHARED / name / "dev.jsonl").read_text(encoding="utf-8").splitlines()


def test_lfqa_verification_matches_the_shared_dev_set(tmp_path):
    raw = SHARED / "lfqa_verification" / "raw"
    # The originals are JSON arrays (indent 4); raw/ holds their dev entries one per line, in file order.
    for path in lfqa_verification.FILES[lfqa_verification.REPO]:
        name = path.rsplit("/", 1)[1].removesuffix(".json")
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(rows(raw / f"{name}.dev.jsonl"), indent=4), encoding="utf-8")
    assert_same(lfqa_verification.convert({lfqa_verification.REPO: tmp_path}), "lfqa_verification")


def write_csv(path, header, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)


def test_tofueval_matches_the_shared_dev_set(tmp_path):
    raw = SHARED / "tofueval" / "raw"
    annotations, transcripts = tmp_path / "tofueval", tmp_path / "transcripts"
    header = ["doc_id", "annotation_id", "topic", "model_name", "sent_idx", "summ_sent", "sent_label", "exp", "type"]
    dev = {}
    for corpus in tofueval.CORPORA:
        corpus_rows = rows(raw / f"tofueval_{corpus}_dev.dev.jsonl")
        write_csv(annotations / f"factual_consistency/{corpus}_factual_eval_dev.csv", header, corpus_rows)
        dev[corpus] = list(dict.fromkeys(row["doc_id"] for row in corpus_rows))
    assert [len(ids) for ids in dev.values()] == [35, 35]
    # the real split file also lists the 15 + 15 test documents, which no dev row names
    (annotations / tofueval.SPLIT).write_text(json.dumps({"dev": dev, "test": {"mediasum": [], "meetingbank": []}}))
    write_csv(transcripts / tofueval.TRANSCRIPTS, ["meeting_id", "source"], rows(raw / "meetingbank_dev_doc.dev.jsonl"))
    got = tofueval.convert({tofueval.REPO: annotations, tofueval.TRANSCRIPTS_REPO: transcripts})
    assert_same(got, "tofueval")


def test_wice_matches_the_shared_dev_set(tmp_path):
    # raw/dev.jsonl is a byte-identical copy of data/entailment_retrieval/claim/dev.jsonl
    (tmp_path / wice.DEV).parent.mkdir(parents=True)
    shutil.copyfile(SHARED / "wice" / "raw" / "dev.jsonl", tmp_path / wice.DEV)
    assert_same(wice.convert({wice.REPO: tmp_path}), "wice")


def placeholder(n):
    """A synthetic line that the selection rule holds out, standing in for a held-out response at line n."""
    k = 0
    while not factcheck_gpt.held_out(f"placeholder {n}.{k}"):
        k += 1
    return {"prompt": f"placeholder {n}.{k}", "response": "", "sentences": {}}


def test_factcheck_gpt_matches_the_shared_dev_set(tmp_path):
    dev = rows(SHARED / "factcheck_gpt" / "raw" / "factcheck_gpt.dev.jsonl")
    # ids are line numbers in the original file: put each dev response back on its line, a held-out stand-in between
    numbers = [int(r["id"].rsplit("-", 1)[1]) for r in expected("factcheck_gpt")]
    by_line = dict(zip(numbers, dev))
    lines_out = [by_line.get(n) or placeholder(n) for n in range(max(numbers) + 1)]
    (tmp_path / factcheck_gpt.BENCHMARK).write_text(
        "".join(json.dumps(item, separators=(",", ":")) + "\n" for item in lines_out), encoding="utf-8"
    )
    assert_same(factcheck_gpt.convert({factcheck_gpt.REPO: tmp_path}), "factcheck_gpt")
