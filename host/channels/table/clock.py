"""The referee's clock for a recorded stream (``gamehost table --audio``)."""

from __future__ import annotations

import time

from host.listening.listener import StreamListener


class StreamClock:
    """Start time plus the seconds of audio fed, so the undo grace period and a step's time
    limit are judged in the recording's time, not the decoder's."""

    def __init__(self, start: float | None = None) -> None:
        self.start = time.time() if start is None else start
        self.listener: StreamListener | None = None

    def __call__(self) -> float:
        return self.start + (self.listener.time if self.listener is not None else 0.0)
