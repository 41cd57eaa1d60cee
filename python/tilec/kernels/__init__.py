"""tilec's kernel library: DeepSeek's libraries' APIs, every op a tilec kernel.

`tilec.kernels.deep_gemm` has DeepGEMM's names and conventions. The target of a call
is chosen by its data or by configuration (`use_target`, `$TILEC_TARGET`), and
`last_report()` says what the last call launched (see `targets`); inside
`autotuning()` an op that offers several tile configs measures them on its first
call for a shape and keeps the winner (see `tuning`).
`install_as_upstream()` makes `import deep_gemm` give tilec's (see `upstream`).
"""

from .targets import Launch, TargetUnsupported, last_report, use_target
from .tuning import autotuning
from .upstream import install_as_upstream

__all__ = ["Launch", "TargetUnsupported", "autotuning", "install_as_upstream", "last_report",
           "use_target"]
