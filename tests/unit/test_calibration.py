"""calibration.py (the judge's scale and bands, fitted across kinds) and calibrate.py (a calibration for any judge)."""

import gzip
import json
import time

import numpy as np
import pytest
from sourcecheck.judging import calibration
from sourcecheck.judging.calibrate import Cancelled, answers, calibrate, calibration_size
from sourcecheck.judging.calibration import PLAIN_BANDS, SENSITIVITIES, fit, for_judge, grade, save
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel


def kinds(seed=0):
    """Three kinds of text whose scales are shifted, as the judge's are from one kind to the next."""
    rng = np.random.default_rng(seed)
    p, y, k = [], [], []
    for name, shift, n in (("abstracts", 0.8, 120), ("papers", -0.6, 120), ("public", 0.0, 60)):
        t = (rng.random(n) < 0.5).astype(int)
        z = rng.normal(np.where(t == 1, 1.2, -1.2) + shift, 1.0)
        p += list(1 / (1 + np.exp(-z)))
        y += list(t)
        k += [name] * n
    return np.array(p), np.array(y), np.array(k)


def test_each_kind_weighs_the_same_and_the_bands_keep_their_promises_on_every_kind():
    p, y, k = kinds()
    c = fit(p, y, k)
    q = calibration.sigmoid(c["a"] * calibration.logit(p) + c["b"])
    for s in SENSITIVITIES:
        low, high = c["bands"][s]
        amber, marked = calibration.TARGETS[s]
        assert 0 <= low <= high <= 1
        for name in ("abstracts", "papers", "public"):  # the low edge holds on the worst kind, so on each
            assert np.mean(q[(k == name) & (y == 1)] < low) <= amber
        # the high edge: as many true sentences marked (amber or uncertain) as promised on average, and no fewer
        # errors than the amber edge alone marks
        assert np.mean([np.mean(q[(k == n) & (y == 1)] < high) for n in ("abstracts", "papers", "public")]) <= marked
        assert np.mean(q[y == 0] < high) > np.mean(q[y == 0] < low)
    bands = c["bands"]
    assert bands["relaxed"][0] <= bands["balanced"][0] <= bands["strict"][0]
    assert bands["relaxed"][1] <= bands["balanced"][1] <= bands["strict"][1]
    # a kind ten times the size weighs as one kind: the map barely moves
    big = fit(
        np.concatenate([p, np.repeat(p[k == "abstracts"], 10)]),
        np.concatenate([y, np.repeat(y[k == "abstracts"], 10)]),
        np.concatenate([k, np.repeat(k[k == "abstracts"], 10)]),
    )
    assert abs(big["a"] - c["a"]) < 0.35 and abs(big["b"] - c["b"]) < 0.35


def test_the_second_reads_scale_weighs_what_it_adds_and_its_bands_keep_the_amber_promise_after_both_reads():
    p, y, k = kinds()
    rng = np.random.default_rng(1)
    # the second read ranks better than the first: its own noise is smaller
    alone = calibration.sigmoid(rng.normal(np.where(y == 1, 1.5, -1.5), 0.6))
    first = fit(p, y, k)
    second = calibration.fit_second(p, alone, y, k, first)
    assert second is not None
    a1, a2 = second["a"]
    assert a2 > 1.0 and a2 > 2 * abs(a1)  # the better read carries the weight
    q1 = calibration.sigmoid(first["a"] * calibration.logit(p) + first["b"])
    q2 = calibration.sigmoid(a1 * calibration.logit(p) + a2 * calibration.logit(alone) + second["b"])
    for s in SENSITIVITIES:
        band, (low, high) = first["bands"][s], second["bands"][s]
        assert 0 <= low <= high == max(low, calibration.SECOND_HIGH[s])
        inside = (q1 >= band[0]) & (q1 < band[1])
        amber = (q1 < band[0]) | (inside & (q2 < low))
        for name in ("abstracts", "papers", "public"):  # what users see after both reads keeps the amber promise
            assert np.mean(amber[(k == name) & (y == 1)]) <= calibration.TARGETS[s][0]
        # and sentences read again are graded better than the first read alone grades them: fewer left uncertain
        settled = inside & ((q2 < low) | (q2 >= high))
        right = settled & ((q2 >= high) == (y == 1))
        assert settled.sum() > 0.5 * inside.sum() and right.sum() > 0.75 * settled.sum()
    # a sentence no band reads again, a red one, or one without a second read does not enter the fit
    nan = np.where(np.arange(len(p)) % 2 == 0, np.nan, alone)
    assert calibration.fit_second(p, nan, y, k, first)["n"] < second["n"]
    assert calibration.fit_second(p, alone, y, k, first, conflict=np.ones(len(p), bool)) is None


def test_a_remote_judge_is_named_by_its_server_without_credentials():
    from sourcecheck.llm.openai_compat import OpenAIModel

    assert OpenAIModel("http://me:secret@10.0.0.5:11434/v1/", "llama3").judge_id() == "openai:llama3@10.0.0.5:11434/v1"
    assert OpenAIModel("", "gpt-4o-mini").judge_id() == "openai:gpt-4o-mini@api.openai.com/v1"


