"""The evaluation harness end to end with the fake model and hash embeddings: alignment, cache, outputs."""

import json
import math

import pytest
from sourcecheck import cli
from sourcecheck.check import CheckOptions, check_text
from sourcecheck.config import load_settings
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.text.sentences import split_sentences
from sourcecheck_eval.align import align, locate
from sourcecheck_eval.records import select
from sourcecheck_eval.run import evaluate, fingerprint, scoring_only

SOURCE = (
    "The Golden Gate Bridge opened to traffic in 1937. Its main span is 1,280 meters long. "
    "The bridge is painted in a colour called international orange."
)
TEXT = (
    "Here is a summary: The Golden Gate Bridge opened in 1937. Its main span is 1,280 meters long. "
    "The bridge was painted purple by Leonardo da Vinci."
)


STANCE = {"weights": {"overlap": 2.5}, "bias": -1.5}


def sentence(index, text, label, **extra):
    return {"level": "sentence", "index": index, "text": text, "label": label, "error_types": [], **extra}


RECORDS = [
    {
        "id": "s-1",
        "dataset": "tiny",
        "sources": [SOURCE],
        "text": TEXT,
        "labels": [
            {"level": "response", "label": "unsupported", "error_types": ["invented"]},
            sentence(0, "Here is a summary:", "supported"),  # our splitter: not a claim → dropped (not_checked)
            # one labelled sentence that our splitter cuts in two → scored by the product of both parts
            sentence(1, "The Golden Gate Bridge opened in 1937. Its main span is 1,280 meters long.", "supported"),
            sentence(2, "The bridge was painted purple by Leonardo da Vinci.", "unsupported", error_types=["invented"]),
            sentence(3, "The moon is made of green cheese.", "unsupported"),  # not in the text → not_found
            sentence(4, "The bridge opened in 1937.", "unknown"),
        ],
    },  # no majority → not scored at all
    {
        "id": "p-0-right",
        "dataset": "tiny",
        "sources": [SOURCE],
        "text": "The bridge opened to traffic in 1937.",
        "labels": [{"level": "response", "label": "supported", "error_types": []}],
        "meta": {"pair_index": 0, "variant": "right"},
    },
    {
        "id": "p-0-hallucinated",
        "dataset": "tiny",
        "sources": [SOURCE],
        "text": "The bridge opened to traffic in 1950 after a storm.",
        "labels": [{"level": "response", "label": "unsupported", "error_types": ["entity"]}],
        "meta": {"pair_index": 0, "variant": "hallucinated"},
    },
    {
        "id": "no-sources",
        "dataset": "tiny",
        "sources": [],
        "text": "Anything at all is here.",
        "labels": [{"level": "response", "label": "supported", "error_types": []}],
    },
    {
        "id": "unknown-only",
        "dataset": "tiny",
        "sources": [SOURCE],
        "text": "Anything at all is here.",
        "labels": [{"level": "response", "label": "unknown", "error_types": []}],
    },
]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "tiny" / "dev.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


@pytest.fixture
def settings(monkeypatch):
    monkeypatch.setenv("SOURCECHECK_BACKEND", "fake")
    monkeypatch.setenv("SOURCECHECK_EMBEDDINGS", "hash")
    return load_settings()


def run(data, settings, out, model=None, **kw):
    model = model or FakeModel()
    return evaluate([data], settings, out=out, model=model, log=lambda msg: None, **kw), model


@pytest.fixture(autouse=True)
def identity_calibration(monkeypatch):
    """The expected numbers below are raw fake scores: keep the shipped calibration.json out of them."""
    monkeypatch.setattr(
        "sourcecheck.judging.judge.for_judge",
        lambda judge, folder, profile="verify": ({"a": 1.0, "b": 0.0, "stance": STANCE}, True),
    )


