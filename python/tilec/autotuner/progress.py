"""A progress bar on stderr, redrawn in place on a terminal and one line per step elsewhere
(a log keeps no carriage-return redraws)."""

from __future__ import annotations

import sys
import threading

_WIDTH = 24


class Progress:
    def __init__(self, label: str, total: int):
        self._label, self._total, self._done = label, total, 0
        self._lock = threading.Lock()
        self._tty = sys.stderr.isatty()
        self._draw("")

    def step(self, note: str = "") -> None:
        """One more item is done; `note` says how it went."""
        with self._lock:
            self._done += 1
            self._draw(note)
            if self._done == self._total and self._tty:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def _draw(self, note: str) -> None:
        filled = _WIDTH * self._done // max(self._total, 1)
        bar = "#" * filled + "." * (_WIDTH - filled)
        line = f"{self._label} [{bar}] {self._done}/{self._total}" + (f" {note}" if note else "")
        if self._tty:
            sys.stderr.write("\r\033[K" + line)
        elif self._done:
            sys.stderr.write(line + "\n")
