"""How busy the machine is with other work: the cores other processes kept busy over about the last ten seconds. The
time left a check shows (extension/lib/pace.js) stretches this machine's kept pace by it: measured with another
llama.cpp process beside the judge (1.9 of 2 cores busy with it), a check took 1.56× as long (docs/performance.md),
so pace.js takes 1 + 0.6 × others_busy / cores. Read from /proc/stat (Linux); elsewhere unknown, and the estimate
goes on the kept pace alone. Only for a judge in this process (llama.cpp): a judge server's own work would count as
another process's."""

from __future__ import annotations

import os
import threading
import time
from collections import deque

PERIOD_S = 2.0  # between two samples
SAMPLES = 6  # the window: the last ten seconds


def _busy_s() -> float | None:
    """CPU seconds all cores have spent busy since boot, or None where /proc/stat is not there."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


class Load:
    """Samples the machine every PERIOD_S in a thread of its own until stop()."""

    def __init__(self) -> None:
        self.cores = os.cpu_count() or 1
        self._samples: deque[tuple[float, float, float]] = deque(maxlen=SAMPLES)  # (wall, all busy, ours)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if _busy_s() is not None:
            self._sample()
            self._thread = threading.Thread(target=self._run, name="sourcecheck-load", daemon=True)
            self._thread.start()

    def _sample(self) -> None:
        busy = _busy_s()
        if busy is not None:
            self._samples.append((time.monotonic(), busy, time.process_time()))

    def _run(self) -> None:
        while not self._stop.wait(PERIOD_S):
            self._sample()

    def others_busy(self) -> float | None:
        """Cores other processes kept busy over the window, now included; None before two samples or off Linux."""
        if self._thread is None or not self._samples:
            return None
        busy = _busy_s()
        if busy is None:
            return None
        t0, all0, own0 = self._samples[0]  # the oldest kept; now is not kept, so a burst of checks keeps the window
        t1, all1, own1 = time.monotonic(), busy, time.process_time()
        if t1 - t0 < 0.5:
            return None
        return round(min(self.cores, max(0.0, (all1 - all0 - (own1 - own0)) / (t1 - t0))), 2)

    def stop(self) -> None:
        self._stop.set()
