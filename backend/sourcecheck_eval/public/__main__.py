"""python -m sourcecheck_eval.public fetch [SET ...] [--out DIR] [--source OWNER/REPO=URL_OR_PATH ...]"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sourcecheck_eval import public


def source(text: str) -> tuple[str, str]:
    repo, sep, url = text.partition("=")
    if not sep or repo.count("/") != 1 or not url:
        raise argparse.ArgumentTypeError(f"expected OWNER/REPO=URL_OR_PATH, got {text!r}")
    return repo, url


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sourcecheck_eval.public",
        description="Check out the public benchmark repositories at their pinned commits and write the "
        "development portion of each set as OUT/<set>/dev.jsonl (uniform schema) with OUT/<set>/SOURCE.md.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="check out and convert the sets (all of them by default)")
    fetch.add_argument("sets", nargs="*", metavar="SET", help=f"one of: {', '.join(public.SETS)}")
    fetch.add_argument(
        "--out", type=Path, default=public.DEFAULT_OUT, help=f"output folder (default {public.DEFAULT_OUT})"
    )
    fetch.add_argument(
        "--source",
        type=source,
        action="append",
        default=[],
        metavar="OWNER/REPO=URL_OR_PATH",
        help="fetch OWNER/REPO from this URL or local clone instead of GitHub (repeatable)",
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.sets if name not in public.SETS]
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; the sets are: {', '.join(public.SETS)}")
    public.fetch(args.out, args.sets or None, dict(args.source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
