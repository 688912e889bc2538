"""PDF text extraction in a child process of its own, with a time and a memory limit: a hostile or broken PDF
(a decompression bomb, a page that never finishes) fails with a clear error instead of taking the server down."""

import multiprocessing
import threading
from dataclasses import asdict

from sourcecheck.errors import PDFError
from sourcecheck.pdf import ParsedPDF, parse_pdf


class IsolatedParser:
    """parse_pdf(data) in one long-lived child process (started on first use, restarted after a failure)."""

    def __init__(self, timeout=60.0, memory_mb=1536):
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._lock = threading.Lock()  # one PDF at a time: ingest is one document at a time anyway
        self._process = self._conn = None

    def __call__(self, data):
        with self._lock:
            for attempt in (1, 2):  # a child that left since the last file (idle, see serve) is replaced once
                conn = self._child()
                try:
                    conn.send_bytes(data)
                except OSError:
                    self.close()
                    continue
                if not conn.poll(self.timeout):
                    self.close()
                    raise PDFError(f"Reading the PDF took longer than {self.timeout:g} s (the PARSE_TIMEOUT_S "
                                   "setting); it may be damaged or built to hang readers.", code="pdf_timeout")
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    self._process.join(5)
                    idle = self._process.exitcode == 0  # it left before it read this PDF
                    self.close()
                    if idle:
                        continue
                    # it died: the memory limit, or a crash in the PDF library
                    raise PDFError(_TOO_BIG.format(self.memory_mb), code="pdf_too_complex") from None
                if kind == "ok":
                    return ParsedPDF(**payload)
                raise PDFError(payload["message"], code=payload["code"])
            raise PDFError("The PDF reader could not be started.", code="pdf_reader_failed", status=500)

    def close(self):
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
            self._conn.close()
        self._process = self._conn = None

    def _child(self):
        if self._process is None or not self._process.is_alive():
            self.close()
            ctx = multiprocessing.get_context("spawn")  # fork is unsafe in a threaded server
            self._conn, child = ctx.Pipe()
            self._process = ctx.Process(target=serve, args=(child, self.memory_mb), name="sourcecheck-pdf",
                                        daemon=True)
            self._process.start()
            child.close()
        return self._conn


IDLE_EXIT_S = 30.0
_TOO_BIG = ("Reading the PDF needs more than {} MB of memory (the PARSE_MEMORY_MB setting); it may be damaged or "
            "built to exhaust readers.")


def serve(conn, memory_mb):
    """The child: parse each PDF it is sent, answer ("ok", fields) or ("error", {code, message})."""
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
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            conn.send(("ok", asdict(parse_pdf(data))))
        except PDFError as e:
            conn.send(("error", e.to_dict()))
        except MemoryError:
            conn.send(("error", {"code": "pdf_too_complex", "message": _TOO_BIG.format(memory_mb)}))
        except Exception as e:  # noqa: BLE001 - anything the PDF library raises is this PDF's fault
            big = "malloc" in str(e).lower() or "memory" in str(e).lower()
            conn.send(("error", {"code": "pdf_too_complex" if big else "pdf_corrupt",
                                 "message": _TOO_BIG.format(memory_mb) if big else
                                 f"The PDF is damaged and cannot be read ({str(e)[:200]})."}))
