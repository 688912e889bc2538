"""`sourcecheck models pull`: a catalog GGUF downloaded by URL, resumable, checked before it is used."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck.errors import ModelError
from sourcecheck.llm.catalog import check_file, remember, sha256_of

if TYPE_CHECKING:
    from tqdm import tqdm

BLOCK = 1 << 20
TIMEOUT_S = 60  # per socket read: a stalled connection fails like a cut one, and the .part stays for resume


def pull(
    entry: Mapping[str, Any],
    models_dir: str | Path,
    log: Callable[[str], object] = print,
    progress: bool = True,
    timeout: float = TIMEOUT_S,
) -> Path:
    """Download entry["url"] into models_dir/entry["file"]: into a .part file first, resumed with an HTTP Range
    request when one is left from a cut download, then checked by size and sha256. Returns the file's path."""
    name = entry["name"]
    if not entry.get("url"):
        if entry["runs"] == "openai":
            how = f"it is served by {entry.get('server', 'an OpenAI-compatible server')}. {entry.get('note', '')}"
        else:
            how = (
                "install it with `sourcecheck models install`." if entry.get("source") else "see `sourcecheck models`."
            )
        raise ModelError(f"{name} has no download URL: {how}".strip(), code="model_missing")
    models_dir = Path(models_dir)
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / entry["file"]
    if check_file(entry, models_dir) == "ok":
        log(f"{name}: already downloaded and verified")
        return target
    part = target.with_suffix(".part")
    have = part.stat().st_size if part.exists() else 0
    if have > entry["size"]:  # not a prefix of this file: start over
        part.unlink()
        have = 0
    if have < entry["size"]:
        if have:
            log(f"{name}: resuming at {have / 1e6:.0f} of {entry['size'] / 1e6:.0f} MB")
        _fetch(entry, part, have, progress, timeout)
    _verify(entry, part)
    part.replace(target)
    if entry.get("sha256"):  # checked just now: `sourcecheck models` need not hash 5 GB again
        remember(entry, target)
    log(f"{name}: downloaded and verified at {target}")
    return target


def _fetch(entry: Mapping[str, Any], part: Path, have: int, progress: bool, timeout: float) -> None:
    """Append the rest of the file to part (or write it anew when the server ignores the Range)."""
    name, url = entry["name"], entry["url"]
    headers = {"User-Agent": "sourcecheck", "Accept-Encoding": "identity"}
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        resp = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:  # the server's file is no longer than our part: not the same file, start over
            part.unlink()
            return _fetch(entry, part, 0, progress, timeout)
        raise ModelError(
            f"Downloading {name}: {url} answered HTTP {e.code} {e.reason}.", code="model_download_failed"
        ) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ModelError(
            f"Cannot download {name} from {url} ({reason}); is this machine online?", code="model_download_failed"
        ) from None
    with resp:
        # 206 with our offset: the rest follows. Anything else (200) is the whole file from its first byte.
        content_range = resp.headers.get("Content-Range", "")
        resumed = bool(have) and resp.status == 206 and content_range.startswith(f"bytes {have}-")
        if resp.status == 206 and not resumed:  # a part from elsewhere in the file: not to be taken as its start
            if not have:
                raise ModelError(
                    f"Downloading {name}: {url} sent part of the file ({content_range or 'no range'}) unasked.",
                    code="model_download_failed",
                )
            part.unlink(missing_ok=True)
            return _fetch(entry, part, 0, progress, timeout)
        done = have if resumed else 0
        bar = _bar(entry, done, progress)
        try:
            with open(part, "ab" if resumed else "wb") as out:
                while block := resp.read(BLOCK):
                    out.write(block)
                    done += len(block)
                    bar.update(len(block))
                    if done > entry["size"]:  # more than the file has: _verify refuses it
                        break
        except (OSError, http.client.HTTPException) as e:
            raise _cut(entry, done, e) from None
        finally:
            bar.close()
    if done < entry["size"]:  # the server closed the connection early without an error
        raise _cut(entry, done, "the connection closed")


def _cut(entry: Mapping[str, Any], done: int, why: Exception | str) -> ModelError:
    return ModelError(
        f"The download of {entry['name']} stopped at {done / 1e6:.0f} of {entry['size'] / 1e6:.0f} MB "
        f"({why}). Run `sourcecheck models pull {entry['name']}` again to resume it.",
        code="model_download_failed",
    )


def _verify(entry: Mapping[str, Any], part: Path) -> None:
    """Raise model_corrupt (and delete the download) unless part has the entry's size and sha256."""
    size = part.stat().st_size
    if size != entry["size"]:
        part.unlink()
        raise ModelError(
            f"The download of {entry['name']} has {size} bytes, not {entry['size']}; it was deleted. Pull it again.",
            code="model_corrupt",
        )
    if entry.get("sha256") and (found := sha256_of(part)) != entry["sha256"]:
        part.unlink()
        raise ModelError(
            f"The download of {entry['name']} has sha256 {found}, not {entry['sha256']}: the file at "
            f"{entry['url']} is not the one the catalog names. It was deleted.",
            code="model_corrupt",
        )


def _bar(entry: Mapping[str, Any], done: int, progress: bool) -> tqdm:
    """A progress bar on stderr (tqdm comes with transformers, which sentence-transformers needs)."""
    from tqdm import tqdm

    return tqdm(
        total=entry["size"],
        initial=done,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=entry["name"],
        disable=not progress,
    )
