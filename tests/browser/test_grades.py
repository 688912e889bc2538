"""Issue 33: the graded verdicts on a chat page, with a third of the answer uncertain: three marks told apart at a
glance (and without hue), the uncertain card, the most doubtful sentences first in the side panel, summaries that
count the grades, an uncalibrated judge said on every card, calibrating it from the side panel, and a label this
version does not know shown as a neutral mark. A stub backend speaks the API's contract (docs/api.md) so each grade
comes where the test puts it."""

import json
import math
import re
import secrets
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_helpers import HIGHLIGHTS_JS, ROOT, ShadowUI, free_port, wait_until
from browser_pdfs import write_fava

pytestmark = pytest.mark.browser

QUOTE = "we generate 35k training instances"
# chat.html's checkable sentences, each its grade and P(supported): two of six uncertain
GRADES = {
    "The FAVA model was trained on 35,074 training instances.": ("supported", 0.93),
    "The retrieval component uses Contriever to find relevant passages.": ("uncertain", 0.46),
    "The authors also released a mobile app for birdwatchers in Zürich.": ("unsupported", 0.12),
    "Café owners liked it très much 🚀.": ("uncertain", 0.38),
    "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data.": ("contradicted", 0.71),
    "Errors are grouped into six types, from entity errors to unverifiable statements.": ("supported", 0.88),
}
UNCERTAIN_CRITIQUE = f"sourcecheck is not sure: the closest passage is “{QUOTE}” (fava.pdf, page 2)."


def verdict(index, text, label, p):
    ev = {"document_id": "d1", "filename": "fava.pdf", "page": 2, "quote": QUOTE, "score": 0.5, "stance": "related"}
    v = {
        "type": "verdict",
        "index": index,
        "label": label,
        "p_supported": p,
        "error_type": None,
        "revised": None,
        "final": True,
        "cited": [],
        "evidence": [ev],
    }
    if label == "uncertain":
        v["critique"] = UNCERTAIN_CRITIQUE
    elif label == "contradicted":
        v.update(
            critique="The sentence says 13B; fava.pdf, page 2 says 7B.",
            error_type="entity",
            revised=text.replace("13B", "7B"),
            evidence=[dict(ev, stance="refutes", quote="Llama2-Chat 7B")],
        )
    elif label == "unsupported":
        v.update(critique="The sources do not mention this.", error_type="invented")
    else:
        v.update(critique="Supported by fava.pdf.", evidence=[dict(ev, stance="supports")])
    return v


class Stub:
    """What the backend says: the grades, whether its judge is calibrated, and a calibration that moves a step
    each time it is read."""

    def __init__(self, grades, calibrated=False, step=60, reread=None):
        self.grades, self.calibrated, self.step = grades, calibrated, step
        # sentence -> (grade, P) its second read gives, sent once second_read is set
        self.reread, self.second_read = reread or {}, threading.Event()
        self.calibration = {
            "state": "idle",
            "done": 0,
            "total": 240,
            "eta_s": None,
            "calibrated": calibrated,
            "error": None,
        }
        self.calls = []


