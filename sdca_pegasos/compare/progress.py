"""What the terminal is told while a comparison runs: stages that last, warnings, results.

Everything goes to standard error (standard output lists the files written). A stage that
lasts more than a second says so, then every few seconds how long it has been running (on a
terminal, one line rewritten in place); a stage that ends sooner prints nothing, so that a
file refused at once gets its one line and nothing else.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

#: A stage says it is running once it has lasted this many seconds.
QUIET_SECONDS = 1.0
#: Then it updates its line this often (a new line each time when not on a terminal).
EVERY_SECONDS = 5.0


class Console:
    """Progress lines (``say``, silenced by ``quiet``) and warnings (``warn``, always)."""

    def __init__(self, quiet: bool = False, stream=None):
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.lock = threading.Lock()

    @property
    def interactive(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def say(self, line: str) -> None:
        if not self.quiet:
            self._write(line + "\n")

    def warn(self, line: str) -> None:
        self._write(f"warning: {line}\n")

    def _write(self, text: str) -> None:
        with self.lock:
            self.stream.write(text)
            self.stream.flush()

    def stage(self, what: str, detail: Callable[[float], str] | None = None) -> Stage:
        """A :class:`Stage` reporting on this console."""
        return Stage(self, what, detail)


class Stage:
    """``with console.stage("reading x.csv"): ...``: says what runs once it lasts > 1 s.

    ``detail(elapsed_seconds)`` adds to each update (e.g. the CPU seconds of a budget).
    """

    def __init__(self, console: Console, what: str, detail=None):
        self.console, self.what, self.detail = console, what, detail
        self.done = threading.Event()
        self.spoke = False
        self.start = 0.0
        self.thread: threading.Thread | None = None

    def _line(self) -> str:
        elapsed = time.perf_counter() - self.start
        extra = self.detail(elapsed) if self.detail else f"{elapsed:.0f} s"
        return f"{self.what}: {extra}"

    def _watch(self) -> None:
        if self.done.wait(QUIET_SECONDS):
            return
        while True:
            self.spoke = True
            if self.console.interactive:
                self.console._write(f"\r{self._line()}\033[K")
            else:
                self.console._write(self._line() + " ...\n")
            if self.done.wait(EVERY_SECONDS):
                return

    def __enter__(self) -> Stage:
        self.start = time.perf_counter()
        if not self.console.quiet:
            self.thread = threading.Thread(target=self._watch, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()
        if self.spoke and self.console.interactive:
            self.console._write("\n")
        if self.spoke and exc[0] is None:
            self.console.say(f"{self.what}: done in {time.perf_counter() - self.start:.1f} s")
