"""DeepEP's `EventOverlap` and `EventHandle`: the calls here are synchronous, so an
event is always complete and waiting on it only runs the registered hook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EventHandle:
    """A captured point of the (synchronous) stream."""

    def current_stream_wait(self) -> None:
        """Nothing to wait for: the work before the capture has finished."""


class EventOverlap:
    """Upstream's wrapper of an event, with its hook and `with` protocol."""

    def __init__(
        self, event: EventHandle | None = None, extra_tensors: tuple[Any, ...] | None = None
    ) -> None:
        self.event = event if event is not None else EventHandle()
        self.extra_tensors = extra_tensors
        self.hook_after_wait: Callable[[], None] | None = None
        self._release_handle_by_call = False

    def current_stream_wait(self, release_handle: bool = False) -> None:
        assert self.event is not None
        self.event.current_stream_wait()
        if self.hook_after_wait is not None:
            hook, self.hook_after_wait = self.hook_after_wait, None
            hook()
        if release_handle:
            self.event = None

    def register_hook_after_wait(self, hook_after_wait: Callable[[], None]) -> None:
        assert self.hook_after_wait is None, "A hook is already registered on this `EventOverlap`"
        self.hook_after_wait = hook_after_wait

    def __call__(self, release_handle: bool = False) -> EventOverlap:
        self._release_handle_by_call = release_handle
        return self

    def __enter__(self) -> EventOverlap:
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        if self.event is not None:
            self.current_stream_wait(release_handle=self._release_handle_by_call)
        self._release_handle_by_call = False
