"""Tuning a kernel's parameters by measuring each config, with TileLang's surface:
`@tilec.autotune(configs=...)` over `@tilec.jit`, and `AutoTuner.from_kernel(...)`
(see `tilec.autotuner.tuner`)."""

from tilec.autotuner.results import AutotuneError, AutotuneResult, Trial
from tilec.autotuner.supply import TensorSupplyType
from tilec.autotuner.tuner import AutoTuner, autotune

__all__ = ["AutoTuner", "AutotuneError", "AutotuneResult", "TensorSupplyType", "Trial", "autotune"]
