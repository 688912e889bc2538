"""Generated hostile and broken PDFs for the fuzz suite, reproducible from their index."""

import functools
import random
import zlib

import pymupdf
from pdfs import BRIDGE_PAGES, FAVA_PAGES

KINDS = (
    "truncated",
    "flipped",
    "spliced",
    "broken_xref",
    "not_pdf",
    "nested",
    "encrypted",
    "zero_pages",
    "javascript",
    "bomb",
    "blank_pages",
    "valid",
)


def base_pdfs():
    out = []
    for pages, title in ((BRIDGE_PAGES, "Bridge"), (FAVA_PAGES, "FAVA")):
        doc = pymupdf.open()
        for text in pages:
            doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 545, 790), text, fontsize=11)
        doc.set_metadata({"title": title})
        out.append(doc.tobytes())
    return out


def make(i, bases):
    """(kind, filename, bytes) of fuzz file i: most kinds often, the costly ones (bombs, 3,000 pages) a few times."""
    rng = random.Random(i)
    kind = KINDS[i % len(KINDS)]
    base = bases[i % len(bases)]
    if kind == "truncated":
        data = base[: rng.randrange(1, len(base))]
    elif kind == "flipped":
        data = bytearray(base)
        for _ in range(rng.choice((1, 4, 32, 256))):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
    elif kind == "spliced":
        other = bases[(i + 1) % len(bases)]
        data = base[: rng.randrange(len(base))] + other[rng.randrange(len(other)) :]
    elif kind == "broken_xref":
        at = base.rfind(b"xref")
        data = base[:at] + bytes(rng.randrange(32, 127) for _ in range(rng.randrange(10, 200))) + base[at + 4 :]
    elif kind == "not_pdf":
        data = rng.choice(
            (
                b"",
                b"<html><body>not a pdf</body></html>",
                b"PK\x03\x04" + rng.randbytes(500),
                rng.randbytes(rng.randrange(1, 5000)),
                b"%PDF-",
            )
        )
    elif kind == "nested":
        depth = rng.choice((500, 5000, 50000))
        data = minimal_pdf(b"/Nest " + b"[" * depth + b"]" * depth)
    elif kind == "encrypted":
        doc = pymupdf.open(stream=base, filetype="pdf")
        data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    elif kind == "zero_pages":
        data = minimal_pdf(b"", count=0)
    elif kind == "javascript":
        doc = pymupdf.open(stream=base, filetype="pdf")
        doc.embfile_add("payload.exe", rng.randbytes(2000), filename="payload.exe")
        xref = doc.get_new_xref()
        doc.update_object(xref, "<< /S /JavaScript /JS (app.alert('hi');) >>")
        doc.xref_set_key(doc.pdf_catalog(), "OpenAction", f"{xref} 0 R")
        data = doc.tobytes()
    elif kind == "bomb":
        # half of them inflate to hundreds of MB of nothing; the others to 40 million characters to hold
        data = text_bomb(40) if i % 24 == 9 else flate_bomb(rng.choice((64, 256)))
    elif kind == "blank_pages":
        data = blank_pdf(3000 if i % 48 == 10 else 40)  # once in 48: 3,000 pages, over MAX_PAGES
    else:
        data = base
    return kind, f"fuzz{i:03d}-{kind}.pdf", data


def minimal_pdf(extra, count=1):
    """A hand-written PDF (no library would write these): one empty page, or none, with extra catalog entries."""
    kids = b"[3 0 R]" if count else b"[]"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R " + extra + b" >>",
        b"<< /Type /Pages /Kids " + kids + b" /Count " + str(count).encode() + b" >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ]
    return raw_pdf(objects)


def raw_pdf(objects):
    """A PDF of the given object bodies (numbered from 1; the first is the catalog), with its xref table."""
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def form_bomb(levels=7, copies=10):
    """A one-page PDF of 2 KB: `levels` nested forms (XObjects), each but the last drawing the next `copies` times,
    the last a line of 100 characters. For the defaults the page shows a million lines, 100 million characters:
    reading its text needs GBs."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>",
        _stream(b"<<", b"BT /F1 12 Tf 72 720 Td (hello) Tj ET q /X Do Q"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for n in range(6, 6 + levels - 1):
        resources = b"/Resources << /XObject << /X %d 0 R >> >>" % (n + 1)
        objects.append(_stream(b"<< /Subtype /Form /BBox [0 0 612 792] " + resources, b"q /X Do Q " * copies))
    line = b"BT /F1 1 Tf 10 400 Td (" + b"A" * 100 + b") Tj ET"
    objects.append(_stream(b"<< /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>", line))
    return raw_pdf(objects)


def _stream(head, data):
    """A stream object: head is its dictionary without the closing >> (its filter and length are added)."""
    squeezed = zlib.compress(data, 9)
    return head + b" /Filter /FlateDecode /Length %d >>\nstream\n" % len(squeezed) + squeezed + b"\nendstream"


@functools.cache  # a few sizes, each costly to squeeze
def flate_bomb(megabytes):
    """A one-page PDF whose content stream inflates to `megabytes` MB (about 1 KB per MB on disk)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "hello")
    xref = page.get_contents()[0]
    squeeze, chunk = zlib.compressobj(9), b" " * 2**20
    data = b"".join([squeeze.compress(chunk) for _ in range(megabytes)] + [squeeze.flush()])
    doc.update_stream(xref, data, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    return doc.tobytes()


def text_bomb(megachars):
    """A one-page PDF showing `megachars` million characters, line over line at one place on the page: a few KB
    on disk, but every character becomes an entry in the reader's text page (tens of bytes each), so reading
    it needs GBs of memory."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "hello", fontname="helv")
    xref = page.get_contents()[0]
    squeeze, line = zlib.compressobj(9), b"(" + b"A" * 1000 + b") Tj 0 0 Td "
    parts = [squeeze.compress(b"BT /helv 1 Tf 10 400 Td ")]
    parts += [squeeze.compress(line * 1000) for _ in range(megachars)]
    data = b"".join(parts + [squeeze.compress(b"ET"), squeeze.flush()])
    doc.update_stream(xref, data, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    return doc.tobytes()


@functools.cache
def blank_pdf(pages):
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()
    return doc.tobytes()
