"""PDF text extraction in a child process of its own, with a time and a memory limit: a hostile or broken PDF
(a decompression bomb, a page that never finishes) fails with a clear error instead of taking the server down."""

import multiprocessing
import signal
import threading
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, cast

from sourcecheck.errors import PDFError, out_of_memory
from sourcecheck.pdf import ParsedPDF, open_pdf, parse_pdf


class IsolatedParser:
    """parse_pdf(data) in one long-lived child process (started on first use, restarted after a failure)."""

    _process: BaseProcess | None
    _conn: Connection | None

    def __init__(self, timeout: float = 60.0, memory_mb: int = 1536) -> None:
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._lock = threading.Lock()  # one PDF at a time: ingest is one document at a time anyway
        self._process = self._conn = None

    def __call__(self, data: bytes, on_page: Callable[[int, int], object] | None = None) -> ParsedPDF:
        """The PDF's text and metadata (pdf.parse_pdf), read in the child; on_page(done, total) as pages are read."""
        return ParsedPDF(**self._ask(("parse", data), on_page))

    def check(self, data: bytes, max_pages: int | None = None) -> None:
        """pdf.open_pdf in the child: raises PDFError for what is not a usable PDF (the upload's quick check)."""
        self._ask(("check", data, max_pages))

    def _reply(self, conn: Connection, on_page: Callable[[int, int], object] | None) -> tuple[str, Any] | None:
        """The child's answer, its page reports passed on meanwhile; None when it died. The time limit is for
        each report, so a long scan read by OCR goes on while its pages keep coming."""
        while True:
            if not conn.poll(self.timeout):
                self.close()
                raise PDFError(
                    f"Reading a page of the PDF took longer than {self.timeout:g} s (the PARSE_TIMEOUT_S "
                    "setting); it may be damaged or built to hang readers.",
                    code="pdf_timeout",
                )
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                return None
            if kind != "page":
                return kind, payload
            if on_page:
                on_page(*payload)

    def _ask(self, message: tuple[Any, ...], on_page: Callable[[int, int], object] | None = None) -> Any:
        with self._lock:
            for _attempt in (1, 2):  # a child that left since the last file (idle, see serve) is replaced once
                conn, process = self._child()
                try:
                    conn.send(message)
                except OSError:
                    self.close()
                    continue
                reply = self._reply(conn, on_page)
                if reply is None:  # the child is gone
                    process.join(5)
                    idle = process.exitcode == 0  # it left before it read this PDF
                    self.close()
                    if idle:
                        continue
                    # it died: the memory limit, or a crash in the PDF library
                    raise PDFError(_TOO_BIG.format(self.memory_mb), code="pdf_too_complex") from None
                kind, payload = reply
                if kind == "ok":
                    return payload
                if payload["code"] == "pdf_too_complex":
                    # it ran out of memory: MuPDF does not free what it held when an allocation failed, so this
                    # child stays at its limit and every later PDF would fail in it too; the next one gets a new one
                    self.close()
                raise PDFError(payload["message"], code=payload["code"], status=payload.get("status"))
            raise PDFError("The PDF reader could not be started.", code="pdf_reader_failed", status=500)

    def close(self) -> None:
        """Stop the child (also from another thread, while a PDF is being read: that read then fails)."""
        process, conn, self._process, self._conn = self._process, self._conn, None, None
        if process is not None:
            process.kill()
            process.join(5)
            cast(Connection, conn).close()  # set with the process

    def _child(self) -> tuple[Connection, BaseProcess]:
        conn, process = self._conn, self._process  # read once: close() may clear them from another thread
        if process is not None and conn is not None and process.is_alive():
            return conn, process
        self.close()
        ctx = multiprocessing.get_context("spawn")  # fork is unsafe in a threaded server
        conn, child = ctx.Pipe()
        process = ctx.Process(target=serve, args=(child, self.memory_mb), name="sourcecheck-pdf", daemon=True)
        try:
            process.start()
        except BaseException:  # no child: no half-set connection left for the next call to use
            conn.close()
            raise
        finally:
            child.close()
        self._conn, self._process = conn, process
        return conn, process


IDLE_EXIT_S = 30.0
_TOO_BIG = (
    "Reading the PDF needs more than {} MB of memory (the PARSE_MEMORY_MB setting); it may be damaged or "
    "built to exhaust readers."
)


def serve(conn: Connection, memory_mb: int) -> None:
    """The child: parse each PDF it is sent, answer ("ok", fields) or ("error", {code, message})."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops this process itself
    try:
        import resource  # POSIX only: elsewhere only the time limit applies

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    except (ImportError, ValueError, OSError):
        pass
    while True:
        try:
            if not conn.poll(IDLE_EXIT_S):
                return  # nothing to read for a while: give its memory back (the next PDF starts a new one)
            task, data, *rest = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if task == "check":
                open_pdf(data, *rest).close()
                conn.send(("ok", None))
            else:
                conn.send(("ok", asdict(parse_pdf(data, lambda done, total: conn.send(("page", (done, total)))))))
        except PDFError as e:
            conn.send(("error", {**e.to_dict(), "status": e.status}))
        except MemoryError:
            conn.send(("error", {"code": "pdf_too_complex", "message": _TOO_BIG.format(memory_mb)}))
        except Exception as e:  # noqa: BLE001 - anything the PDF library raises is this PDF's fault
            big = out_of_memory(e)
            conn.send(
                (
                    "error",
                    {
                        "code": "pdf_too_complex" if big else "pdf_corrupt",
                        "message": _TOO_BIG.format(memory_mb)
                        if big
                        else f"The PDF is damaged and cannot be read ({str(e)[:200]}).",
                    },
                )
            )
