"""sourcecheck_eval.public: SummEdits, FaithBench and HaluEval summarization, fetched from a local git repo holding a
synthetic fixture in each source's original layout; only the development records come out."""

import json
import subprocess

import pytest
from sourcecheck_eval import public
from sourcecheck_eval.public import faithbench, halueval_summarization, summedits


def commit(repo, files):
    """A git repo at `repo` with `files` (path -> text) in one commit; returns the commit hash."""
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def fetch(tmp_path, monkeypatch, module, name, files):
    """Runs public.fetch for one set against the fixture repo pinned at its commit; returns dev.jsonl's records."""
    (repo_info,) = module.REPOS
    sha = commit(tmp_path / "repo", files)
    monkeypatch.setattr(module, "REPOS", [{**repo_info, "commit": sha}])
    out = tmp_path / "out"
    written = public.fetch(out, sets=[name], sources={repo_info["repo"]: str(tmp_path / "repo")}, log=lambda *a: None)
    assert written[name] == out / name / "dev.jsonl"
    assert (out / name / "SOURCE.md").exists()
    text = (out / name / "dev.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    assert text == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return records


# -- SummEdits -----------------------------------------------------------------------------------------------------


def edit(id_, label, split, summary, edit_types=()):
    return {
        "id": id_,
        "doc": "Ana: the shipment leaves Tuesday.\nBo: and the invoice goes out on Friday.",
        "summary": summary,
        "label": label,
        "original_summary": "The shipment leaves Tuesday; the invoice goes out Friday.",
        "edit_types": list(edit_types),
        "split": split,
    }


def test_summedits_keeps_the_evaluation_split_in_domain_order(tmp_path, monkeypatch):
    files = {path: "[]" for path in summedits.FILES[summedits.REPO]}
    files["data/summedits/summedits_news.json"] = json.dumps(
        [
            edit("n1_og", 1, "evaluation", "The shipment leaves Tuesday; the invoice goes out Friday."),
            edit("n1_0", 0, "evaluation", "The shipment leaves Monday.", ["entity_modification"]),
            edit("n2_0", 0, "test", "HELD OUT summary.", ["antonym_swap"]),
        ],
        indent=2,
    )
    files["data/summedits/summedits_ectsum.json"] = json.dumps(
        [edit("e1_1", 1, "evaluation", "The invoice goes out on Friday – café.")], indent=2
    )
    records = fetch(tmp_path, monkeypatch, summedits, "summedits", files)
    assert [r["id"] for r in records] == ["summedits-ectsum-e1_1", "summedits-news-n1_og", "summedits-news-n1_0"]
    assert "HELD OUT summary." not in {r["text"] for r in records}
    assert records[2] == {
        "id": "summedits-news-n1_0",
        "dataset": "summedits",
        "task": "summarization",
        "sources": ["Ana: the shipment leaves Tuesday.\nBo: and the invoice goes out on Friday."],
        "text": "The shipment leaves Monday.",
        "labels": [
            {"level": "response", "label": "unsupported", "raw_label": 0, "error_types": ["entity_modification"]}
        ],
        "spans": [],
        "meta": {
            "domain": "news",
            "orig_id": "n1_0",
            "official_split": "evaluation",
            "original_summary": "The shipment leaves Tuesday; the invoice goes out Friday.",
        },
    }
    assert [r["labels"][0]["label"] for r in records] == ["supported", "supported", "unsupported"]
    assert records[0]["text"] == "The invoice goes out on Friday – café."


def test_summedits_refuses_items_without_a_split(tmp_path):
    for path in summedits.FILES[summedits.REPO]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        item = {k: v for k, v in edit("x_og", 1, "evaluation", "s").items() if k != "split"}
        (tmp_path / path).write_text(json.dumps([item]), encoding="utf-8")
    with pytest.raises(SystemExit, match="split"):
        summedits.convert({summedits.REPO: tmp_path})


# -- FaithBench ----------------------------------------------------------------------------------------------------

# sha256("faithbench|" + source)[:8] % 5: 4, 3 and 1 stay in dev; 0 is held out.
BRIDGE = "The Brightwater bridge opened in 1931 and carries two lanes of traffic ."
TOWN = "The town of Halden Cross has a population of 4,200 and a weekly market ."
RIVER = "The Solen river is 140 km long and flows into the Gray Sea ."
HELD_OUT = "The Solen river is 111 km long and flows into the Gray Sea ."


def sample(sample_id, source, summary, *marks):
    """A batch-file sample; each mark is (labels, the marked summary text, the source text it points at or None)."""
    annotations = []
    for n, (labels, marked, source_span) in enumerate(marks):
        start = summary.index(marked)
        annotations.append(
            {
                "annot_id": n,
                "annotator_id": "ann1",
                "annotator_name": "A",
                "label": labels,
                "note": "why",
                "summary_span": marked,
                "summary_start": start,
                "summary_end": start + len(marked),
                "source_span": source_span,
                "source_start": source.index(source_span) if source_span else None,
                "source_end": source.index(source_span) + len(source_span) if source_span else None,
            }
        )
    metadata = {"summarizer": "m", "hhemv1": 0.5, "gpt_4o": 1, "raw_sample_id": 100 + sample_id}
    return {
        "sample_id": sample_id,
        "source": source,
        "summary": summary,
        "annotations": annotations,
        "metadata": metadata,
    }


def test_faithbench_holds_out_by_source_hash_and_takes_the_worst_label(tmp_path, monkeypatch):
    bad = " The bridge opened in 1932 with four lanes."
    batch_1 = [
        sample(0, BRIDGE, bad, (["Benign"], "four lanes", None), (["Unwanted", "Unwanted.Intrinsic"], "1932", "1931")),
        sample(1, BRIDGE, "The bridge opened in 1931."),
        sample(2, HELD_OUT, "HELD OUT: the river is long.", (["Benign"], "HELD", None)),
    ]
    batch_14 = [
        sample(0, TOWN, "Halden Cross is a busy town.", (["Questionable"], "busy", None)),
        sample(1, TOWN, "Halden Cross has a market.", (["Benign"], "market", None)),
        sample(2, RIVER, "The Solen is 150 km long.", (["Benign", "Unwanted.Extrinsic"], "150 km", "140 km")),
    ]
    files = {path: json.dumps({"samples": []}, indent=2) for path in faithbench.FILES[faithbench.REPO]}
    files["data_for_release/batch_1.json"] = json.dumps({"samples": batch_1}, indent=2)
    files["data_for_release/batch_14.json"] = json.dumps({"samples": batch_14}, indent=2)
    records = fetch(tmp_path, monkeypatch, faithbench, "faithbench", files)
    assert [r["id"] for r in records] == [
        "faithbench-b1-s0",
        "faithbench-b1-s1",
        "faithbench-b14-s0",
        "faithbench-b14-s1",
        "faithbench-b14-s2",
    ]
    assert HELD_OUT not in {s for r in records for s in r["sources"]}
    labels = [(r["labels"][0]["label"], r["labels"][0]["binary"]) for r in records]
    assert labels == [
        ("unsupported", "unsupported"),
        ("supported", "supported"),
        ("questionable", None),
        ("benign", "supported"),
        ("unsupported", "unsupported"),  # Unwanted.Extrinsic without plain "Unwanted" is still unwanted
    ]
    first = records[0]
    assert first["labels"][0] == {
        "level": "response",
        "label": "unsupported",
        "raw_label": "unsupported",
        "binary": "unsupported",
        "error_types": ["Benign", "Unwanted", "Unwanted.Intrinsic"],
    }
    assert first["spans"] == [
        {"start": 32, "end": 42, "text": "four lanes", "type": "Benign", "note": "why", "annotator": "ann1",
         "source_span": None, "source_start": None, "source_end": None},
        {"start": 22, "end": 26, "text": "1932", "type": "Unwanted|Unwanted.Intrinsic", "note": "why",
         "annotator": "ann1", "source_span": "1931", "source_start": 33, "source_end": 37},
    ]  # fmt: skip
    assert all(r["text"][s["start"] : s["end"]] == s["text"] for r in records for s in r["spans"])
    meta = {"batch": 1, "sample_id": 0, "summarizer": "m", "hhemv1": 0.5, "gpt_4o": 1, "raw_sample_id": 100}
    assert first["meta"] == meta
    assert records[1]["spans"] == [] and records[1]["labels"][0]["error_types"] == []


def test_faithbench_selection_rule_is_the_readmes():
    assert [faithbench.held_out(s) for s in (BRIDGE, TOWN, RIVER, HELD_OUT)] == [False, False, False, True]


# -- HaluEval summarization ----------------------------------------------------------------------------------------


def test_halueval_reads_only_the_first_twenty_lines(tmp_path, monkeypatch):
    lines = [
        json.dumps(
            {
                "document": f"Article {i}: the council approved the plan.\n",
                "right_summary": f"Council approves plan {i}.\n",
                "hallucinated_summary": f"Council rejects plan {i}.",
            }
        )
        for i in range(21)
    ]
    # Line 21 is a real record that must not come out; line 22 is not JSON: reading it would fail.
    text = "\n".join(lines) + "\nnot json {\n"
    files = {halueval_summarization.PATH: text}
    records = fetch(tmp_path, monkeypatch, halueval_summarization, "halueval_summarization", files)
    assert len(records) == 40
    assert [r["id"] for r in records[:2]] == ["halueval_sum-0-right", "halueval_sum-0-hallucinated"]
    assert records[-1]["id"] == "halueval_sum-19-hallucinated"
    assert "Council approves plan 20." not in {r["text"] for r in records}
    assert records[38] == {
        "id": "halueval_sum-19-right",
        "dataset": "halueval_summarization",
        "task": "summarization",
        "sources": ["Article 19: the council approved the plan.\n"],
        "text": "Council approves plan 19.",
        "labels": [{"level": "response", "label": "supported", "raw_label": "right", "error_types": []}],
        "spans": [],
        "meta": {"pair_index": 19, "variant": "right", "label_semantics": halueval_summarization.SEMANTICS},
    }
    assert records[39]["labels"][0]["label"] == "unsupported" and records[39]["text"] == "Council rejects plan 19."


def test_halueval_fails_clearly_when_the_file_is_short(tmp_path):
    path = tmp_path / halueval_summarization.PATH
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"document": "d", "right_summary": "r", "hallucinated_summary": "h"}) + "\n")
    with pytest.raises(SystemExit, match="expected 20"):
        halueval_summarization.convert({halueval_summarization.REPO: tmp_path})