class _Handler(BaseHTTPRequestHandler):
    def __init__(self, stub, *args, **kwargs):
        self.stub = stub
        super().__init__(*args, **kwargs)

    def log_message(self, *args):
        pass

    def _json(self, body, status=200):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _calibration(self, method):
        s, c = self.stub, self.stub.calibration
        s.calls.append(method)
        if method == "POST" and c["state"] != "running":
            c.update(state="running", done=0, eta_s=None, error=None)
        elif method == "DELETE" and c["state"] == "running":
            c.update(state="cancelled", eta_s=None)
        elif method == "GET" and c["state"] == "running":
            c["done"] = min(c["total"], c["done"] + s.step)
            c["eta_s"] = (c["total"] - c["done"]) * 1.3
            if c["done"] == c["total"]:
                s.calibrated = True
                c.update(state="done", eta_s=None, calibrated=True)
        self._json({"ok": True, "calibration": dict(c)}, 202 if method == "POST" else 200)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api/v1/health":
            model = {
                "name": "fake",
                "backend": "fake",
                "loaded": True,
                "calibrated": self.stub.calibrated,
                "calibration": {"judge": "fake", "fitted_on": "2026-05-01", "band": [0.3, 0.5]}
                if self.stub.calibrated
                else None,
            }
            self._json({"ok": True, "version": "stub", "model": model, "library": {"documents": 1, "chunks": 3}})
        elif path == "/api/v1/calibrate":
            self._calibration("GET")
        else:  # /documents
            self._json(
                {
                    "ok": True,
                    "documents": [{"id": "d1", "filename": "fava.pdf", "status": "ready", "pages": 12, "chunks": 3}],
                }
            )

    def do_DELETE(self):
        self._calibration("DELETE")

    def do_POST(self):
        if self.path.startswith("/api/v1/calibrate"):
            self._calibration("POST")
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = body["text"]
        found = list(re.finditer(r"\S[^.!?]*[.!?]", text))
        sentences = [
            {
                "index": i,
                "start": m.start(),
                "end": m.end(),
                "text": m.group(0),
                "checkable": m.group(0) in self.stub.grades,
            }
            for i, m in enumerate(found)
        ]
        events = [
            {"type": "sentences", "sentences": sentences, "judge": {"name": "fake", "calibrated": self.stub.calibrated}}
        ]
        checked = [s for s in sentences if s["checkable"]]
        again = [s for s in checked if s["text"] in self.stub.reread]  # read a second time (issue 48)
        for s in checked:
            v = verdict(s["index"], s["text"], *self.stub.grades[s["text"]])
            events.append({**v, "final": False, "rereading": True} if s in again else v)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        for e in events:
            self.wfile.write((json.dumps(e) + "\n").encode())
            self.wfile.flush()
        if again:
            self.stub.second_read.wait(60)  # the test looks at the page meanwhile
        tail = [verdict(s["index"], s["text"], *self.stub.reread[s["text"]]) for s in again]
        summary = {"type": "summary", "p_all_supported": 0.01, "calibrated": self.stub.calibrated}
        if body.get("options", {}).get("revise"):  # Revise all: the contradicted figure replaced, the invented kept
            wrong = [s["index"] for s in checked if self.stub.grades[s["text"]][0] == "unsupported"]
            summary.update(revised_text=text.replace("13B", "7B"), unrevised=wrong)
        tail.append(summary)
        for e in tail:
            self.wfile.write((json.dumps(e) + "\n").encode())
            self.wfile.flush()


@pytest.fixture
def stub(ext):
    """A stub backend with chat.html's grades, the extension paired with it (supported sentences marked too)."""
    s = Stub(dict(GRADES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, s))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ext.storage({"backendUrl": f"http://127.0.0.1:{server.server_address[1]}", "token": "t", "showSupported": True})
    yield s
    server.shutdown()


def check(ext, page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(page)
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] in ("done", "error") and lc, what="the check")
    assert lc["status"] == "done", lc
    page.evaluate("() => getSelection().removeAllRanges()")
    return lc


def hover_uncertain(chat, ui, text, what):
    """Point at the sentence's uncertain mark; its card once shown."""
    chat.evaluate(
        """(t) => { const r = [...CSS.highlights.get('sourcecheck-uncertain')].find((r) => r.toString().trim() === t);
        const b = r.getClientRects()[0]; window.__at = [b.left + 20, b.top + b.height / 2]; }""",
        text,
    )
    x, y = chat.evaluate("() => window.__at")
    chat.mouse.move(x, y)
    return wait_until(lambda: ui.shown("card"), what=what)


def of(label):
    return sorted(t for t, (g, _) in GRADES.items() if g == label)


