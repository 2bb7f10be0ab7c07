"""Start and stop real uvicorn server processes: the crash, multi-worker and browser tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

TESTS = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: the table with only the tests' own system (the API tests)
TEST_APP = "web.server_factory:app"
#: the real table with every installed system (the browser tests)
REAL_APP = "storymaster.web.factory:from_env"


class Server:
    """uvicorn serving ``app`` (an app factory) on 127.0.0.1 and a free port, in its own process group."""

    def __init__(
        self,
        database_url: str,
        *,
        workers: int = 1,
        port: int | None = None,
        env: dict[str, str] | None = None,
        app: str = TEST_APP,
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        e = dict(os.environ)
        e.update(
            {
                "PYTHONPATH": str(TESTS) + os.pathsep + e.get("PYTHONPATH", ""),
                "STORYMASTER_DATABASE_URL": database_url,
                "STORYMASTER_ARGON2_TIME_COST": "1",
                "STORYMASTER_ARGON2_MEMORY_COST": "1024",
                "STORYMASTER_MIGRATE": "1",
                "STORYMASTER_BASE_URL": self.url,
            }
        )
        e.update(env or {})
        cmd = [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ]
        self.proc = subprocess.Popen(
            cmd, env=e, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self._wait_up()

    def _wait_up(self, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("the server did not come up")

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean shutdown, as in a crash."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            self.kill()
