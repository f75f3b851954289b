"""A real PostgreSQL 15 server for the tests: a private cluster in a temporary directory
(initdb, fsync off, its own socket directory and a free TCP port), started once per test
session and stopped at its end; each test gets a database of its own.

As root the server runs as the ``postgres`` user (PostgreSQL refuses root). Without the
binaries (scripts/test installs postgresql-15) the PostgreSQL variants are skipped.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg

from host.store import Store
from tests.servers import free_port

BIN = Path(os.environ.get("GAMEHOST_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
_names = itertools.count(1)


def available() -> bool:
    return (BIN / "initdb").exists() and (BIN / "pg_ctl").exists()


class PgServer:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gamehost-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self._as: list[str] = []
        self._shared: str | None = None
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self.dir.chmod(0o755)

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, cwd=self.dir)

    def start(self) -> None:
        self._run(
            str(BIN / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        opts = (
            f"-c port={self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.dir}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400"
            " -c shared_buffers=64MB"
        )
        self._run(
            str(BIN / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "start"
        )

    def stop(self) -> None:
        try:
            self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def postmaster(self) -> int:
        """The server's first process (every backend is its child)."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str = "template0") -> str:
        """A fresh database (a copy of ``template``); its URL."""
        name = f"t{os.getpid()}_{next(_names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def migrated_database(self) -> str:
        """A database with the newest schema and no rows: one migrated once, emptied for
        each test (a new database each time would copy megabytes)."""
        if self._shared is None:
            self._shared = self.new_database()
            Store(self._shared).close()
        with psycopg.connect(self._shared, autocommit=True) as conn:
            query = (
                "SELECT tablename FROM pg_tables"
                " WHERE schemaname = 'public' AND tablename != 'alembic_version'"
            )
            tables = [r[0] for r in conn.execute(query)]
            conn.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
        return self._shared


def serve() -> Iterator[PgServer]:
    server = PgServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