def test_grade_reads_the_band():
    assert [grade(p, (0.3, 0.6)) for p in (0.1, 0.3, 0.59, 0.6, 0.9)] == [
        "unsupported",
        "uncertain",
        "uncertain",
        "supported",
        "supported",
    ]


def test_a_judge_finds_its_own_calibration_else_the_shipped_one_and_says_which(tmp_path):
    shipped = calibration.load()
    assert calibration.valid(shipped) and shipped["judge"] == "llama_cpp:qwen2.5-coder-1.5b-instruct-q4_k_m"
    # fitted under today's prompts: a change of their words needs the scale fitted again (docs/judges.md)
    assert shipped["prompt"] == calibration.prompt_id() != calibration.prompt_id("minicheck")
    assert for_judge(shipped["judge"], tmp_path) == (shipped, True)  # the default judge ships calibrated
    assert for_judge("openai:llama3@http://127.0.0.1:11434/v1", tmp_path) == (shipped, False)
    own = {"judge": "openai:llama3@http://127.0.0.1:11434/v1", "a": 2.0, "b": 0.1, "bands": PLAIN_BANDS}
    old = {**own, "prompt": "0123456789ab"}
    path = save(old, tmp_path)  # fitted under other prompts: still the best guess, but not calibrated for these
    assert for_judge(own["judge"], tmp_path) == (old, False)
    save(own, tmp_path)  # one from before calibrations named their prompts: the same
    assert for_judge(own["judge"], tmp_path) == (own, False)
    assert for_judge(own["judge"], tmp_path, "minicheck") == (own, False)
    own["prompt"] = calibration.prompt_id()
    path = save(own, tmp_path)
    assert for_judge(own["judge"], tmp_path, "minicheck") == (own, False)  # another profile's words
    assert path.parent == tmp_path and "/" not in path.name[:-5] and ":" not in path.name
    assert for_judge(own["judge"], tmp_path) == (own, True)
    path.write_text("{not json")  # a damaged file: the shipped scale, and not calibrated
    assert for_judge(own["judge"], tmp_path) == (shipped, False)
    path.write_text(json.dumps({**own, "judge": "another"}))  # a file of another judge (two names, one file)
    assert for_judge(own["judge"], tmp_path) == (shipped, False)


def rows():
    """Two answers of two kinds, in the shipped set's form; the fake judge says Yes where the words are there."""
    ev = {"filename": "a.pdf", "page": 2, "quote": "The bridge opened in 1937.", "relevance": 0.8}
    ev = {**ev, "passage": "The Golden Gate Bridge opened in 1937. It is orange."}
    sentences = [
        {"claim": "The Golden Gate Bridge opened in 1937.", "y": 1, "evidence": [ev]},
        {"claim": "The Golden Gate Bridge opened in 1951.", "y": 0, "evidence": [ev]},
        {"claim": "It is orange.", "y": 1, "evidence": [ev]},
        {"claim": "Penguins built it from ice.", "y": 0, "evidence": [ev]},
    ]
    return [
        {"kind": "one", "id": "a", "sentences": sentences * 3},
        {"kind": "two", "id": "b", "sentences": sentences * 3},
    ]


def test_calibrate_scores_every_sentence_reports_progress_and_names_the_judge():
    model = FakeModel()
    seen = []
    found = calibrate(Judge(model), progress=lambda p: seen.append((p.state, p.done, p.total, p.eta_s)), rows=rows())
    assert found["judge"] == "fake:fake" and found["n"] == 24 and found["kinds"] == ["one", "two"]
    assert found["prompt"] == calibration.prompt_id()  # what for_judge holds it to
    assert calibration.valid(found) and found["a"] > 0  # Yes means supported on this judge's scale
    assert [s[1] for s in seen] == list(range(25)) and all(s[2] == 24 for s in seen)
    assert seen[-1][3] == 0.0 and all(s[0] == "running" for s in seen)
    # each answer's sentences were asked over one shared block (as a check asks them), each sentence once
    assert sum(1 for kind, _ in model.history if kind == "choose") == 4  # 24 sentences, 4 distinct: the cache


def test_calibrate_reads_the_sentences_a_band_leaves_unsure_a_second_time_and_fits_that_reads_scale_too():
    model = FakeModel()
    seen = []
    found = calibrate(Judge(model), limit=2, progress=lambda p: seen.append((p.done, p.total)))
    first = calibration_size(2)
    again = seen[-1][1] - first
    assert 0 < again < first and seen[-1][0] == seen[-1][1]  # the total grows by the sentences read again
    second = found["second"]
    assert len(second["a"]) == 2 and set(second["bands"]) == set(SENSITIVITIES) and second["n"] <= again
    assert found["n"] == first
    # the judge uses it: a judge given this calibration reads unsure sentences again
    judge = Judge(FakeModel(), calibration=found)
    assert judge.rereads(sum(found["bands"]["balanced"]) / 2, "uncertain") and not judge.rereads(0.99, "supported")


