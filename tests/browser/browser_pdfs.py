"""Real PDFs for the browser tests, written with PyMuPDF."""

import pymupdf

# Page 2 holds the facts the chat page's answer is checked against.
FAVA_PAGES = [
    (
        "FAVA: Fine-grained Hallucination Detection and Editing\n\n"
        "Abstract. Large language models often produce factual errors. We study how to detect and "
        "edit them with a retrieval-augmented model."
    ),
    (
        "3 Training data\n\n"
        "We generated a total of 35,074 training instances for FAVA. "
        "The retrieval component uses Contriever to find relevant passages. "
        "The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data. "
        "Errors are grouped into six types, from entity errors to unverifiable statements."
    ),
    ("4 Results\n\nFAVA improves fine-grained detection over ChatGPT on the annotated benchmark."),
]


def write_pdf(path, pages, title="Test paper", author="Test Author"):
    """Write a text PDF with one page per string; returns the path."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(56, 56, 539, 786), text, fontsize=11, fontname="helv")
    doc.set_metadata({"title": title, "author": author})
    doc.save(str(path))
    doc.close()
    return path


def write_fava(path):
    return write_pdf(
        path,
        FAVA_PAGES,
        title="FAVA: Fine-grained Hallucination Detection and Editing",
        author="Mishra, Asai, Balachandran",
    )


def write_other(path, topic):
    """A small unrelated PDF (for upload tests), distinct bytes per topic."""
    return write_pdf(
        path,
        [
            f"Notes on {topic}\n\nThis report describes {topic} in some detail. It has two pages.",
            f"Appendix about {topic}.",
        ],
        title=f"Notes on {topic}",
    )
