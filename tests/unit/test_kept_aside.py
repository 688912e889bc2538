"""The records kept aside are every answer about a kept-aside package's PDF, and fits and the calibration set leave
them out."""

import json
from pathlib import Path

from sourcecheck_eval.kept_aside import PACKAGES, RECORDS, kept_aside

DATA = Path(__file__).parent.parent / "data"


def test_every_answer_about_a_kept_aside_package_is_listed():
    papers = json.loads((DATA / "fullpapers" / "papers.json").read_text())["packages"]
    files = {pdf["file"] for p in papers if p["package"] in PACKAGES for pdf in p["pdfs"]}
    about = set()
    for half in ("dev", "test"):
        for line in (DATA / "fullpapers" / f"{half}.jsonl").read_text().splitlines():
            record = json.loads(line)
            if files & set(record["meta"]["pdfs"]):
                about.add(record["id"])
    assert about and about | {"fave-q3"} == RECORDS
    assert kept_aside("fave-q3") and kept_aside("paper-q1") and not kept_aside("paper-q7")


def test_the_shipped_calibration_set_and_fit_leave_them_out():
    import gzip

    import sourcecheck
    from sourcecheck_eval.operating import fitted, set_aside

    shipped = Path(sourcecheck.__file__).parent / "calibration_set.jsonl.gz"
    ids = {json.loads(line)["id"] for line in gzip.open(shipped, "rt")}
    assert ids and not ids & RECORDS
    units = [{"record": f"paper-q{i}", "y": i % 2, "p_raw": 0.2 + 0.05 * i, "conflict": False} for i in range(1, 13)]
    sets = set_aside(
        {"fullpapers-dev": units, "chatpdfs-dev": [dict(u, record=f"chat-{i}") for i, u in enumerate(units)]}
    )
    assert [u["record"] for u in sets["fullpapers-kept"]] == [f"paper-q{i}" for i in range(1, 7)]
    assert fitted(sets)["n"] == 18  # 12 chat answers and paper-q7 … q12; the six kept aside scored, not fitted
