"""sourcecheck_eval.public (sets of person A): synthetic source files in the original layouts, committed to local git
repositories and fetched at that commit; the exact dev records come out and the held-out records do not."""

import hashlib
import json
import subprocess
import sys

import pytest
from sourcecheck_eval import public
from sourcecheck_eval.public import __main__ as cli
from sourcecheck_eval.public import factcheck_gpt, git, lfqa_verification, tofueval, wice


def commit(folder, files):
    """Write files into a new git repository at folder and commit them; return (folder, commit hash)."""
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    run = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "--quiet", str(folder)], check=True)
    subprocess.run([*run, "add", "--all"], check=True)
    subprocess.run([*run, "commit", "--quiet", "--message", "data"], check=True)
    return folder, subprocess.run(
        [*run, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def fetch(tmp_path, monkeypatch, mod, repos):
    """fetch() one set from local repositories: repos maps OWNER/REPO -> files; each is pinned at its own commit."""
    sources, pinned = {}, []
    for spec in mod.REPOS:
        folder, sha = commit(tmp_path / spec["repo"].replace("/", "_"), repos[spec["repo"]])
        sources[spec["repo"]] = str(folder)
        pinned.append({**spec, "commit": sha})
    monkeypatch.setattr(mod, "REPOS", pinned)
    name = mod.__name__.rsplit(".", 1)[1]
    paths = public.fetch(tmp_path / "out", [name], sources, log=lambda message: None)
    assert paths == {name: tmp_path / "out" / name / "dev.jsonl"}
    # only the development portion stays: no checkout (whole files, held-out records and all) is left behind
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == [
        name,
        f"{name}/SOURCE.md",
        f"{name}/dev.jsonl",
    ]
    return [json.loads(line) for line in paths[name].read_text(encoding="utf-8").splitlines()]


def jsonl(items):
    return "".join(json.dumps(item) + "\n" for item in items)


def test_lfqa_keeps_the_dev_questions_with_majority_labels_and_unsupported_sentences_as_spans(tmp_path, monkeypatch):
    sentences = [
        (" Water boils at 100 C at sea level.", ["supported", "supported", "partially"]),
        ("It boils faster on mountains.", ["not_supported", "not_supported", "supported"]),
        ("Salt raises the boiling point.", ["partially", "partially", "not_supported"]),
        ("Pressure matters too.", ["supported", "partially", "not_supported"]),
    ]
    q3 = {
        "question_id": 3,
        "question": "When does water boil?",
        "answers": [s for s, _ in sentences] + ["An unannotated sentence."],
        "annotations": [{"labels": v, "answer": s} for s, v in sentences],
    }
    q5 = {**q3, "question_id": 5, "question": "A held-out question?"}  # sha256("lfqa|5") is in the held-out fifth
    q3_gpt3 = {**q3, "annotations": [{"labels": ["supported", "supported", "not_supported"], "answer": "Yes."}]}
    docs = [
        {
            "question_id": 5,
            "question": "A held-out question?",
            "docs": [{"doc_id": "webgpt:9", "title": "T", "text": "x"}],
        },
        {
            "question_id": 3,
            "question": "When does water boil?",
            "docs": [
                {"doc_id": "webgpt:1", "title": "Boiling (a.org)", "text": "Water boils at 100 C."},
                {"doc_id": "webgpt:2", "title": "Salt (b.org)", "text": "Salt barely matters."},
            ],
        },
    ]
    arrays = {system: [] for system in lfqa_verification.SYSTEMS} | {"webgpt": [q5, q3], "gpt3": [q3_gpt3, q5]}
    files = {f"data/annotations/annotations-{s}.json": json.dumps(a, indent=4) for s, a in arrays.items()}
    files["data/docs/docs-webgpt.json"] = json.dumps(docs, indent=4)
    records = fetch(tmp_path, monkeypatch, lfqa_verification, {lfqa_verification.REPO: files})

    assert [r["id"] for r in records] == ["lfqa-webgpt-3", "lfqa-gpt3-3"]
    text = " ".join(s.strip() for s, _ in sentences)
    assert records[0] == {
        "id": "lfqa-webgpt-3",
        "dataset": "lfqa_verification",
        "task": "lfqa",
        "sources": ["Boiling (a.org)\nWater boils at 100 C.", "Salt (b.org)\nSalt barely matters."],
        "text": text,
        "labels": [
            {"level": "response", "label": "unsupported", "raw_label": None, "error_types": []},
            *(
                {"level": "sentence", "index": i, "text": s.strip(), "label": label, "raw_label": v, "error_types": []}
                for i, ((s, v), label) in enumerate(
                    zip(sentences, ["supported", "unsupported", "partially_supported", "unknown"])
                )
            ),
        ],
        "spans": [
            {"start": 35, "end": 64, "text": "It boils faster on mountains.", "type": "unsupported"},
            {"start": 65, "end": 95, "text": "Salt raises the boiling point.", "type": "partially_supported"},
        ],
        "meta": {
            "question_id": 3,
            "question": "When does water boil?",
            "system": "webgpt",
            "doc_ids": ["webgpt:1", "webgpt:2"],
            "sources_note": lfqa_verification.SOURCES_NOTE,
            "n_sentences_in_answers_field": 5,
        },
    }
    assert all(text[s["start"] : s["end"]] == s["text"] for s in records[0]["spans"])
    assert records[1]["text"] == "Yes."
    assert [(x["label"], x["raw_label"]) for x in records[1]["labels"]] == [
        ("supported", None),
        ("supported", ["supported", "supported", "not_supported"]),
    ]
    assert records[1]["spans"] == []


TOFU_HEADER = "doc_id,annotation_id,topic,model_name,sent_idx,summ_sent,sent_label,exp,type\n"


def test_tofueval_keeps_the_dev_documents_groups_sentences_and_pairs_meetingbank_transcripts(tmp_path, monkeypatch):
    split = {
        "dev": {"mediasum": ["NPR-1"], "meetingbank": ["CityCC_1"]},
        "test": {"mediasum": ["CNN-9"], "meetingbank": []},
    }
    annotations = {
        "document_ids_dev_test_split.json": json.dumps(split, indent=4),
        "factual_consistency/mediasum_factual_eval_dev.csv": TOFU_HEADER
        + 'NPR-1,1,Budget talks,model_A,2,"Second, with a comma.",no,"Says ""never"".",'
        + '"Mis-Referencing, Extrinsic Information"\n'
        + "NPR-1,1,Budget talks,model_A,1,First sentence.,yes,,\n"
        + "CNN-9,2,Held-out topic,model_A,1,A test document's summary.,no,Wrong.,Contradiction\n"
        + "NPR-1,1,Budget talks,model_B,1,Only sentence.,yes,,\n",
        "factual_consistency/meetingbank_factual_eval_dev.csv": TOFU_HEADER
        + "CityCC_1,100,Parking fees,Model-Extra,1,The council raised parking fees.,yes,,\n"
        + "CityCC_1,100,Parking fees,Model-Extra,2,The vote was unanimous.,no,Nobody counted.,Extrinsic Information\n",
        "factual_consistency/mediasum_factual_eval_test.csv": TOFU_HEADER + "CNN-9,2,Test,model_A,1,Test.,yes,,\n",
    }
    transcripts = {
        "TofuEval Files/meetingbank_dev_doc.csv": "meeting_id,source\n"
        + 'CityCC_1,"Speaker 1: Fees rise, ""today"".\nSpeaker 2: Aye."\n',
        "TofuEval Files/meetingbank_test_doc.csv": "meeting_id,source\nCityCC_9,Speaker 1: A test meeting.\n",
    }
    repos = {tofueval.REPO: annotations, tofueval.TRANSCRIPTS_REPO: transcripts}
    records = fetch(tmp_path, monkeypatch, tofueval, repos)

    def topic_hash(topic):
        return hashlib.sha1(topic.encode()).hexdigest()[:8]

    assert [r["id"] for r in records] == [
        f"tofueval-mediasum-NPR-1-1-model_A-{topic_hash('Budget talks')}",
        f"tofueval-mediasum-NPR-1-1-model_B-{topic_hash('Budget talks')}",
        f"tofueval-meetingbank-CityCC_1-100-Model-Extra-{topic_hash('Parking fees')}",
    ]
    a, b, m = records
    assert a["text"] == "First sentence. Second, with a comma."  # in sent_idx order, not file order
    assert a["sources"] == [] and a["meta"]["sources_missing"] is True and "topic_instruction" not in a["meta"]
    assert [(x["level"], x.get("index"), x.get("text"), x["label"], x["raw_label"]) for x in a["labels"]] == [
        ("response", None, None, "unsupported", None),
        ("sentence", 0, "First sentence.", "supported", "yes"),
        ("sentence", 1, "Second, with a comma.", "unsupported", "no"),
    ]
    assert [(x["error_types"], x.get("explanation")) for x in a["labels"]] == [
        ([], None),
        ([], None),
        (["Mis-Referencing", "Extrinsic Information"], 'Says "never".'),
    ]
    assert a["spans"] == [
        {"start": 16, "end": 37, "text": "Second, with a comma.", "type": "Mis-Referencing|Extrinsic Information"}
    ]
    assert b["text"] == "Only sentence." and b["labels"][0]["label"] == "supported" and b["spans"] == []
    assert m["sources"] == ['Speaker 1: Fees rise, "today".\nSpeaker 2: Aye.']
    assert m["meta"] == dict(
        corpus="meetingbank",
        doc_id="CityCC_1",
        annotation_id="100",
        topic="Parking fees",
        model_name="Model-Extra",
        sources_missing=False,
        sources_note=tofueval.NOTES["meetingbank"],
        topic_instruction="Parking fees",
    )
    assert [x["label"] for x in m["labels"]] == ["unsupported", "supported", "unsupported"]
    assert m["spans"] == [{"start": 33, "end": 56, "text": "The vote was unanimous.", "type": "Extrinsic Information"}]


def claim(cid, context="Article"):
    return {"id": cid, "claim_title": context, "claim_section": "History.", "claim_context": f"{context} context."}


def test_wice_converts_the_dev_file_only(tmp_path, monkeypatch):
    def item(cid, label):
        return {
            "label": label,
            "supporting_sentences": [[0, 1]] if label != "not_supported" else [],
            "claim": f"Claim {cid}.",
            "evidence": ["(meta data) TITLE: Page", "First line.", "Second line."],
            "meta": claim(cid),
        }

    labels = ["supported", "partially_supported", "not_supported"]
    files = {
        "data/entailment_retrieval/claim/dev.jsonl": jsonl(item(f"dev0{i}", label) for i, label in enumerate(labels)),
        "data/entailment_retrieval/claim/test.jsonl": jsonl([item("test01", "supported")]),
    }
    records = fetch(tmp_path, monkeypatch, wice, {wice.REPO: files})
    assert [r["id"] for r in records] == ["wice-dev00", "wice-dev01", "wice-dev02"]
    assert [(r["labels"][0]["label"], r["labels"][0]["raw_label"]) for r in records] == [
        ("supported", "supported"),
        ("partially_supported", "partially_supported"),
        ("unsupported", "not_supported"),
    ]
    assert records[0]["sources"] == ["(meta data) TITLE: Page\nFirst line.\nSecond line."]
    assert records[0]["labels"][0] == dict(
        level="claim", index=0, text="Claim dev00.", label="supported", raw_label="supported", error_types=[]
    )
    assert records[0]["meta"] == dict(
        wice_id="dev00",
        claim_title="Article",
        claim_section="History.",
        claim_context="Article context.",
        supporting_sentences=[[0, 1]],
        sources_format=wice.SOURCES_FORMAT,
    )
    assert records[2]["spans"] == [] and records[2]["text"] == "Claim dev02."
    source = (tmp_path / "out" / "wice" / "SOURCE.md").read_text()
    assert "ryokamoi/wice" in source and wice.REPOS[0]["commit"] in source and "CC BY-SA 4.0" in source
    assert "test split" in source


def response(prompt, factual, sentences):
    return {
        "prompt": prompt,
        "response": " ".join(s["text"] for s in sentences),
        "revised_response": "Revised.",
        "response_factuality": factual,
        "sentences": {f"sentence{i + 1}": s for i, s in enumerate(sentences)},
    }


def sentence(text, factual, claims):
    """claims: (claim text, factuality, [stance per passage], [passages], evidence enough yes/no)."""
    return {
        "text": text,
        "sentence_factuality_label": factual,
        "sentence_checkworthiness": "yes",
        "claims": [c[0] for c in claims],
        "claims_factuality_label": [c[1] for c in claims],
        "stance_claim_autoEvid": [c[2] for c in claims],
        "auto_evidence": [c[3] for c in claims],
        "if_automatic_evidence_enough_to_verify": [c[4] for c in claims],
        "claim_checkworthiness": ["factual"] * len(claims),
    }


def test_factcheck_gpt_holds_out_by_prompt_hash_and_derives_grounded_labels(tmp_path, monkeypatch):
    p1, p2 = "Fleming found it.", "It was 1928."
    first = response(
        "Who discovered penicillin?",
        False,
        [
            sentence(
                "Fleming found penicillin.",
                True,
                [("Fleming found penicillin.", True, ["refute", "completely-support"], [p1, p2], "yes")],
            ),
            sentence(
                "He did it in 1930.",
                False,
                [
                    ("It was 1930.", False, ["partially-support", "refute"], [p2, p1], "no"),
                    ("He did it.", "unknown", ["irrelevant"], [p2], "no"),
                ],
            ),
            sentence("I like him.", "NA", []),
        ],
    )
    held = response("Who was the first person to walk on the moon?", True, [sentence("Armstrong.", True, [])])
    last = response(
        "Which ocean is the largest?",
        "NA",
        [sentence("The Pacific.", True, [("The Pacific.", True, ["partially-support", "irrelevant"], [p1, p2], "no")])],
    )
    files = {factcheck_gpt.BENCHMARK: "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in (first, held, last))}
    records = fetch(tmp_path, monkeypatch, factcheck_gpt, {factcheck_gpt.REPO: files})

    assert [r["id"] for r in records] == ["factcheck_gpt-0", "factcheck_gpt-2"]  # line numbers in the file
    r = records[0]
    assert r["sources"] == [p1, p2] and r["text"] == "Fleming found penicillin. He did it in 1930. I like him."
    assert r["meta"] == {
        "prompt": "Who discovered penicillin?",
        "revised_response": "Revised.",
        "label_semantics": factcheck_gpt.LABEL_SEMANTICS,
    }
    got = [(x["level"], x.get("index"), x.get("text"), x["label"], x["raw_label"]) for x in r["labels"]]
    assert got == [
        ("response", None, None, "unsupported", False),
        ("sentence", 0, "Fleming found penicillin.", "supported", True),
        ("sentence", 1, "He did it in 1930.", "unsupported", False),
        ("sentence", 2, "I like him.", "unknown", "NA"),
        ("claim", 0, "Fleming found penicillin.", "supported", True),
        ("claim", 1, "It was 1930.", "unsupported", False),
        ("claim", 2, "He did it.", "unknown", "unknown"),
    ]
    assert r["labels"][5] == dict(
        level="claim",
        index=1,
        text="It was 1930.",
        sentence_index=1,
        label="unsupported",
        raw_label=False,
        grounded_in_sources="contradicted",
        evidence_stances=["partially-support", "refute"],
        evidence_sufficient="no",
        checkworthiness="factual",
        error_types=[],
    )
    assert [x["grounded_in_sources"] for x in r["labels"][4:]] == ["supported", "contradicted", "not_enough_evidence"]
    assert records[1]["labels"][0]["label"] == "unknown"
    assert records[1]["labels"][-1]["grounded_in_sources"] == "partially_supported"


# -- git.py, the command line, lazy imports ---------------------------------------------------------------------


def test_checkout_fetches_the_pinned_commit_reuses_it_and_names_an_unknown_commit(tmp_path, monkeypatch):
    src, first = commit(tmp_path / "src", {"data/a.txt": "one", "big.bin": "not needed"})
    (src / "data/a.txt").write_text("two")
    subprocess.run(
        ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qam", "2"], check=True
    )
    dest = tmp_path / "checkout"
    assert git.checkout("o/r", first, dest, url=str(src), paths=["data/a.txt"]) == dest
    assert (dest / "data/a.txt").read_text() == "one"  # the pinned commit, not the newer tip
    assert not (dest / "big.bin").exists()  # only the listed paths

    calls = []
    real = git.git
    monkeypatch.setattr(git, "git", lambda d, *args: calls.append(args) or real(d, *args))
    assert git.checkout("o/r", first, dest, url=str(src), paths=["data/a.txt"]) == dest
    assert calls and all(args[0] == "rev-parse" for args in calls)  # reused: nothing fetched

    unknown = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(SystemExit) as e:
        git.checkout("o/r", unknown, tmp_path / "other", url=str(src))
    assert "o/r" in str(e.value) and unknown in str(e.value) and "fatal:" in str(e.value)


def test_the_command_writes_a_set_from_a_source_override(tmp_path, monkeypatch):
    folder, sha = commit(
        tmp_path / "wice",
        {
            wice.DEV: jsonl(
                [
                    {
                        "label": "supported",
                        "supporting_sentences": [],
                        "claim": "C.",
                        "evidence": ["E."],
                        "meta": claim("dev01"),
                    }
                ]
            )
        },
    )
    monkeypatch.setattr(wice, "REPOS", [{**wice.REPOS[0], "commit": sha}])
    out = tmp_path / "out"
    assert cli.main(["fetch", "wice", "--out", str(out), "--source", f"{wice.REPO}={folder}"]) == 0
    assert [json.loads(line)["id"] for line in (out / "wice" / "dev.jsonl").read_text().splitlines()] == ["wice-dev01"]
    with pytest.raises(SystemExit):
        cli.main(["fetch", "no_such_set", "--out", str(out)])
    with pytest.raises(SystemExit):
        cli.main(["fetch", "wice", "--source", "not-a-repo"])


def test_set_modules_are_imported_only_when_asked_for():
    code = (
        "import sys, sourcecheck_eval.public as p; "
        "assert not [m for m in sys.modules if m.startswith('sourcecheck_eval.public.') and m != p.git.__name__]; "
        "assert p.module('wice').convert; print(len(p.SETS))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "7"
    with pytest.raises(SystemExit):
        public.module("nope")
