"""``uvicorn ...`` (the arguments as given), but the process dies on the spot, as under
SIGKILL, the moment the page's table microphone is about to announce a ruling it accepted:
after the ruling's transaction committed, before anyone was told. What was not written in
that transaction is lost here. Used by test_crash_between.py."""

from __future__ import annotations

import os
import sys
from typing import Any

import uvicorn

from host.channels.web import listen

_emit = listen.Room.emit


def _die_before_announcing(room: Any, reply: Any) -> None:
    if reply.accepted:
        sys.stderr.write("crash_on_announce: dying before the announcement\n")
        sys.stderr.flush()
        os._exit(137)
    _emit(room, reply)


listen.Room.emit = _die_before_announcing  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.argv = ["uvicorn", *sys.argv[1:]]
    uvicorn.main()
