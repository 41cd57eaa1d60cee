"""The IR of every stage of a compile, printed only when someone looks.

Printing the module after every pass used to cost a third of a cuda compile
(0.6 s of 1.8 s for a 128x128x32 GEMM), for text almost nobody reads. A
compile now keeps the input (with its locations) and the pipeline it ran;
the first `kernel.ir(stage)` of a pass stage replays that pipeline on a
fresh copy of the input, in a context of its own, and prints every stage
then. The passes are deterministic functions of their input, so the replay
is the IR the compile produced; a user debugging a kernel still never has
to compile it again by hand, and a kernel that is only run pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from tilec import ir as tilec_ir
from tilec.passes.pipeline import Pipeline, build_pass_manager, parse_pipeline, run_pass_manager

TILE_STAGE = "tile"


def stage_names(pipeline_text: str) -> list[str]:
    """The name of the IR after each element of the pipeline, in order: the
    element's own text, with `#2`, `#3`, ... when it runs more than once."""
    names: list[str] = []
    for leaf in parse_pipeline(pipeline_text).leaves:
        name, count = leaf.stage_name(), 2
        unique = name
        while unique in names:
            unique = f"{name}#{count}"
            count += 1
        names.append(unique)
    return names


def run_stages(module: object, pipeline_text: str,
               after: Callable[[str], None]) -> None:
    """Runs the pipeline on `module` in place one element at a time, calling
    `after(stage name)` after each (for its time, or to print the IR)."""
    leaves = parse_pipeline(pipeline_text).leaves
    for leaf, name in zip(leaves, stage_names(pipeline_text), strict=True):
        run_pass_manager(build_pass_manager(Pipeline([leaf]), module.context), module.operation)
        after(name)


@dataclass(frozen=True)
class Replay:
    """What reproduces a compile's pass stages: its input and its pipeline."""

    source: str
    """The tile module, printed with its locations."""
    pipeline: str

    def texts(self) -> dict[str, str]:
        """The IR after every pipeline element, by stage name."""
        context = tilec_ir.make_context()
        module = tilec_ir.parse_module(self.source, "<module>", context)
        texts: dict[str, str] = {}
        with context:
            run_stages(module, self.pipeline, lambda name: texts.__setitem__(name, str(module)))
        return texts


class Stages(Mapping[str, str]):
    """Stage name -> IR text, in pipeline order: "tile" (the input), the IR
    after each pipeline element (replayed on first use, see the module
    docstring), and the backend's final stage (made on first use too)."""

    def __init__(self, tile: str, final_stage: str, final: Callable[[], str],
                 replay: Replay | None):
        self._tile = tile
        self._final_stage = final_stage
        self._final = final
        self._replay = replay
        self._passes = stage_names(replay.pipeline) if replay else []
        self._texts: dict[str, str] = {}

    @property
    def replay(self) -> Replay | None:
        """What reproduces the pass stages (kept with a cached kernel)."""
        return self._replay

    def __iter__(self) -> Iterator[str]:
        yield TILE_STAGE
        yield from (name for name in self._passes if name != self._final_stage)
        yield self._final_stage

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, stage: object) -> bool:
        return stage in (TILE_STAGE, self._final_stage) or stage in self._passes

    def __getitem__(self, stage: str) -> str:
        if stage == TILE_STAGE:
            return self._tile
        if stage == self._final_stage:
            return self._final()
        if stage not in self._passes:
            raise KeyError(stage)
        if not self._texts and self._replay is not None:
            self._texts = self._replay.texts()
        return self._texts[stage]
