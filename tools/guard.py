"""The failure handling every tilec command-line tool shares.

Whatever goes wrong ends as an error message on stderr and exit code 1:
diagnostics as `file:line:col: error: ...`, usage mistakes and unreadable
files as `<tool>: error: ...`, and a bug in tilec as one `internal error`
line rather than a Python traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from tilec.diagnostics import CompileError, print_all


class UsageError(Exception):
    """A mistake in the command line itself."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse for the tools: a usage mistake raises UsageError, so that
    run_guarded reports it as `<tool>: error: ...` with exit code 1 like
    every other failure (argparse itself prints its usage and exits 2).
    Parse inside run_guarded."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}; see '{self.prog} --help'")


def run_guarded(tool: str, body: Callable[[], int]) -> int:
    try:
        return body()
    except CompileError as exc:
        print_all(exc.diagnostics)
    except BrokenPipeError:
        # The reader went away (`tile-opt --list-passes | head`): what it
        # read was right, so this is no error. Python flushes stdout again at
        # exit, which would fail once more: point it at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, OSError) as exc:
        print(f"{tool}: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: no traceback for users
        print(f"{tool}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 1