def test_alignment_by_text_not_by_index():
    text = "Intro text follows here: The bridge opened in 1937. It is long. The span is 1,280 m and the tower is tall."
    ours = [s.to_dict() for s in split_sentences(text)]
    checked = [{"index": s["index"]} for s in ours if s["checkable"]]
    golds = [
        "The tower is tall.",  # out of order and other case: part of one of ours
        "the bridge  opened\nin 1937.",  # other whitespace
        "The bridge opened in 1937. It is long.",  # two of ours
        "The span is 1,280 m.",  # edited: fuzzy match
        "Not in this text at all, anywhere.",
    ]
    spans = locate(golds, text, ours)
    assert text[slice(*spans[0])] == "the tower is tall."
    assert text[slice(*spans[1])] == "The bridge opened in 1937."
    assert text[slice(*spans[3])] == "The span is 1,280 m and the tower is tall."
    assert spans[4] is None
    by_text = {s["text"]: s["index"] for s in ours}
    last = by_text["The span is 1,280 m and the tower is tall."]
    got = align(golds, text, ours, checked)
    assert got[0] == ([last], None)
    assert got[1] == ([by_text["The bridge opened in 1937."]], None)
    assert got[2] == ([by_text["The bridge opened in 1937."], by_text["It is long."]], None)
    assert got[3] == ([last], None)
    assert got[4] == ([], "not_found")


def test_one_of_our_sentences_can_serve_two_labelled_ones():
    text = "They allow abstraction of resources and help simplify the management of infrastructures."
    ours = [s.to_dict() for s in split_sentences(text)]
    got = align(
        ["They allow abstraction of resources.", "They help simplify the management of infrastructures."],
        text,
        ours,
        [{"index": 0}],
    )
    assert got == [([0], None), ([0], None)]


