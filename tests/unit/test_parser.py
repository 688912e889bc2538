"""The PDF reader's child process: a real PDF parses as in-process; a hang and a memory blow-up end in clear
errors, and the next PDF parses again."""

import os
import signal
import sys
import threading

import pytest
from fuzz_pdfs import flate_bomb, text_bomb
from pdfs import BRIDGE_PAGES, make_pdf
from sourcecheck.errors import PDFError
from sourcecheck.pdf import parse_pdf
from sourcecheck.pdf.parser import IsolatedParser


@pytest.fixture
def parser():
    p = IsolatedParser(timeout=20, memory_mb=1024)
    yield p
    p.close()


def test_a_pdf_parses_in_the_child_as_in_process(parser, tmp_path):
    data = make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES, title="Bridge").read_bytes()
    assert parser(data) == parse_pdf(data)
    with pytest.raises(PDFError) as err:
        parser(b"%PDF-1.7\n garbage")
    assert err.value.code == "pdf_corrupt"
    assert parser(data).pages == parse_pdf(data).pages  # the same child goes on
    parser.check(data)  # the upload's quick check, in the child too
    with pytest.raises(PDFError) as err:
        parser.check(b"<html>not a pdf</html>")
    assert (err.value.code, err.value.status) == ("not_a_pdf", 415)
    with pytest.raises(PDFError) as err:
        parser.check(data, max_pages=1)
    assert (err.value.code, err.value.status) == ("pdf_too_long", 413)


@pytest.mark.skipif(os.name != "posix", reason="SIGSTOP")
def test_a_hang_and_a_dead_reader_give_clear_errors_and_the_next_pdf_parses(parser, tmp_path):
    data = make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES).read_bytes()
    parser.timeout = 0.0  # no answer in time
    with pytest.raises(PDFError) as err:
        parser(data)
    assert err.value.code == "pdf_timeout" and "PARSE_TIMEOUT_S" in err.value.message
    parser.timeout = 20
    assert parser(data).pages  # a new child
    with pytest.raises(PDFError) as err:  # a decompression bomb is answered like any unusable PDF
        parser(flate_bomb(256))
    assert err.value.code == "pdf_no_text"
    # a reader killed part-way (the OOM killer, the memory limit): a clear error, not a hang. Frozen first, so
    # that it dies holding the PDF, as a reader at its limit does.
    os.kill(parser._process.pid, signal.SIGSTOP)
    threading.Timer(0.5, parser._process.kill).start()
    with pytest.raises(PDFError) as err:
        parser(data)
    assert err.value.code == "pdf_too_complex" and "PARSE_MEMORY_MB" in err.value.message
    assert parser(data).pages


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory limit is RLIMIT_AS, set on Linux")
def test_a_pdf_that_needs_more_memory_than_the_limit_is_refused_and_the_reader_recovers(parser, tmp_path):
    """A 30 KB file whose one page shows 40 million characters: reading its text needs GBs. The reader stops at
    PARSE_MEMORY_MB (here 400) with a clear error, the server's own memory never held it, and the next PDF parses."""
    bomb = text_bomb(40)
    assert len(bomb) < 100_000
    parser.memory_mb, parser.timeout = 400, 120
    parser.close()  # the limit is set when the reader starts
    with pytest.raises(PDFError) as err:
        parser(bomb)
    assert err.value.code == "pdf_too_complex" and "PARSE_MEMORY_MB" in err.value.message
    assert parser(make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES).read_bytes()).pages


def test_pages_are_reported_as_they_are_read(parser, tmp_path):
    """The child reports each page (the side panel's bar moves while a long scan is read by OCR); the time
    limit applies to each report, not to the whole PDF."""
    seen = []
    parsed = parser(make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES).read_bytes(), on_page=lambda *p: seen.append(p))
    assert seen == [(1, 2), (2, 2)] and len(parsed.pages) == 2


def test_a_reader_that_could_not_start_is_started_again_for_the_next_pdf(parser, tmp_path, monkeypatch):
    from multiprocessing.context import SpawnProcess

    data = make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES, title="Bridge").read_bytes()
    start = SpawnProcess.start

    def fail_once(self):
        monkeypatch.setattr(SpawnProcess, "start", start)
        raise OSError("out of processes")

    monkeypatch.setattr(SpawnProcess, "start", fail_once)
    with pytest.raises(OSError, match="out of processes"):
        parser(data)
    assert parser(data) == parse_pdf(data)  # no half-set connection or unstarted process left in the way
