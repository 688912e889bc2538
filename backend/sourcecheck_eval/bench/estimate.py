"""scripts/bench --only estimate: the toast's time left (extension/lib/pace.js) against the real time of a check on a
shared machine (issue 50). The bench's answer is checked, critiques and all, through the real pipeline and model twice:
on the machine as it is (the pace a user's earlier check kept), then with another model process beside it (llama.cpp
on the default GGUF, reading fresh prompts without pause, as a second app on a laptop would). Each check's events and
their times are replayed through pace.js in node, with the toast's clock asking every half second: the first guess
(the first estimate shown) and the estimate at half the real time, each as a ratio to the time really left then."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sourcecheck_eval.bench.data import INDEX, ROOT, TEXT, WORK, now
from sourcecheck_eval.bench.host import others_cores

PACE = ROOT / "extension" / "lib" / "pace.js"
TICK_MS = 500
KEYS = ("type", "index", "label", "final", "rereading", "sentences", "judge", "machine")  # what pace.js reads
# Fresh prompts without pause: a new random opening each time, so that the prefix cache spares nothing.
LOADER = """
import random, sys
from sourcecheck.config import load_settings
from sourcecheck.llm import load_model
m = load_model(load_settings({}))
m.prepare()
print("loaded", flush=True)
words = open(sys.argv[1]).read().split()
while True:
    text = " ".join(random.choices(words, k=300))
    m.choose([{"role": "user", "content": text + " Is this true? Answer Yes or No."}], ("Yes", "No"))
"""
REPLAY = """
const P = require(process.argv[1]);
const { kept, rows, tick } = JSON.parse(require("fs").readFileSync(0, "utf8"));
let p = P.start(kept);
const out = [];
const end = rows[rows.length - 1][0];
let i = 0;
for (let t = 0; t <= end; t += tick) {
  while (i < rows.length && rows[i][0] <= t) { p = P.observe(p, rows[i][1], rows[i][0]); i += 1; }
  out.push([t, P.estimate(p, t), P.basis(p)]);
}
while (i < rows.length) { p = P.observe(p, rows[i][1], rows[i][0]); i += 1; }
process.stdout.write(JSON.stringify({ estimates: out, keep: P.remember(kept, p) }));
"""


def timeline(lib: Any, judge: Any, load: Any) -> list[tuple[int, dict[str, Any]]]:
    """[(ms since the request, event)] of one check of the bench's answer, as a served check streams them (the
    sentences event with the machine's load, as serve/api/check.py adds it)."""
    from sourcecheck.check import CheckOptions, check_text
    from sourcecheck.serve.api.check import with_machine

    t0, rows = now(), []
    for event in with_machine(check_text(TEXT, lib, judge, options=CheckOptions()), load):
        rows.append((round((now() - t0) * 1000), event))
    return rows


def replay(rows: list[tuple[int, dict[str, Any]]], kept: dict[str, Any] | None) -> dict[str, Any]:
    """The estimates the toast would show, and the pace it would keep, over one check's events."""
    slim = [(t, {k: e.get(k) for k in KEYS}) for t, e in rows]
    out = subprocess.run(
        ["node", "-e", REPLAY, str(PACE)],
        input=json.dumps({"kept": kept, "rows": slim, "tick": TICK_MS}, default=str),
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout))


def errors(rows: list[tuple[int, dict[str, Any]]], shown: dict[str, Any]) -> dict[str, Any]:
    """The first guess and the estimate at half time, each against the time really left then."""
    end = rows[-1][0]
    estimates = [(t, e, b) for t, e, b in shown["estimates"] if e is not None]
    if not estimates:
        raise ValueError("pace.js gave no estimate for this check")
    first = estimates[0]
    half = min(estimates, key=lambda x: abs(x[0] - end / 2))

    def shown_then(at: int, said: int, basis: str) -> dict[str, Any]:
        left = end - at
        return {
            "at_s": at / 1000,
            "said_s": said / 1000,
            "left_s": left / 1000,
            "ratio": said / max(1, left),
            "basis": basis,
        }

    return {"total_s": end / 1000, "first_guess": shown_then(*first), "half_way": shown_then(*half)}


def bench_estimate(lib: Any, r: dict[str, Any]) -> None:
    from sourcecheck.config import load_settings
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm import load_model

    settings = load_settings({"INDEX_DIR": str(INDEX)})
    lib.search("warm up")
    from sourcecheck.serve.machine import Load

    load = Load()  # as a server samples it from its start
    model = load_model(settings)
    model.prepare()
    quiet = timeline(lib, Judge(model, sensitivity=settings["SENSITIVITY"]), load)  # fresh judges: no cache
    words = Path(r.get("loader_words") or INDEX / "documents.json")
    loader = subprocess.Popen([sys.executable, "-c", LOADER, str(words)], stdout=subprocess.PIPE, text=True)
    try:
        assert loader.stdout is not None and loader.stdout.readline().strip() == "loaded"
        time.sleep(5)
        busy = others_cores(5)
        loaded = timeline(lib, Judge(model, sensitivity=settings["SENSITIVITY"]), load)
        again = timeline(lib, Judge(model, sensitivity=settings["SENSITIVITY"]), load)
    finally:
        loader.kill()
        loader.wait()
        load.stop()
    (WORK / "estimate-timelines.json").write_text(  # to replay another pace.js over the same checks
        json.dumps(
            {
                name: [(t, {k: e.get(k) for k in KEYS}) for t, e in rows]
                for name, rows in (("quiet", quiet), ("loaded", loaded), ("again", again))
            },
            default=str,
        )
    )
    first = replay(quiet, None)
    kept = first["keep"]
    after_quiet = replay(loaded, kept)  # the hard case: yesterday's quiet pace, today's shared machine
    after_loaded = replay(again, after_quiet["keep"])  # the next check on the same shared machine
    r["estimate"] = {
        "others_cores_loaded": busy,
        "quiet_total_s": quiet[-1][0] / 1000,
        "loaded_after_quiet": errors(loaded, after_quiet),
        "loaded_after_loaded": errors(again, after_loaded),
        "kept_after_quiet": kept,
    }
    print(f"  quiet check: {quiet[-1][0] / 1000:.1f} s; others' cores meanwhile loaded: {busy}", flush=True)
    for name in ("loaded_after_quiet", "loaded_after_loaded"):
        e = r["estimate"][name]
        print(
            f"  {name}: {e['total_s']:.1f} s; first guess {e['first_guess']['said_s']:.0f} s for "
            f"{e['first_guess']['left_s']:.0f} s ({e['first_guess']['ratio']:.2f}×, {e['first_guess']['basis']}); "
            f"half way {e['half_way']['said_s']:.0f} s for {e['half_way']['left_s']:.0f} s "
            f"({e['half_way']['ratio']:.2f}×)",
            flush=True,
        )
