"""The threads a webhook's store work runs on: one pool per app, as large as the store
can use at once.

A webhook reads and writes the store, which blocks, so its work leaves the event loop for
a thread. Starlette's ``run_in_threadpool`` goes through AnyIO (a capacity limiter of 40
threads, a shielded cancel scope, its own worker queue); ``loop.run_in_executor`` on a
pool of our own does the same hop for less (a voice action: see docs/capacity.md), and
the pool is sized to the store: SQLite runs one transaction at a time (more threads only
wait on its lock), PostgreSQL as many as its connection pool holds.

The pool starts with the first request and is shut down by the app's lifespan (waiting
for the work in flight); a request after that (a test client used again) starts another.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from host.store import PG_CONNECTIONS, Store

P = ParamSpec("P")
T = TypeVar("T")

SQLITE_THREADS = 2  # one in a transaction, the next ready to begin when it commits
POSTGRESQL_THREADS = PG_CONNECTIONS  # as many as the store has connections


class Workers:
    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_store(cls, store: Store) -> Workers:
        return cls(SQLITE_THREADS if store.sqlite else POSTGRESQL_THREADS)

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on a worker thread (with this task's context variables,
        as ``asyncio.to_thread``); its result or its exception."""
        pool = self._pool or self._start()
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(pool, call)

    def _start(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="gamehost-request")
            return self._pool

    def stop(self) -> None:
        """Wait for the work in flight, then let the threads go."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