def test_the_three_marks_differ_in_shape_not_only_in_hue():
    """Red: a fill and a wavy line; amber: a fill and a dotted line; uncertain: no fill, a dashed line (quieter)."""
    css = (ROOT / "extension/content/highlights.css").read_text(encoding="utf-8")
    rule = {m.group(1): m.group(2) for m in re.finditer(r"::highlight\(sourcecheck-([a-z-]+)\)\s*\{([^}]*)\}", css)}
    shape = {
        k: (("background-color" in rule[k]), re.search(r"underline (\w+)", rule[k]).group(1))
        for k in ("contradicted", "unsupported", "uncertain")
    }
    assert shape == {"contradicted": (True, "wavy"), "unsupported": (True, "dotted"), "uncertain": (False, "dashed")}
    assert "text-decoration" not in rule["other"], "an unknown label: a neutral wash, no line"


def test_three_grades_side_by_side_and_the_uncertain_card(ext, chat, stub, artifacts):
    check(ext, chat)
    marks = chat.evaluate(HIGHLIGHTS_JS)
    for label in ("contradicted", "unsupported", "uncertain", "supported"):
        assert sorted(marks.get(f"sourcecheck-{label}", [])) == of(label), label
    ui = ShadowUI(chat)
    toast = wait_until(lambda: ui.shown("toast"), what="the summary toast")
    said = ShadowUI.text(toast)
    assert "2 sentences not backed by your PDFs" in said
    assert "1 contradicted, 1 not supported, 2 not sure, 2 supported" in said
    assert "P(all" not in said and "%" not in said
    chat.screenshot(path=str(artifacts / "grades-toast.png"))
    ui.click(ui.find("close", ui.shown("toast"))[0])
    wait_until(lambda: not ui.shown("toast"), what="the toast closed")
    chat.locator("main").screenshot(path=str(artifacts / "grades.png"))  # extension/docs/grades.png

    text = "Café owners liked it très much 🚀."
    card = hover_uncertain(chat, ui, text, "the uncertain card")
    said = ShadowUI.text(card)
    assert "Not sure: check it yourself" in said and "P(supported) 38%" in said
    assert UNCERTAIN_CRITIQUE in said and "fava.pdf · p. 2" in said
    assert ui.find("apply", card)[0] is None and ui.find("revised", card)[0] is None
    assert said.count("This judge is not calibrated yet") == 1
    chat.screenshot(path=str(artifacts / "grades-card.png"))


def test_a_sentence_read_a_second_time_says_so_on_its_card_and_in_the_toast_then_takes_its_new_grade(ext, chat, stub):
    text = "The retrieval component uses Contriever to find relevant passages."
    stub.reread[text] = ("supported", 0.81)
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    ui = ShadowUI(chat)
    toast = wait_until(lambda: (t := ui.shown("toast")) and "reading 1 again" in ShadowUI.text(t) and t, what="toast")
    assert "6 of 6 sentences checked" in ShadowUI.text(toast)
    card = hover_uncertain(chat, ui, text, "the card of the sentence read again")
    said = ShadowUI.text(card)
    assert "Not sure yet: reading it again against each passage on its own" in said
    assert UNCERTAIN_CRITIQUE not in said  # the first read's note is not its last word
    stub.second_read.set()
    wait_until(lambda: (ext.last_check() or {}).get("status") == "done", what="the check done")
    marks = chat.evaluate(HIGHLIGHTS_JS)
    assert text in marks.get("sourcecheck-supported", []) and text not in marks.get("sourcecheck-uncertain", [])


