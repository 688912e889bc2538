"""The machine the bench runs on and how busy it is: psutil where it is installed (it comes with PyMuPDF), else
Linux's /proc; None (shown "n/a") where neither answers."""

import os
import platform
import time
from pathlib import Path

try:
    import psutil
except ImportError:  # not a dependency of sourcecheck itself
    psutil = None


def machine() -> str:
    cpu = _cpu_name() or "?"
    ram = _ram_bytes()
    memory = "n/a" if ram is None else f"{ram / 2**30:.0f} GiB"
    return f"{os.cpu_count()} cores, {cpu}, {memory} RAM, Python {platform.python_version()}"


def _cpu_name() -> str | None:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or None


def _ram_bytes() -> int | None:
    if psutil is not None:
        return int(psutil.virtual_memory().total)
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def load_average() -> float | None:
    """The 1-minute load average (psutil emulates it on Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return psutil.getloadavg()[0] if psutil is not None else None


def cpu_seconds() -> tuple[float | None, float]:
    """(busy CPU seconds of the whole machine, None if unknown; CPU seconds of this process and its finished
    children)."""
    t = os.times()
    return _machine_busy(), t[0] + t[1] + t[2] + t[3]


def _machine_busy() -> float | None:
    """All CPU time but idle and I/O wait, in seconds."""
    if psutil is not None:
        times = psutil.cpu_times()
        return sum(times) - times.idle - getattr(times, "iowait", 0.0)
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
        return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None


def others_cores_between(
    start: tuple[float | None, float], end: tuple[float | None, float], wall: float
) -> float | None:
    """Cores other processes kept busy between two cpu_seconds() readings, wall seconds apart."""
    (busy, own), (busy2, own2) = start, end
    if busy is None or busy2 is None:
        return None
    return max(0.0, (busy2 - busy) - (own2 - own)) / wall


def others_cores(seconds: float = 10) -> float | None:
    """Cores other processes keep busy, measured over a few seconds while this one sleeps."""
    start = cpu_seconds()
    time.sleep(seconds)
    return others_cores_between(start, cpu_seconds(), seconds)


def rss_mb(pid: int) -> float | None:
    """The resident set size of a process, in MB."""
    if psutil is not None:
        try:
            return psutil.Process(pid).memory_info().rss / 2**20
        except psutil.Error:
            return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def fmt(value: float | None, spec: str, scale: float = 1.0, unit: str = "") -> str:
    """value * scale formatted, then unit; "n/a" when value is None."""
    return "n/a" if value is None else format(value * scale, spec) + unit
