import os
from pathlib import Path

import pytest
from pdfs import FAVA_PAGES, make_pdf
from sourcecheck.errors import SourcecheckError
from sourcecheck.pdf import files


def test_a_file_is_read_only_when_regular_and_within_the_limit_and_a_fifo_never_blocks(tmp_path):
    pdf = make_pdf(tmp_path / "a.pdf", FAVA_PAGES)
    assert files.read_regular(pdf, 10 * files.MB) == pdf.read_bytes()
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(pdf, 100)
    assert e.value.code == "too_large"
    fifo = tmp_path / "pipe.pdf"
    os.mkfifo(fifo)  # open() without O_NONBLOCK would wait for a writer forever
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(fifo, files.MB)
    assert e.value.code == "not_a_file"
    assert files.head(fifo, 8) == b"" and files.head(tmp_path / "none", 8) == b"" and files.head(pdf, 4) == b"%PDF"
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(tmp_path, files.MB)  # a folder
    assert e.value.code == "not_a_file"


def test_a_file_of_exactly_the_limit_is_read_and_a_byte_more_is_too_large_in_the_error_shape(tmp_path):
    path = tmp_path / "big.pdf"
    path.write_bytes(b"%PDF-" + b"x" * (3 * files.MB - 5))
    assert len(files.read_regular(path, 3 * files.MB)) == 3 * files.MB
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(path, 3 * files.MB - 1)
    assert e.value.code == "too_large"
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(path, 2 * files.MB)
    assert e.value.status == 413 and e.value.to_dict() == {
        "code": "too_large",
        "message": "big.pdf is 3 MB, larger than the 2 MB a PDF may be (MAX_UPLOAD_MB).",
    }
    assert "is 2,048 MB, larger than the 100 MB" in files.too_large(path, 2048 * files.MB, 100 * files.MB).message


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="Linux's /proc")
def test_a_file_longer_than_its_size_says_is_read_no_further_than_the_limit():
    proc = Path("/proc/self/cmdline")  # a regular file of size 0 that reads as this process's command line
    assert os.stat(proc).st_size == 0
    with pytest.raises(SourcecheckError) as e:
        files.read_regular(proc, 8)
    assert e.value.code == "too_large"


def test_a_missing_file_is_an_os_error_and_head_reads_at_most_the_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        files.read_regular(tmp_path / "gone.pdf", files.MB)
    short = tmp_path / "short.pdf"
    short.write_bytes(b"%PDF-1.7")
    assert files.head(short, 1024) == b"%PDF-1.7" and files.head(tmp_path, 4) == b""


def test_a_new_private_folder_is_the_owner_s_alone_and_an_existing_one_keeps_its_mode(tmp_path):
    umask = os.umask(0o177)  # mkdir's 0700 would come out 0600: the chmod after it makes it 0700
    try:
        files.private_folder(tmp_path / "new")
    finally:
        os.umask(umask)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    files.private_folder(tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b").is_dir() and (tmp_path / "a" / "b").stat().st_mode & 0o777 == 0o700
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    files.private_folder(shared)
    assert shared.stat().st_mode & 0o777 == 0o755
