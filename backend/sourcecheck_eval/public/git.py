"""A shallow checkout of one pinned commit of a public repository, reused when it is already there.

git init; git fetch --depth 1 URL COMMIT; git checkout FETCH_HEAD. With `paths`, only those files are checked out
(sparse) and only their contents are downloaded (a blob-less fetch): a repository may hold large files the
converters never read.
"""

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

GIT_TIMEOUT_S = 900  # one git step; the largest file fetched (HaluEval's) is 47 MB


def default_url(repo: str) -> str:
    return f"https://github.com/{repo}"


def git(dest: Path, *args: str) -> str:
    # No prompt for credentials: a mistyped or private repository must fail, not wait for a password.
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(dest), *args], capture_output=True, text=True, env=env, timeout=GIT_TIMEOUT_S
        )
    except FileNotFoundError:
        raise SystemExit("fetching the public sets needs git; install it (e.g. apt-get install git)") from None
    except subprocess.TimeoutExpired:
        raise SystemExit(f"git {args[0]} took over {GIT_TIMEOUT_S} s in {dest}: is the network reachable?") from None
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, ["git", *args], done.stdout, done.stderr)
    return done.stdout.strip()


def head(dest: Path) -> str | None:
    if not (dest / ".git").exists():
        return None
    try:
        return git(dest, "rev-parse", "--verify", "--quiet", "HEAD")
    except subprocess.CalledProcessError:
        return None  # an empty repository (an earlier fetch failed)


def patterns(paths: Sequence[str] | None) -> str:
    # Classic sparse-checkout patterns (gitignore syntax): a leading "/" anchors each path at the top of the tree;
    # the repositories' own paths have no glob characters. No paths: everything.
    return "".join(f"/{p.lstrip('/')}\n" for p in paths) if paths else "/*\n"


def checkout(repo: str, commit: str, dest: Path, url: str | None = None, paths: Sequence[str] | None = None) -> Path:
    """Check out `repo` at `commit` into `dest` and return `dest`. A checkout already at that commit (with every
    path in `paths`; by default the whole tree) is reused as it is; anything else is fetched. SystemExit names the
    repository, the commit and git's message when that fails."""
    dest = Path(dest)
    sparse = dest / ".git" / "info" / "sparse-checkout"
    if (
        head(dest) == commit
        and all((dest / p).is_file() for p in paths or ())
        and (paths or not sparse.exists() or sparse.read_text() == patterns(paths))
    ):
        return dest
    url = url or default_url(repo)
    if "://" not in url and Path(url).exists():
        url = str(Path(url).resolve())  # git -C dest would read a relative path from inside dest
    dest.mkdir(parents=True, exist_ok=True)
    try:
        git(dest, "init", "--quiet")
        remotes = git(dest, "remote").split()
        git(dest, "remote", "set-url" if "origin" in remotes else "add", "origin", url)
        # Sparse checkout set up by hand rather than with `git sparse-checkout set --no-cone` (git >= 2.35).
        git(dest, "config", "core.sparseCheckout", "true")
        git(dest, "config", "core.sparseCheckoutCone", "false")
        sparse.parent.mkdir(parents=True, exist_ok=True)
        sparse.write_text(patterns(paths))
        # Blob-less: only the blobs of the checked-out paths are downloaded (by the checkout below).
        git(dest, "fetch", "--quiet", "--depth", "1", *(["--filter=blob:none"] if paths else []), "origin", commit)
        git(dest, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", "FETCH_HEAD")
        git(dest, "read-tree", "-mu", "HEAD")  # applies the patterns also when HEAD was already at the commit
    except subprocess.CalledProcessError as e:
        lines = (e.stderr or e.stdout or "").strip().splitlines()
        # "warning: filtering not recognized by server" (a local path as URL) is noise next to the real error
        message = "\n".join(line for line in lines if not line.startswith("warning:")) or f"exit status {e.returncode}"
        raise SystemExit(f"could not check out {repo} at commit {commit} from {url}: {message}") from None
    got = head(dest)
    if got != commit:
        raise SystemExit(f"could not check out {repo} at commit {commit} from {url}: got {got} (use the full hash)")
    missing = [p for p in paths or () if not (dest / p).is_file()]
    if missing:
        raise SystemExit(f"{repo} at commit {commit} has no {', '.join(missing)}")
    return dest
