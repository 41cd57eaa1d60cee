"""Winners of past tuning runs on disk: `$TILEC_CACHE_DIR/autotuner/<key>.json`.

The key is a hash of what decides the winner: the kernel function (its
module, name and source text), the values it is called with or closes over
(the shapes, dtypes and other fixed parameters), the configs tried, the
target with its parameters, the compile options and tilec's own code (see
`tilec.runtime.cache`). An entry records the winner's position in the configs
and every trial's outcome, so a later run compiles only the winner (from the
kernel cache) and measures nothing. An unreadable entry is tuned again; with
the cache disabled (`tilec.disable_cache()`) nothing is read or written.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from tilec.autotuner.measure import Measurement
from tilec.autotuner.results import Trial
from tilec.runtime.cache import cache_dir, compiler_digest, enabled

FORMAT = 1


def _plain(value: object) -> object:
    """`value` as JSON, where an object without a stable text is its type's name."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    text = str(value)
    return f"<{type(value).__qualname__}>" if " at 0x" in text else text


def function_identity(fn: Callable[..., object]) -> dict[str, object]:
    """What makes `fn` the kernel it is: its code and the values bound to it
    (by `functools.partial`) or closed over."""
    if isinstance(fn, functools.partial):
        inner = function_identity(fn.func)
        return {**inner, "args": _plain(fn.args), "kwargs": _plain(fn.keywords)}
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        source = ""
    closure = {}
    code = getattr(fn, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), fn.__closure__ or (), strict=True):
        try:
            closure[name] = _plain(cell.cell_contents)
        except ValueError:  # a cell not yet assigned
            continue
    return {
        "function": f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', fn)}",
        "source": source,
        "closure": closure,
    }


def tuning_key(identity: dict[str, object], configs: list[dict[str, object]],
               target: dict[str, object], options: str, out_idx: object) -> str:
    data = {
        "format": FORMAT,
        "kernel": identity,
        "configs": _plain(configs),
        "target": target,
        "options": options,
        "out_idx": _plain(out_idx),
        "compiler": compiler_digest(),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / "autotuner" / f"{key}.json"


def load(key: str, configs: list[dict[str, object]]) -> tuple[int, list[Trial]] | None:
    """The winner's position in `configs` and the trials of the run that chose it."""
    if not enabled():
        return None
    try:
        entry = json.loads(_path(key).read_text())
        if entry["format"] != FORMAT or entry["key"] != key:
            return None
        trials = []
        for record, config in zip(entry["trials"], configs, strict=True):
            measured = record["latency"] is not None
            measurement = Measurement(record["latency"], record["cycles"]) if measured else None
            trials.append(Trial(config, measurement, record["error"]))
        winner = int(entry["winner"])
        if trials[winner].measurement is None:
            return None
        return winner, trials
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def store(key: str, winner: int, trials: list[Trial]) -> None:
    """Writes the entry whole (a temporary file renamed into place); a cache that
    cannot be written leaves the run's result as it is."""
    records = [
        {
            "latency": None if t.measurement is None else t.measurement.latency,
            "cycles": None if t.measurement is None else t.measurement.cycles,
            "error": t.error,
        }
        for t in trials
    ]
    entry = {"format": FORMAT, "key": key, "winner": winner, "trials": records}
    path = _path(key)
    if not enabled():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix=f".{key[:16]}-", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(handle, "w") as file:
            json.dump(entry, file)
        os.replace(staging, path)
    except OSError:
        Path(staging).unlink(missing_ok=True)
