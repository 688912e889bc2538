"""The objects one app or CLI run shares, created on first use: settings, guard, library, model, judge, ingest."""

from __future__ import annotations

import logging
import queue
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck.errors import IndexUnreachable, SourcecheckError
from sourcecheck.judging import calibration
from sourcecheck.judging.calibrate import Progress, calibrate, calibration_size
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import make_embedding_function
from sourcecheck.llm import load_model
from sourcecheck.llm.base import Model
from sourcecheck.pdf.parser import IsolatedParser
from sourcecheck.serve.machine import Load
from sourcecheck.serve.security import Guard
from sourcecheck.zotero.sync import Syncer

if TYPE_CHECKING:
    from flask import Flask

EXTENSION = "sourcecheck"  # the key of the Services in app.extensions
log = logging.getLogger("sourcecheck")
RETRY_S = 10.0  # an ingest stopped by an unreachable Chroma server is tried again after this long


def get_services(app: Flask | None = None) -> Services:
    """The one way to reach an app's Services (the current Flask app's when app is None)."""
    if app is None:
        from flask import current_app  # imported here: the CLI's commands without an app need no Flask

        app = current_app
    return app.extensions[EXTENSION]


class Services:
    """Settings plus lazily created services; create_app puts one on app.extensions."""

    _library: Library | None
    _model: Model | None
    _judge: Judge | None
    _guard: Guard | None
    _queue: queue.PriorityQueue[tuple[int, int, str]] | None
    _parser: IsolatedParser | None
    _checker: IsolatedParser | None
    _syncer: Syncer | None

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._library = self._model = self._judge = self._guard = None
        self._queue = None
        self._queued = 0  # documents queued so far: the order among those of one priority
        self._parser = self._checker = None
        self._syncer = None
        self._calibrating = Progress()
        self._stop_calibrating = threading.Event()
        self._closed = threading.Event()
        self._load: Load | None = None

    def load(self) -> Load:
        """The machine's load, sampled from the first call on (create_app makes it, so a first check has history)."""
        with self._lock:
            if self._load is None:
                self._load = Load()
            return self._load

    def guard(self) -> Guard:
        with self._lock:
            if self._guard is None:
                self._guard = Guard(self.settings)  # reads (or creates) the token in the index folder
            return self._guard

    def syncer(self) -> Syncer:
        """The Zotero sync (zotero.sync.Syncer): its PDFs go to this server's ingest queue."""
        with self._lock:
            if self._syncer is None:
                self._syncer = Syncer(self.settings["INDEX_DIR"], self.library, self.queue_ingest)
                if self._closed.is_set():  # made after close() (a request still under way): it starts nothing
                    self._syncer.stop()
            return self._syncer

    def library(self) -> Library:
        with self._lock:
            if self._library is None:
                s = self.settings
                # two readers: an upload's quick check does not wait behind a long ingest
                self._parser = IsolatedParser(s["PARSE_TIMEOUT_S"], s["PARSE_MEMORY_MB"])
                self._checker = IsolatedParser(min(30.0, s["PARSE_TIMEOUT_S"]), s["PARSE_MEMORY_MB"])
                self._library = Library(
                    s["INDEX_DIR"],
                    make_embedding_function(s["EMBEDDINGS"]),
                    s["CHUNK_WORDS"],
                    s["MAX_PAGES"],
                    self._parser,
                    self._checker.check,
                    s["MAX_LIBRARY_MB"],
                    s["CHROMA_URL"],
                    s["MAX_UPLOAD_MB"],
                )
            return self._library

    def model(self) -> Model:
        with self._lock:
            if self._model is None:
                self._model = load_model(self.settings)
            return self._model

    def judge(self) -> Judge:
        model = self.model()
        scale = self.calibration()[0]  # one small file: a calibration made meanwhile (the CLI) is taken up
        with self._lock:
            if self._judge is None or self._judge.calibration != scale:
                self._judge = Judge(model, sensitivity=self.settings["SENSITIVITY"], calibrations=self.calibrations())
            return self._judge

    def calibrations(self) -> str:
        """The folder of the judges' own calibrations: beside the models they belong to."""
        return str(Path(self.settings["MODELS_DIR"]) / "calibrations")

    def calibration(self) -> tuple[dict[str, Any], bool]:
        """(the scale the configured judge judges by, whether it was fitted for this judge): calibration.for_judge."""
        return calibration.for_judge(self.model().judge_id(), self.calibrations())

    def calibration_status(self) -> dict[str, Any]:
        scale, calibrated = self.calibration()
        with self._lock:
            status = self._calibrating.to_dict()
        if status["state"] == "idle":  # what a calibration would read, so the panel can say before it starts
            status["total"] = calibration_size()
        return {**status, "calibrated": calibrated, "sentences": scale.get("n") if calibrated else None}

    def start_calibration(self, limit: int | None = None, replace: bool = False) -> threading.Thread | None:
        """Calibrate the configured judge in the background (calibrate.py), unless that is running already; a
        check meanwhile waits its turn for the model. When it is done, the judge works on its new scale. A coarser
        calibration (limit) than the judge has is refused (calibration_coarser) unless replace is set."""
        judge = self.judge()
        if not replace:
            self.refuse_coarser(limit)
        with self._lock:
            if self._calibrating.state == "running":
                return None
            self._calibrating = Progress("running")
            self._stop_calibrating.clear()

        def report(progress: Progress) -> None:
            with self._lock:
                self._calibrating = Progress(**progress.to_dict())

        def work() -> None:
            try:
                found = calibrate(judge, limit, report, self._stop_calibrating.is_set)
                calibration.save(found, self.calibrations())
                with self._lock:
                    self._judge = None  # the next check judges on the new scale
                    self._calibrating.state, self._calibrating.eta_s = "done", 0.0
            except SourcecheckError as e:
                with self._lock:
                    self._calibrating.state = "cancelled" if e.code == "cancelled" else "failed"
                    self._calibrating.error = e.to_dict()
            except Exception as e:  # noqa: BLE001 - reported in the status, in the one error shape
                log.exception("calibration failed")
                with self._lock:
                    self._calibrating.state = "failed"
                    self._calibrating.error = {"code": "internal_error", "message": str(e) or type(e).__name__}

        thread = threading.Thread(target=work, name="sourcecheck-calibrate", daemon=True)
        thread.start()
        return thread

    def refuse_coarser(self, limit: int | None) -> None:
        """Raise calibration_coarser (409) when a calibration with this limit would read fewer sentences than the
        one the judge has: a quick, coarse one must not silently replace a finer one."""
        if limit is None:
            return  # a full calibration replaces anything
        own = calibration.file_for(self.calibrations(), self.model().judge_id())
        scale = calibration.for_judge(self.model().judge_id(), self.calibrations())[0] if own.is_file() else {}
        if calibration_size(limit) < (scale.get("n") or 0):  # the judge's own, not the shipped one
            raise SourcecheckError(
                f"This judge has a calibration on {scale['n']} sentences; one with limit {limit} reads only "
                f"{calibration_size(limit)} and would replace it with a coarser one. Calibrate without a limit, or "
                'replace it anyway (API: "replace": true; command line: --replace).',
                code="calibration_coarser",
                status=409,
            )

    def cancel_calibration(self) -> None:
        self._stop_calibrating.set()

    def queue_ingest(self, doc_id: str, again: bool = False) -> None:
        """Ingest in the background, one document at a time (embedding already uses every core). again: a ready
        document indexed again under a newer index version (Library.reindex), after every document waiting to be
        ingested, so an upload after an upgrade does not wait for the whole library."""
        with self._lock:
            if self._queue is None:
                self._queue = queue.PriorityQueue()
                threading.Thread(target=self._ingest_worker, name="sourcecheck-ingest", daemon=True).start()
            self._queued += 1
            self._queue.put((int(again), self._queued, doc_id))

    def resume_ingest(self) -> None:
        """Queue the documents a previous run left half-ingested, then those indexed under an older index version."""
        library = self.library()
        for doc_id in library.pending():
            self.queue_ingest(doc_id)
        for doc_id in library.outdated():
            self.queue_ingest(doc_id, again=True)

    def warm_up(self) -> threading.Thread:
        """Load the embedding model and the judge model in the background; read the prompts' opening (Judge.warm_up).

        The server answers at once; the first check then finds them loaded instead of paying ~20 s.
        """

        def work() -> None:
            try:
                library = self.library()
                library.embedding_function(["warm up"])  # loaded even while the library is empty
                library.search("warm up")  # Chroma's vectors and the lexical index's pages
                self.judge().warm_up()  # the model, and the prompts' opening read once
            except Exception:  # a missing or broken model is reported by /health and by the first check
                pass

        thread = threading.Thread(target=work, name="sourcecheck-warm-up", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """Stop ingesting (the server is stopping): what is queued or half-done is resumed at the next start; the
        index folder is released; a calibration running is cancelled; a Zotero sync stops after the attachment it is
        on and goes on from there at the next sync."""
        self._closed.set()
        self._stop_calibrating.set()
        with self._lock:
            library, readers, syncer = self._library, (self._parser, self._checker), self._syncer
            if self._load is not None:
                self._load.stop()
        if syncer is not None:
            syncer.stop()  # before the library closes: the sync writes to it
        if library is not None:
            library.stop()
            library.close()
        for reader in readers:
            if reader is not None:
                reader.close()

    def _ingest_worker(self) -> None:
        assert self._queue is not None  # queue_ingest creates it before it starts this thread
        while True:
            again, _, doc_id = self._queue.get()
            try:
                started = time.monotonic()
                doc = self.library().reindex(doc_id) if again else self.library().ingest(doc_id)
                took = f"{doc['pages']} pages, {doc['chunks']} chunks in {time.monotonic() - started:.1f} s"
                outcome = took if doc["status"] == "ready" else f"{doc['status']} ({(doc['error'] or {}).get('code')})"
                log.info("Ingested %s (%s): %s", doc_id, doc["filename"], outcome)
            except IndexUnreachable:  # the shared library's server is down: tried again until it answers
                timer = threading.Timer(RETRY_S, self.queue_ingest, [doc_id, bool(again)])
                timer.daemon = True
                timer.start()
            except Exception:  # deleted meanwhile, or a bug: the document records its own failure
                pass
            finally:
                self._queue.task_done()

    def wait_idle(self) -> None:
        """Block until queued ingestion is done (CLI and tests)."""
        if self._queue is not None:
            self._queue.join()