def test_calibrate_stops_when_cancelled_and_keeps_nothing():
    calls = iter(range(100))
    with pytest.raises(Cancelled) as stopped:
        calibrate(Judge(FakeModel()), cancelled=lambda: next(calls) >= 3, rows=rows())
    assert stopped.value.code == "cancelled" and stopped.value.status == 409


def test_the_shipped_set_is_development_data_of_several_kinds_with_its_licences():
    from importlib import resources

    found = answers()
    kinds_seen = {a["kind"] for a in found}
    assert {"chatpdfs", "fullpapers"} <= kinds_seen and len(kinds_seen) >= 4
    sentences = [s for a in found for s in a["sentences"]]
    assert 150 <= len(sentences) <= 400 and {s["y"] for s in sentences} == {0, 1}
    assert all(s["evidence"] and all(e["passage"] and e["quote"] for e in s["evidence"]) for s in sentences)
    assert not any(a["id"] == "fave-q3" or "-test" in a["id"] for a in found)
    notes = resources.files("sourcecheck").joinpath("calibration_set.md").read_text()
    assert all(kind in notes for kind in kinds_seen) and "licen" in notes.lower()
    raw = resources.files("sourcecheck").joinpath("calibration_set.jsonl.gz").read_bytes()
    assert len(raw) < 400_000 and gzip.decompress(raw)  # compact
    assert len(answers(limit=1)) == len(kinds_seen)  # one answer of each kind: a quick, coarse calibration


def test_the_server_calibrates_its_judge_in_the_background_and_then_grades_by_it(settings, tmp_path):
    """POST /calibrate through the app with the fake judge: progress, done, kept under the judge's name, /health and
    the next check's judge say calibrated; DELETE on a finished one changes nothing; a bad limit is refused."""
    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.services import get_services
    from support import make_client

    app = create_app({**settings, "MODELS_DIR": str(tmp_path / "models")})
    client = make_client(app)
    assert client.get("/api/v1/health").get_json()["model"]["calibrated"] is False
    assert client.post("/api/v1/calibrate", json={"limit": "two"}).get_json()["error"]["code"] == "bad_request"
    assert client.post("/api/v1/calibrate", data="x", content_type="text/plain").status_code == 400
    started = client.post("/api/v1/calibrate", json={"limit": 1})
    assert started.status_code == 202 and started.get_json()["calibration"]["state"] == "running"
    for _ in range(600):
        status = client.get("/api/v1/calibrate").get_json()["calibration"]
        if status["state"] != "running":
            break
        time.sleep(0.05)
    assert status["state"] == "done" and status["calibrated"] is True and status["done"] == status["total"] > 0
    (kept,) = (tmp_path / "models" / "calibrations").glob("*.json")
    assert json.loads(kept.read_text())["judge"] == "fake:fake"
    health = client.get("/api/v1/health").get_json()["model"]
    assert health["calibrated"] is True and health["calibration"]["judge"] == "fake:fake"
    assert get_services(app).judge().calibrated is True
    assert client.delete("/api/v1/calibrate").get_json()["calibration"]["state"] == "done"
    # a finer calibration on record (all 214 sentences, say): a coarse one does not replace it unless told to
    finer = {**json.loads(kept.read_text()), "n": 214}
    kept.write_text(json.dumps(finer))
    refused = client.post("/api/v1/calibrate", json={"limit": 1})
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "calibration_coarser"
    assert json.loads(kept.read_text())["n"] == 214 and "replace" in refused.get_json()["error"]["message"]
    assert client.get("/api/v1/calibrate").get_json()["calibration"]["sentences"] == 214
    assert client.post("/api/v1/calibrate", json={"limit": 1, "replace": 1}).status_code == 400
    assert client.post("/api/v1/calibrate", json={"limit": 1, "replace": True}).status_code == 202


def test_before_a_calibration_starts_its_status_says_how_many_sentences_it_reads(settings, tmp_path):
    from sourcecheck.judging.calibrate import calibration_size
    from sourcecheck.serve.app import create_app
    from support import make_client

    status = make_client(create_app({**settings, "MODELS_DIR": str(tmp_path / "models")})).get("/api/v1/calibrate")
    got = status.get_json()["calibration"]
    assert got["state"] == "idle" and got["total"] == calibration_size() > 200 and got["sentences"] is None


def test_a_judge_with_a_small_context_is_asked_over_each_sentences_own_evidence_when_the_block_is_too_long():
    from sourcecheck.errors import ModelError

    model = FakeModel()
    model.enqueue(
        ModelError("The prompt has 2191 tokens, more than the model's context of 2048.", code="prompt_too_long")
    )
    found = calibrate(Judge(model), rows=rows())
    assert found["n"] == 24 and calibration.valid(found)
