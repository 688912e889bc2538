"""sourcecheck_eval.public against the shared benchmark folder: a stand-in of each source repo, rebuilt in its original
layout from the folder's raw/ dev records (plus a synthetic held-out record), converts to exactly the shared
dev.jsonl."""

import json
import os
from pathlib import Path

import pytest
from sourcecheck_eval.public import faithbench, halueval_summarization, summedits

pytestmark = pytest.mark.integration

SHARED = Path(os.environ.get("SOURCECHECK_BENCHMARKS") or "/nonexistent")  # a copy of the benchmarks folder
if not SHARED.exists():
    pytest.skip("no SOURCECHECK_BENCHMARKS folder: nothing to compare the converters with", allow_module_level=True)

HELD_OUT = "SYNTHETIC HELD-OUT RECORD"


def raw(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def assert_matches(name, records):
    """Equal records, and byte-identical lines as fetch() writes them."""
    text = (SHARED / name / "dev.jsonl").read_text(encoding="utf-8")
    assert records == raw(SHARED / name / "dev.jsonl")
    assert "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records) == text
    assert HELD_OUT not in json.dumps(records)


def test_summedits_matches_the_shared_dev_portion(tmp_path):
    for domain, path in zip(summedits.DOMAINS, summedits.FILES[summedits.REPO]):
        items = raw(SHARED / "summedits" / "raw" / f"summedits_{domain}.dev.jsonl")
        test_item = {**items[0], "id": f"{domain}_heldout_0", "summary": HELD_OUT, "split": "test"}
        write(tmp_path / path, json.dumps([test_item, *items], indent=2))  # the repo's files are indented arrays
    records = summedits.convert({summedits.REPO: tmp_path})
    assert len(records) == 986
    assert_matches("summedits", records)


def test_faithbench_matches_the_shared_dev_portion(tmp_path):
    samples = raw(SHARED / "faithbench" / "raw" / "faithbench_samples.dev.jsonl")
    # a source whose hash puts it in the held-out fifth (see tests/unit/test_public_sets_B.py)
    source = "The Solen river is 111 km long and flows into the Gray Sea ."
    held_out = {**samples[0], "source": source, "summary": HELD_OUT}
    assert faithbench.held_out(held_out["source"])
    for batch, path in zip(faithbench.BATCHES, faithbench.FILES[faithbench.REPO]):
        kept = [{k: v for k, v in s.items() if k != "batch"} for s in [held_out, *samples] if s["batch"] == batch]
        write(tmp_path / path, json.dumps({"samples": kept}, indent=2))
    records = faithbench.convert({faithbench.REPO: tmp_path})
    assert len(records) == 610
    assert_matches("faithbench", records)


def test_halueval_summarization_matches_the_shared_dev_portion(tmp_path):
    first20 = SHARED / "halueval_summarization" / "raw" / "summarization_data.first20.jsonl"
    record21 = {"document": "d", "right_summary": HELD_OUT, "hallucinated_summary": HELD_OUT}
    # the real file goes on for 9,980 more lines; one more record stands in for them
    write(tmp_path / halueval_summarization.PATH, first20.read_text(encoding="utf-8") + json.dumps(record21) + "\n")
    records = halueval_summarization.convert({halueval_summarization.REPO: tmp_path})
    assert len(records) == 40
    assert_matches("halueval_summarization", records)