def test_the_panel_lists_the_most_doubtful_first_and_counts_the_grades(ext, chat, stub, artifacts):
    check(ext, chat)
    panel = ext.open_panel()
    panel.wait_for_selector("#result-list li[data-label=uncertain]")
    rows = panel.locator("#result-list li")
    labels = [rows.nth(i).get_attribute("data-label") for i in range(rows.count())]
    assert labels == ["contradicted", "unsupported", *["uncertain"] * 2, *["supported"] * 2, *["skipped"] * 3], labels
    # among the uncertain ones, the lower P(supported) first: Café (0.38) before the retrieval sentence (0.46)
    assert rows.nth(2).inner_text().find("Café") >= 0 and rows.nth(3).inner_text().find("Contriever") >= 0
    summary = panel.locator("#results-summary").inner_text()
    assert summary.startswith("1 contradicted, 1 not supported, 2 not sure, 2 supported, 3 skipped"), summary
    assert "P(all" not in summary and "not calibrated" in summary
    panel.screenshot(path=str(artifacts / "grades-panel.png"), full_page=True)
    history = wait_until(lambda: ext.stored().get("history"), what="the kept check")
    with panel.expect_download() as info:
        panel.wait_for_selector("#history-list li.history button.export").click()
    md = open(info.value.path(), encoding="utf-8").read()
    assert (
        "- Result: 1 contradicted, 1 not supported, 2 not sure, 2 supported, 3 skipped\n- Judge: not calibrated" in md
    )
    assert "P(all" not in md and "## 6. Not sure: check it yourself · P(supported) 38%" in md
    assert history[0]["counts"]["uncertain"] == 2


def test_revise_all_says_of_uncertain_sentences_that_they_were_checked_neither_way(ext, chat, stub):
    """Issue 50: an uncertain sentence is not wrong; Revise all lists it apart from the unsupported one, saying it was
    not sure either way, not that no revision the PDFs support was found."""
    check(ext, chat)
    panel = ext.open_panel()
    panel.click("#revise-all")
    panel.wait_for_selector("#revision:not([hidden])", timeout=30000)
    rows = panel.locator("#revision-diff li.unrevised").evaluate_all(
        "(lis) => lis.map((li) => [li.querySelector('.text').textContent, li.querySelector('.note').textContent])"
    )
    unsure = "left as written: not sure either way, so no revision is offered"
    assert sorted(rows) == sorted(
        [[t, unsure] for t in of("uncertain")]
        + [[t, "left as written: no revision your PDFs support"] for t in of("unsupported")]
    )
    assert panel.locator("#revision-diff ins").all_inner_texts() == ["7B"]
    assert panel.locator("#revise-msg").inner_text() == (
        "1 sentence revised, 3 left as written; the rest as you wrote it."
    )


def test_calibrate_the_judge_from_the_side_panel(ext, stub, artifacts):
    panel = ext.open_panel()
    panel.wait_for_selector("#calibration:not([hidden])")
    state = panel.locator("#calibration-state")
    wait_until(lambda: "not calibrated yet" in state.inner_text(), what="the judge said uncalibrated")
    assert "not calibrated" in panel.locator("#status-model").inner_text()
    stub.step = 12  # slow: one twentieth a second
    panel.click("#calibrate")  # says what it will do and about how long, and asks: nothing starts yet
    ask = panel.locator("#calibrate-ask-text")
    wait_until(lambda: ask.is_visible() and "240 labelled sentences" in ask.inner_text(), what="the question")
    assert "minutes" in ask.inner_text() and "POST" not in stub.calls
    panel.click("#calibrate-not-now")
    assert not ask.is_visible() and "POST" not in stub.calls and panel.locator("#calibrate").is_visible()
    panel.click("#calibrate")
    panel.click("#calibrate-start")
    msg = panel.locator("#calibrate-msg")
    wait_until(lambda: re.search(r"^\d+ of 240 sentences · about \d+ min left$", msg.inner_text()), what="progress")
    assert panel.locator("#calibrate-progress").is_visible()
    assert panel.locator("#calibrate-progress").get_attribute("max") == "240"
    panel.locator("#calibration").screenshot(path=str(artifacts / "calibrate-progress.png"))
    panel.click("#calibrate-cancel")
    wait_until(lambda: "cancelled" in msg.inner_text(), what="the cancel")
    assert "DELETE" in stub.calls and not panel.locator("#calibrate-progress").is_visible()
    stub.step = 80
    panel.click("#calibrate")
    panel.click("#calibrate-start")
    wait_until(lambda: "Calibrated" in msg.inner_text(), what="the calibration to finish")
    wait_until(lambda: "This judge is calibrated." == state.inner_text(), what="the judge said calibrated")
    assert state.get_attribute("title") == "2026-05-01"  # how it was fitted: on hover, not in the column
    wait_until(lambda: "not calibrated" not in panel.locator("#status-model").inner_text(), what="the status line")
    # polled once a second, not faster
    assert 3 <= stub.calls.count("GET") - 2 <= 8, stub.calls  # (two GETs were the questions before each start)


