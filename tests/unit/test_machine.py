"""serve/machine.py: the cores other processes keep busy, read from /proc/stat less this process's own CPU time."""

import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from sourcecheck.serve import machine
from sourcecheck.serve.machine import Load

real = pytest.mark.skipif(machine._busy_s() is None, reason="no /proc/stat: the load is not known here")


@real
def test_another_busy_process_is_seen(monkeypatch):
    monkeypatch.setattr(machine, "PERIOD_S", 0.2)
    load = Load()
    try:
        spin = "import time\nend = time.time() + 3\nwhile time.time() < end: pass"
        other = subprocess.Popen([sys.executable, "-c", spin])  # one core kept busy by another process
        time.sleep(1.5)
        busy = load.others_busy()
        other.wait()
    finally:
        load.stop()
    assert busy is not None and 0.6 <= busy <= load.cores, busy


def test_this_process_s_own_work_is_taken_off_and_the_reading_is_capped_at_every_core(monkeypatch):
    clock, busy, own = [100.0], [1000.0], [5.0]  # wall, all cores busy, this process's CPU (seconds)
    monkeypatch.setattr(machine, "_busy_s", lambda: busy[0])
    # the module's clock only (time itself is every thread's)
    monkeypatch.setattr(machine, "time", SimpleNamespace(monotonic=lambda: clock[0], process_time=lambda: own[0]))
    monkeypatch.setattr(machine, "PERIOD_S", 3600)  # the thread samples once, at start; the reads sample too
    load = Load()
    try:
        assert load.others_busy() is None  # the sample at start and now are the same moment: nothing to say yet
        clock[0] += 10
        busy[0] += 15  # 1.5 cores busy over 10 s, of which this process 1.0
        own[0] += 10
        assert load.others_busy() == 0.5
        clock[0] += 10
        busy[0] += 10 * (load.cores + 3)  # more than every core: a counter's hiccup
        assert load.others_busy() == load.cores
    finally:
        load.stop()


def test_off_linux_the_load_is_not_known(monkeypatch):
    monkeypatch.setattr(machine, "_busy_s", lambda: None)
    load = Load()
    assert load.others_busy() is None
    load.stop()
