"""scripts/bench --only parallel: one check against a remote judge that answers every call after a fixed delay,
its sentences scored one at a time and JUDGE_CONCURRENCY at once. Model-free and quick: the judge is a stub
OpenAI-compatible server on 127.0.0.1, the library one small PDF with hash embeddings."""

from __future__ import annotations

import http.server
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: imported where they are used, to keep this module light
    from sourcecheck.library import Library

# The PDF says the first seven; the stub answers No to the three that say "reportedly", so they get critiques.
SAID = [
    "The Golden Gate Bridge opened to traffic in the spring.",
    "The bridge is painted International Orange.",
    "The colour was chosen by consulting architect Irving Morrow.",
    "The colour complements the natural surroundings of the strait.",
    "The colour keeps the bridge visible in fog.",
    "The bridge was the longest suspension bridge span in the world.",
    "The bridge connects San Francisco to Marin County.",
]
INVENTED = [
    "The bridge was reportedly painted by robots.",
    "The towers were reportedly designed by a committee of poets.",
    "The cables are reportedly spun from recycled glass.",
]
TEXT = " ".join(SAID[:3] + INVENTED[:1] + SAID[3:5] + INVENTED[1:2] + SAID[5:] + INVENTED[2:])
CRITIQUE = "Critique: The sources do not mention this.\nError type: unverifiable\nRevised: none"


class StubJudge:
    """An OpenAI-compatible chat server that answers after `delay` seconds, counting the requests it holds at
    once (`peak`). Yes (with log-probabilities) unless the claim says "reportedly"; a critique when asked to
    write."""

    def __init__(self, delay: float) -> None:
        self.delay, self.requests, self.inside, self.peak = delay, 0, 0, 0
        self._lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with stub._lock:
                    stub.requests += 1
                    stub.inside += 1
                    stub.peak = max(stub.peak, stub.inside)
                try:
                    time.sleep(stub.delay)  # the server's work; a batching server does it for all at once
                    reply = json.dumps(stub.reply(body)).encode()
                finally:
                    with stub._lock:
                        stub.inside -= 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @staticmethod
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        claim = body["messages"][-1]["content"].rsplit("Claim:", 1)[-1]
        choice = {"index": 0, "finish_reason": "stop"}
        if body.get("logprobs"):
            yes, no = (-2.3, -0.1) if "reportedly" in claim else (-0.1, -2.3)
            word = "Yes" if yes > no else "No"
            top = [{"token": "Yes", "logprob": yes, "bytes": None}, {"token": "No", "logprob": no, "bytes": None}]
            choice.update(
                message={"role": "assistant", "content": word},
                logprobs={"content": [{"token": word, "logprob": max(yes, no), "bytes": None, "top_logprobs": top}]},
            )
        else:
            choice.update(message={"role": "assistant", "content": CRITIQUE})
        return {"id": "stub", "object": "chat.completion", "created": 0, "model": "stub", "choices": [choice]}

    def reset(self) -> None:
        with self._lock:
            self.requests, self.peak = 0, 0

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def stub_pdf(folder: str | Path) -> Path:
    """A one-page PDF that says SAID; its path."""
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 545, 790), " ".join(SAID), fontsize=11)
    path = Path(folder) / "bridge.pdf"
    doc.save(str(path))
    doc.close()
    return path


def stub_library(folder: str | Path) -> Library:
    """A library of stub_pdf() (hash embeddings: no model)."""
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding

    path = stub_pdf(folder)
    library = Library(None, HashEmbedding())
    added, _ = library.add_pdf(path.read_bytes(), path.name)
    library.ingest(added["id"])
    return library


def run_check(library: Library, url: str, concurrent: int) -> list[dict[str, Any]]:
    """The events of one check of TEXT judged by the server at url, with `concurrent` calls at once."""
    from sourcecheck.check import check_text
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm.openai_compat import OpenAIModel

    judge = Judge(OpenAIModel(url, "stub", timeout=30, concurrent=concurrent), calibration={"a": 1.0, "b": 0.0})
    return list(check_text(TEXT, library, judge))


def bench_parallel(r: dict[str, Any], delay: float = 0.2, concurrent: int = 4) -> dict[str, Any]:
    """Wall time of the same check one call at a time and `concurrent` at once; r["parallel"]."""
    stub = StubJudge(delay)
    try:
        with tempfile.TemporaryDirectory() as folder:
            library = stub_library(folder)
            out: dict[str, Any] = {"delay_s": delay, "concurrent": concurrent}
            for name, n in (("one_at_a_time", 1), ("at_once", concurrent)):
                stub.reset()
                library.sentence_vectors.clear()  # both runs embed alike
                t = time.perf_counter()
                run_check(library, stub.url, n)
                out[name] = {"s": time.perf_counter() - t, "requests": stub.requests, "peak": stub.peak}
            out["speedup"] = out["one_at_a_time"]["s"] / out["at_once"]["s"]
    finally:
        stub.close()
    r["parallel"] = out
    print(f"  parallel: {out}", flush=True)
    return out
