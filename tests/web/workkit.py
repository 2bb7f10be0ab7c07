"""Jobs for the compute-pool tests: they run in a worker process (imported there by name), so they talk to
the test through files: ``started`` appears when the job runs, the job waits for ``release`` to appear."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any


def hold(started: str, release: str, *_args: Any) -> dict[str, Any]:
    """Stand in for a heavy job: say it started, then wait (at most a minute) for the test to release it."""
    Path(started).touch()
    deadline = time.monotonic() + 60
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    return {"type": "dice", "label": "", "odds": {}, "chart_svg": "", "released": Path(release).exists()}


def grab(megabytes: int) -> int:
    """Hold ``megabytes`` of memory at once (past the worker's cap: MemoryError there)."""
    block = bytearray(megabytes * 2**20)
    return len(block)


def wait_for(path: Path, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def while_in_flight(
    client: Any, send: Any, *, probe: str = "/api/health"
) -> tuple[Any, list[tuple[float, float, int]], float, float]:
    """Send one request (``send()``) in a thread and probe ``probe`` on the same client (the same event loop)
    until it answers: (its response, the probes as (sent, answered, status), when it was sent, when it answered)."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["response"] = send()
        finally:
            box["end"] = time.monotonic()
            done.set()

    start = time.monotonic()
    thread = threading.Thread(target=run)
    thread.start()
    probes = []
    while not done.is_set():
        a = time.monotonic()
        status = client.get(probe).status_code
        probes.append((a, time.monotonic(), status))
        done.wait(0.02)
    thread.join()
    return box["response"], probes, start, box["end"]
