"""A thread-safe in-flight counter: lets tests see how many operations overlapped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class InFlight:
    """Counts operations in progress and remembers the highest count seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.current = 0
        self.peak = 0
        self.total = 0

    @contextmanager
    def track(self) -> Iterator[None]:
        with self._lock:
            self.current += 1
            self.total += 1
            self.peak = max(self.peak, self.current)
        try:
            yield
        finally:
            with self._lock:
                self.current -= 1

    def reset(self) -> None:
        with self._lock:
            self.current = 0
            self.peak = 0
            self.total = 0
