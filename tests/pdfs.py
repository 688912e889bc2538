"""Real PDFs for tests, written with PyMuPDF."""

import pymupdf

FAVA_PAGES = [
    "FAVA: Fine-grained Hallucination Detection and Editing\n\nAbhika Mishra, Akari Asai, Yizhong Wang\n\n"
    "Large language models often generate factually incorrect statements. We introduce a taxonomy of six "
    "hallucination types: entity, relation, contradictory, invented, subjective and unverifiable errors.",
    "Training data. We generated a total of 35,074 training instances by inserting synthetic errors into "
    "Wikipedia passages. The editor model is based on Llama2-Chat 7B and was fine-tuned for three epochs.",
    "Results. FAVA improves detection F1 by 23.5 points over ChatGPT on our benchmark. Retrieval of the "
    "top five documents, followed by reranking, gives the best results on the editing task.",
]
BRIDGE_PAGES = [
    "The Golden Gate Bridge\n\nThe Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is "
    "1,280 meters long, and for 27 years it was the longest suspension bridge span in the world.",
    "The bridge is painted International Orange, a colour chosen by consulting architect Irving Morrow "
    "because it complements the natural surroundings and is visible in fog.",
]


def make_pdf(path, pages, title=None, author=None, encrypt=False):
    """Write a PDF with one text page per string; returns the path."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 545, 790), text, fontsize=11)
    doc.set_metadata({"title": title or "", "author": author or ""})
    kwargs = {}
    if encrypt:
        kwargs = {"encryption": pymupdf.PDF_ENCRYPT_AES_256, "user_pw": "secret", "owner_pw": "owner"}
    doc.save(str(path), **kwargs)
    doc.close()
    return path


def make_scanned_pdf(path):
    """A PDF whose only page is a picture: no extractable text, like a scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 20), False)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(50, 50, 350, 150), pixmap=pix)
    doc.save(str(path))
    doc.close()
    return path