def test_a_label_this_version_does_not_know_is_a_neutral_mark(ext, chat, stub):
    stub.grades["Café owners liked it très much 🚀."] = ("refuted", 0.2)
    check(ext, chat)
    marks = wait_until(lambda: chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-other"), what="the neutral mark")
    assert marks == ["Café owners liked it très much 🚀."]
    panel = ext.open_panel()
    chip = panel.wait_for_selector("#result-list li[data-label=refuted] .chip")
    assert chip.inner_text() == "refuted"
    assert "1 refuted" in panel.locator("#results-summary").inner_text()


@pytest.fixture
def steered(ext, tmp_path):
    """The real backend with the fake judge, in this process so that its P(Yes) can be steered per sentence (GRADES:
    uncertain ones into the middle of the judge's band); its own folders (a calibration written here stays here).
    The fake judge is not the one the shipped calibration was fitted for: it is uncalibrated."""
    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.services import get_services
    from werkzeug.serving import make_server

    port, token = free_port(), secrets.token_hex(16)
    app = create_app(
        {
            "INDEX_DIR": str(tmp_path / "index"),
            "MODELS_DIR": str(tmp_path / "models"),
            "BACKEND": "fake",
            "EMBEDDINGS": "hash",
            "TOKEN": token,
            "PORT": port,
        }
    )
    svc = get_services(app)
    judge, model = svc.judge(), svc.model()
    (low, high), a, b = judge.band, judge.calibration.get("a", 1.0), judge.calibration.get("b", 0.0)
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    middle = 1 / (1 + math.exp(-(logit((low + high) / 2) - b) / a))  # the raw P(Yes) that calibrates to mid-band
    raw = {t: {"supported": 0.97, "uncertain": middle}.get(g, 0.03) for t, (g, _) in GRADES.items()}
    alone = dict(raw)  # the second read (one excerpt a prompt): an uncertain sentence lands mid its second band
    if judge.second:
        (a1, a2), b2 = judge.second["a"], judge.second["b"]
        low2, high2 = judge.second_bands["balanced"]
        z = (logit((low2 + high2) / 2) - b2 - a1 * logit(middle)) / a2
        alone = {t: (1 / (1 + math.exp(-z)) if p == middle else p) for t, p in raw.items()}
    plain = model.choose

    def choose(messages, choices, state=False):
        claim = re.search(r"^Claim: (.*)$", messages[-1]["content"], re.MULTILINE)
        one = "[1]" in messages[-1]["content"] and "[2]" not in messages[-1]["content"]
        p = (alone if one else raw).get(claim.group(1).strip()) if claim else None
        if p is None:
            return plain(messages, choices, state)
        return {choices[0]: p, choices[1]: 1 - p}, choices[0] if p > 0.5 else choices[1], None

    model.choose = choose
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = app.test_client()
    auth = {"Authorization": f"Bearer {token}", "Host": f"127.0.0.1:{port}"}
    pdf = write_fava(tmp_path / "fava.pdf")
    with open(pdf, "rb") as f:
        doc = client.post("/api/v1/documents", data={"file": (f, "fava.pdf")}, headers=auth).get_json()["documents"][0]
    ready = lambda: client.get(f"/api/v1/documents/{doc['id']}", headers=auth).get_json()["document"]["status"]  # noqa: E731
    wait_until(lambda: ready() == "ready", timeout=60, what="the PDF ingested")
    ext.storage({"backendUrl": f"http://127.0.0.1:{port}", "token": token})
    yield svc
    server.shutdown()
    svc.close()


def test_through_the_real_backend_uncertain_sentences_and_an_uncalibrated_judge(ext, chat, steered, artifacts):
    lc = check(ext, chat)
    labels = {s["text"]: s["label"] for s in lc["sentences"] if s["label"] != "skipped"}
    assert labels == {t: g for t, (g, _) in GRADES.items()}, labels
    assert (lc["judge"]["name"], lc["judge"]["calibrated"]) == ("fake", False) and lc["counts"]["uncertain"] == 2
    marks = chat.evaluate(HIGHLIGHTS_JS)
    assert sorted(marks["sourcecheck-uncertain"]) == of("uncertain")
    ui = ShadowUI(chat)
    for label in ("uncertain", "contradicted"):
        text = of(label)[0]
        chat.evaluate(
            """([name, t]) => { const r = [...CSS.highlights.get(name)].find((r) => r.toString().trim() === t);
            const b = r.getClientRects()[0]; window.__at = [b.left + 20, b.top + b.height / 2]; }""",
            [f"sourcecheck-{label}", text],
        )
        chat.mouse.move(*chat.evaluate("() => window.__at"))
        card = wait_until(
            lambda label=label: (c := ui.shown("card")) and ui.find("card")[1].get("data-label") == label and c,
            what=f"the {label} card",
        )
        said = ShadowUI.text(card)
        assert said.count("This judge is not calibrated yet") == 1, said
        if label == "uncertain":
            assert "sourcecheck is not sure: the closest passage is" in said and "fava.pdf" in said
            assert ui.find("apply", card)[0] is None and ui.find("revised", card)[0] is None
        chat.mouse.move(5, 5)
        wait_until(lambda: not ui.shown("card"), what="the card closed")
    panel = ext.open_panel()
    wait_until(lambda: "not calibrated" in panel.locator("#status-model").inner_text(), what="the model's line")
    panel.wait_for_selector("#calibration:not([hidden])")
    assert "not calibrated yet" in panel.locator("#calibration-state").inner_text()


def test_through_the_real_backend_calibrate_the_judge_from_the_panel(ext, chat, steered):
    try:
        from importlib import resources

        resources.files("sourcecheck").joinpath("calibration_set.jsonl.gz").read_bytes()
    except FileNotFoundError:
        pytest.skip("the calibration set is not in the package yet")
    panel = ext.open_panel()
    panel.wait_for_selector("#calibration:not([hidden])")
    wait_until(lambda: "not calibrated yet" in panel.locator("#calibration-state").inner_text(), what="uncalibrated")
    panel.click("#calibrate")
    from sourcecheck.judging.calibrate import calibration_size

    asked = panel.locator("#calibrate-ask-text")  # the real backend's count of what it will read
    wait_until(lambda: f"reads {calibration_size()} labelled sentences" in asked.inner_text(), what="the question")
    panel.click("#calibrate-start")
    msg = panel.locator("#calibrate-msg")
    wait_until(lambda: "Calibrated" in msg.inner_text(), timeout=300, interval=0.5, what="the calibration")
    wait_until(
        lambda: "This judge is calibrated" in panel.locator("#calibration-state").inner_text(), what="calibrated"
    )
    wait_until(lambda: "not calibrated" not in panel.locator("#status-model").inner_text(), what="the model's line")
    judged = check(ext, chat)["judge"]
    assert (judged["name"], judged["calibrated"]) == ("fake", True)
