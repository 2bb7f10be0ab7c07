"""Where a request's work runs: the thread pool for blocking I/O, a process pool with a budget for rules work.

Two doors (docs/table.md, "Where a request's work runs"):

1. **The thread pool**, for database reads and writes, rendering, exports and argon2 (which releases
   the GIL): API routes are plain ``def`` (FastAPI runs them there); every HTML page runs its handler
   there through ``pages.common.run_page``. Nothing blocking runs on the event loop.
2. **The compute pool** (this module), for rules work a request can start whose cost depends on what
   the request says: odds previews, the GM page's fight forecast, the builder's sheet check, YAML typed
   on pages. ``Work.call(fn, *args, what=...)`` runs ``fn(*args)`` in a separate *process* (a CPU-bound
   job never holds the server's GIL) and waits at most ``Settings.work_seconds``. Past that the worker
   is killed (SIGKILL: even a C loop inside one big-integer operation stops), a fresh one is forked in
   its place, and the call raises :class:`TooMuchWork` (422, code ``too-much-work``, with a hint). A job
   past the worker's address-space cap (``work_memory_mb``) answers the same 422.

Workers are forked from a fork server that has already imported the rule systems, so replacing a
killed worker costs a fork (tens of milliseconds), not an import. ``fn`` must be a module-level
function and its arguments and result picklable; a rule system travels by its entry-point name
(``jobs.load_system``), and the caller's ``sys.path`` goes with every job so that plugin systems
(and the tests' toy system) load in the worker as they do in the server.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import pickle
import queue
import signal
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..play.errors import Invalid, TableError

__all__ = ["ComputePool", "ForecastCache", "TooMuchWork", "Work", "WorkersBusy"]

log = logging.getLogger("storymaster.web.work")

#: modules the fork server imports once, so that every worker starts with them loaded
PRELOAD = ["storymaster.web._warm"]


class TooMuchWork(Invalid):
    """A request asked for more work than the server gives one request (time or memory)."""

    code = "too-much-work"


class WorkersBusy(TableError):
    """Every compute worker stayed busy for the whole budget."""

    code = "busy"
    status = 503


def _send_back(conn: Any, exc: BaseException) -> None:
    """An exception raised by a job, sent as (class, args, attributes): rebuilt in the server without calling
    its ``__init__`` (many of ours take keyword-only arguments that plain pickling cannot give back)."""
    try:
        conn.send(("raise", pickle.dumps((type(exc), exc.args, dict(getattr(exc, "__dict__", {}))))))
    except Exception:
        conn.send(("bug", f"{type(exc).__name__}: {exc}"))


def _rebuild(blob: bytes) -> BaseException:
    cls, args, state = pickle.loads(blob)
    try:
        exc = cls.__new__(cls)
        exc.args = args
        exc.__dict__.update(state)
    except Exception:
        return RuntimeError(f"{cls.__name__}: {args}")
    return exc  # type: ignore[no-any-return]


def _worker_main(conn: Any, memory_mb: int) -> None:  # pragma: no cover - runs in the worker process
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C stops the server, which stops us
    if memory_mb > 0:
        import resource

        limit = memory_mb * 2**20
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard != resource.RLIM_INFINITY else limit))
    while True:
        try:
            paths, blob = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            missing = [p for p in paths if p not in sys.path]
            if missing:
                sys.path[:0] = missing
                import importlib

                importlib.invalidate_caches()
            fn, args = pickle.loads(blob)
            conn.send(("ok", fn(*args)))
        except MemoryError:
            conn.send(("memory", None))
        except RecursionError:
            _send_back(conn, Invalid("the input is nested too deeply"))
        except BaseException as exc:  # every failure goes back to the request, none kills the worker
            _send_back(conn, exc)


class _Worker:
    def __init__(self, process: Any, conn: Any) -> None:
        self.process, self.conn = process, conn

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(2.0)
        with contextlib.suppress(Exception):
            self.conn.close()


class ComputePool:
    """A few worker processes (forked from a fork server) and a queue of the idle ones."""

    _shared: ClassVar[dict[tuple[int, int], ComputePool]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, processes: int = 2, memory_mb: int = 2048) -> None:
        self.processes, self.memory_mb = max(1, processes), memory_mb
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        for _ in range(self.processes):
            self._idle.put(None)  # started on first use
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self.started = 0  # workers started so far (the tests and the bench read it)
        self.killed = 0  # workers killed past the budget or found dead

    @classmethod
    def shared(cls, processes: int, memory_mb: int) -> ComputePool:
        """One pool per (processes, memory cap) in this server process, whatever the number of apps."""
        with cls._shared_lock:
            key = (processes, memory_mb)
            if key not in cls._shared:
                cls._shared[key] = cls(processes, memory_mb)
            return cls._shared[key]

    def _context(self) -> Any:
        if sys.platform.startswith("linux") or sys.platform == "darwin":
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            return ctx
        return multiprocessing.get_context("spawn")  # pragma: no cover - Windows

    def _start(self) -> _Worker:
        ctx = self._context()
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_worker_main, args=(child, self.memory_mb), daemon=True, name="storymaster-work")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        with self._lock:
            self._all.add(worker)
            self.started += 1
        return worker

    def _drop(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            self._all.discard(worker)
            self.killed += 1

    def warm(self) -> None:
        """Start the fork server and the idle workers now (the server does this in the background at start-up),
        holding one worker's place at a time, so a request never waits behind the whole warm-up."""
        ctx = self._context()
        if ctx.get_start_method() == "forkserver":
            from multiprocessing import forkserver

            forkserver.ensure_running()
        for _ in range(self.processes):
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                return  # every place is in use: the workers are up
            try:
                if worker is None or not worker.process.is_alive():
                    worker = self._start()
            finally:
                self._idle.put(worker)

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], *, seconds: float, what: str) -> Any:
        """``fn(*args)`` in a worker, waiting at most ``seconds`` for it (the job's own run)."""
        blob = pickle.dumps((fn, args))
        try:  # a worker in use is free again within the budget; starting one takes well under 10 s
            worker = self._idle.get(timeout=seconds + 10)
        except queue.Empty:
            raise WorkersBusy(f"the server is busy with other people's {what}s", hint="try again in a moment") from None
        try:
            if worker is None or not worker.process.is_alive():
                if worker is not None:
                    self._drop(worker)
                worker = self._start()
            worker.conn.send((list(sys.path), blob))
            if not worker.conn.poll(seconds):
                self._drop(worker)
                worker = None
                raise TooMuchWork(
                    f"this {what} needs more work than the table gives one request ({seconds:g} s)",
                    hint=_HINTS.get(what, "ask for something smaller"),
                )
            kind, payload = worker.conn.recv()
        except (EOFError, OSError) as exc:  # the worker died under the job (memory cap, a crash)
            if worker is not None:
                self._drop(worker)
            worker = None
            raise TooMuchWork(
                f"this {what} needs more memory than the table gives one request",
                hint=_HINTS.get(what, "ask for something smaller"),
            ) from exc
        finally:
            if worker is None:  # killed or dead: a fresh one takes its place, forked in the background
                threading.Thread(target=self._refill, name="storymaster-work-refill", daemon=True).start()
            else:
                self._idle.put(worker)
        if kind == "ok":
            return payload
        if kind == "memory":
            raise TooMuchWork(
                f"this {what} needs more memory than the table gives one request ({self.memory_mb} MiB)",
                hint=_HINTS.get(what, "ask for something smaller"),
            )
        if kind == "raise":
            raise _rebuild(payload)
        raise RuntimeError(f"the {what} failed in a compute worker: {payload}")

    def _refill(self) -> None:
        worker: _Worker | None = None
        try:
            worker = self._start()
        except Exception:  # pragma: no cover - the next call starts one
            log.exception("could not start a compute worker")
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for w in workers:
            w.stop()


_HINTS = {
    "odds preview": "fewer dice, or keep/drop fewer of them; the roll itself is still allowed",
    "forecast": "the simulated forecast on the scene page is always available",
    "exact forecast": "the simulated forecast on the scene page is always available",
    "sheet check": "a shorter sheet, without deep nesting",
    "YAML": "shorter text, without anchors, aliases or deep nesting",
}


@dataclass(frozen=True, slots=True)
class Work:
    """The app's door to the compute pool, with its budget (``app.state.work``; ``WorkDep`` in routes)."""

    pool: ComputePool
    seconds: float

    def call(self, fn: Callable[..., Any], *args: Any, what: str) -> Any:
        """Run ``fn(*args)`` in a worker process within the budget; 422 ``too-much-work`` past it.

        Call it from a thread (a ``def`` route, a page's ``go``), never from the event loop.
        """
        started = time.perf_counter()
        try:
            return self.pool.call(fn, args, seconds=self.seconds, what=what)
        finally:
            log.debug("%s in a worker: %.3f s", what, time.perf_counter() - started)


class ForecastCache:
    """The GM page's fight forecasts, per (scene, log head, method): a few hundred, least recently used dropped."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], value: dict[str, Any]) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
