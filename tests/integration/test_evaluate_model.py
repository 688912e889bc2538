"""`sourcecheck eval` on two real WiCE records with the real default GGUF and MiniLM embeddings."""

import json
from pathlib import Path

import numpy as np
import pytest
from sourcecheck.config import load_settings
from sourcecheck.judging.calibration import load as load_calibration
from sourcecheck_eval.records import unpack_state
from sourcecheck_eval.run import evaluate
from support import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.model]

DATA = ROOT / "tests" / "data" / "wice" / "two.jsonl"  # the two records --limit 2 --seed 0 picks


def test_two_wice_records_through_the_real_pipeline(tmp_path, monkeypatch, real_model_path):
    for name in ("BACKEND", "MODEL", "EMBEDDINGS", "TOP_K", "CHUNK_WORDS"):
        monkeypatch.delenv(f"SOURCECHECK_{name}", raising=False)
    settings = load_settings({"INDEX_DIR": str(tmp_path / "index")})
    report = evaluate([DATA], settings, limit=2, seed=0, out=tmp_path / "out", log=lambda msg: None)
    ds = report["datasets"]["wice"]
    assert ds["records"] == 2 and not ds["errors"]
    assert ds["sentence"]["n"] == 2 and ds["alignment"]["sentence"]["not_found"] == 0
    preds = [json.loads(line) for line in Path(tmp_path / "out" / "predictions.jsonl").read_text().splitlines()]
    assert all(0.0 < u["p_raw"] < 1.0 for u in preds)  # real probabilities, not a parsed Yes/No
    assert ds["timing"]["seconds_per_record"] > 0
    assert (tmp_path / "out" / "reliability.png").exists()
    # a second run is served from the cache: no record is checked again
    again = evaluate([DATA], settings, limit=2, seed=0, out=tmp_path / "out", log=lambda msg: None, fit=True)
    assert again["datasets"]["wice"]["timing"]["this_run_records"] == 0
    # and the calibration fitted from those real scores: the score model; the bands (placed across kinds of text,
    # operating.py) are carried over
    fitted = json.loads((tmp_path / "out" / "calibration.fitted.json").read_text())
    assert set(fitted["weights"]) == {"logit_p"} and fitted["bands"] == load_calibration()["bands"]
    # each scored sentence's hidden state is cached with its raw score, for the verifier head
    states = [unpack_state(u["state"]) for u in preds if u.get("state")]
    assert len(states) == 2 and all(s.shape == (1536,) and np.isfinite(s).all() and np.abs(s).sum() > 1 for s in states)
    assert again["fit"]["per_set"]["wice"]["current"] == ds["sentence"]["balanced_accuracy"]