def test_select_is_reproducible_keeps_pairs_and_skips_records_without_sources_or_labels():
    records = [
        {
            "id": f"r{i}",
            "sources": ["s"],
            "labels": [{"level": "response", "label": "supported"}],
            "meta": {"pair_index": i // 2},
        }
        for i in range(20)
    ]
    records.append({"id": "nosrc", "sources": [], "labels": [{"level": "response", "label": "supported"}]})
    assert len(select(records)) == 20
    a, b = select(records, 6, seed=1), select(records, 6, seed=1)
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert [r["id"] for r in select(records, 6, seed=2)] != [r["id"] for r in a]
    assert sorted(r["meta"]["pair_index"] for r in a) == sorted(2 * sorted({r["meta"]["pair_index"] for r in a}))
    assert [r["id"] for r in select(records, 10, seed=1)][:6] == [r["id"] for r in a]  # a prefix


def test_scoring_only_scores_without_critique_calls():
    library = Library(None, HashEmbedding())
    library.add_text("bridge", [SOURCE])
    model = FakeModel()
    events = list(scoring_only(check_text(TEXT, library, Judge(model, calibration={"a": 1.0, "b": 0.0}))))
    verdicts = [e for e in events if e["type"] == "verdict"]
    assert [v["label"] for v in verdicts] == ["supported", "supported", "unsupported"]
    assert verdicts[2]["critique"] is None and verdicts[2]["error_type"] is None
    # scores only: one pass per sentence, and the unsupported one's swaps read again (reading.py); nothing written
    assert [kind for kind, _ in model.history][:3] == ["choose"] * 3 and {k for k, _ in model.history} == {"choose"}


def test_harness_end_to_end_with_the_fake_model(data, settings, tmp_path):
    report, model = run(data, settings, tmp_path / "out")
    ds = report["datasets"]["tiny"]
    assert ds["records"] == 3  # no-sources and unknown-only are skipped
    assert ds["alignment"]["sentence"] == {
        "labelled": 4,
        "scored": 2,
        "not_found": 1,
        "not_checked": 1,
        "split": 1,
        "merged": 0,
    }
    # 3 + 1 + 1 checkable sentences, and the swaps of an unsupported one read again (reading.py); no critiques
    kinds = [kind for kind, _ in model.history]
    assert set(kinds) == {"choose"} and len(kinds) >= 5
    preds = [json.loads(line) for line in (tmp_path / "out" / "predictions.jsonl").read_text().splitlines()]
    sent = {u["index"]: u for u in preds if u["view"] == "sentence"}
    assert sent[1]["p"] == pytest.approx(0.9 * 0.9) and sent[1]["parts"] == 2 and sent[1]["y"] == 1
    assert sent[2]["p"] == pytest.approx(0.1) and sent[2]["y"] == 0
    m = ds["sentence"]
    assert m["n"] == 2 and m["balanced_accuracy"] == 1.0 and m["auroc"] == 1.0
    assert m["recall_by_type"] == {"invented": {"n": 1, "recall": 1.0}}
    resp = ds["response"]
    assert resp["n"] == 3 and resp["pairs"] == 1 and resp["pairwise_accuracy"] == 1.0
    # P(text) = Π p: .9·.9·.1 for the summary, .9 and .1 for the pair
    by_id = {u["record"]: u["p"] for u in preds if u["view"] == "response"}
    assert by_id == pytest.approx({"s-1": 0.081, "p-0-right": 0.9, "p-0-hallucinated": 0.1})
    assert resp["balanced_accuracy_best"] == 1.0 and 0.1 < resp["best_threshold"] < 0.9
    assert resp["balanced_accuracy_any"] == 1.0
    assert ds["primary"] == "sentence" and ds["timing"]["records"] == 3


def test_outputs_are_written(data, settings, tmp_path):
    out = tmp_path / "out"
    report, _ = run(data, settings, out)
    assert json.loads((out / "results.json").read_text())["fingerprint"] == report["fingerprint"]
    table = (out / "results.md").read_text()
    assert "| tiny | sentence | 3 | 2 (1) | 100.0 [100–100] |" in table
    assert "| 100.0 of 1 |" in table  # the one HaluEval-style pair ranked right
    assert (out / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_second_run_uses_the_cache_and_makes_no_model_calls(data, settings, tmp_path):
    out = tmp_path / "out"
    first, _ = run(data, settings, out)
    second, model = run(data, settings, out)
    assert model.history == []
    assert second["datasets"] == first["datasets"] or (
        {k: v for k, v in second["datasets"]["tiny"].items() if k != "timing"}
        == {k: v for k, v in first["datasets"]["tiny"].items() if k != "timing"}
    )
    assert second["datasets"]["tiny"]["timing"]["this_run_records"] == 0


def test_an_interrupted_run_resumes_where_it_stopped(data, settings, tmp_path):
    out = tmp_path / "out"
    run(data, settings, out, limit=1, seed=3)  # "interrupted" after one record
    (cache,) = (out / "cache").iterdir()
    with open(cache, "a") as f:
        f.write('{"id": "half a li')  # a line cut short by the interruption is ignored
    _, model = run(data, settings, out)
    first = select([json.loads(line) for line in data.read_text().splitlines()], 1, seed=3)[0]
    checkable = {"s-1": 3, "p-0-right": 1, "p-0-hallucinated": 1}
    assert len(model.history) == 5 - sum(checkable[r["id"]] for r in [first])


def test_cache_key_changes_with_what_changes_scores(settings):
    model = FakeModel()
    base = fingerprint(settings, CheckOptions(), model)
    assert fingerprint(settings, CheckOptions(), model) == base
    assert fingerprint(settings, CheckOptions(top_k=3), model) != base
    assert fingerprint({**settings, "CHUNK_WORDS": 60}, CheckOptions(), model) != base
    assert fingerprint(settings, CheckOptions(), model, prompt_evidence="passages") != base
    assert fingerprint(settings, CheckOptions(), model, reading="names") != base


def test_prompt_evidence_is_an_eval_option(data, settings, tmp_path):
    """--prompt-evidence passages measures the slower path the shared evidence block replaced."""
    shared, _ = run(data, settings, tmp_path / "out")
    own, _ = run(data, settings, tmp_path / "out", prompt_evidence="passages")
    assert shared["options"]["prompt_evidence"] == "shared" and own["options"]["prompt_evidence"] == "passages"
    assert own["fingerprint"] != shared["fingerprint"]  # its own cache: nothing is served from the other run's
    assert own["datasets"]["tiny"]["timing"]["this_run_records"] == shared["datasets"]["tiny"]["records"]


def test_cli_eval_prints_the_table(data, settings, tmp_path, capsys):
    assert cli.main(["eval", str(data), "--out", str(tmp_path / "cli"), "--limit", "5"]) == 0
    printed = capsys.readouterr().out
    assert "| tiny | sentence |" in printed and "results.json" in printed
    assert "Calibration fitted on the other sets" in printed and "calibration.fitted.json" in printed
    fitted = json.loads((tmp_path / "cli" / "calibration.fitted.json").read_text())
    assert fitted["weights"]["logit_p"] > 0  # the fake's P(Yes) tells the labels apart
    assert "stance" not in fitted  # contradicted comes from the conflict finder, which is not fitted


def test_critiques_can_be_generated_and_the_signals_are_kept(data, settings, tmp_path):
    report, model = run(data, settings, tmp_path / "out", critique=True)
    # of the two sentences not supported, one conflicts with the source (its critique is written from the data)
    assert [kind for kind, _ in model.history].count("complete") == 1
    preds = [json.loads(line) for line in (tmp_path / "out" / "predictions.jsonl").read_text().splitlines()]
    unit = next(u for u in preds if u["view"] == "sentence" and u["index"] == 2)
    assert unit["features"]["logit_p"] == pytest.approx(math.log(0.1 / 0.9))
    assert report["datasets"]["tiny"]["sentence"]["balanced_accuracy"] == 1.0
    # the card text is cached with the scores, so what users read can be measured (eval.product critiques)
    cached = [
        json.loads(line) for f in (tmp_path / "out" / "cache").glob("*.jsonl") for line in f.read_text().splitlines()
    ]
    cards = [v for r in cached for v in r["verdicts"] if v["label"] != "supported"]
    assert len(cards) == 2 and all(v["critique"] and v["error_type"] for v in cards)


def test_with_critiques_each_cached_raw_score_stays_with_its_own_sentence(settings, tmp_path):
    # an unsupported sentence before a supported one: its final verdict (after the critique) comes last
    record = {
        "id": "u-s",
        "dataset": "tiny",
        "sources": [SOURCE],
        "text": "The bridge was painted purple by robots. The bridge opened to traffic in 1937.",
        "labels": [{"level": "response", "label": "unsupported", "error_types": []}],
    }
    path = tmp_path / "tiny" / "dev.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(record) + "\n")
    run(path, settings, tmp_path / "out", critique=True)
    cached = [json.loads(line) for f in (tmp_path / "out" / "cache").iterdir() for line in f.read_text().splitlines()]
    verdicts = [v for r in cached for v in r["verdicts"]]
    assert {v["label"] for v in verdicts} >= {"supported", "unsupported"}
    for v in verdicts:  # identity calibration: a sentence's p is its own raw P(Yes)
        assert v["p"] == pytest.approx(v["p_raw"], abs=1e-4)


def test_rescore_scores_an_earlier_cache_without_running_anything(data, settings, tmp_path):
    first, _ = run(data, settings, tmp_path / "out")
    again, model = run(
        data, settings, tmp_path / "rescored", cache_dir=tmp_path / "out" / "cache", rescore=first["fingerprint"]
    )
    assert model.history == [] and again["rescored"]
    assert again["datasets"]["tiny"]["sentence"] == first["datasets"]["tiny"]["sentence"]
    unknown, model = run(data, settings, tmp_path / "none", rescore="0123456789abcdef")
    assert model.history == [] and unknown["datasets"]["tiny"]["missing_from_cache"] == 3


def test_every_file_of_the_cache_key_exists():
    """A file the key names but the package no longer has (moved, renamed) would leave the key unseen: raised."""
    from sourcecheck.check import CheckOptions
    from sourcecheck.config import load_settings
    from sourcecheck.llm.fake import FakeModel
    from sourcecheck_eval import run

    settings = load_settings({"BACKEND": "fake", "EMBEDDINGS": "hash"})
    key = run.fingerprint(settings, CheckOptions(), FakeModel())
    assert len(key) == 16
    old = run.FINGERPRINT_FILES
    try:
        run.FINGERPRINT_FILES = (*old, "judge.py")  # where the judge lived before the stage folders
        with pytest.raises(FileNotFoundError, match="judge.py"):
            run.fingerprint(settings, CheckOptions(), FakeModel())
    finally:
        run.FINGERPRINT_FILES = old
