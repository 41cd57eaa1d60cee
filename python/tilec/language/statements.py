"""The DSL's `with` statements: `T.Kernel`, `T.Scope`, and a kernel's `if` and
`while`, which `rewrite` turns into `with`s (see `control`).

Each opens regions of the trace as its body runs; the one it has open when
the body ends is closed then, located at the statement. A body that raised
leaves it open, so that its error is the one the user sees.
"""

from __future__ import annotations

from types import TracebackType

from . import semantic
from .builder import OpenRegion
from .errors import SourceLoc
from .source import at


class Statement:
    """A `with` statement of the DSL; `close` ends its region."""

    loc: SourceLoc
    region: OpenRegion | None = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None and self.region is not None:
            with at(self.loc):
                self.close(self.region)

    def close(self, region: OpenRegion) -> None:
        """Ends `region`, the one open when the body ends, at the statement's line."""
        semantic.close_region(region)
