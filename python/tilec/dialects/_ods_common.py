"""Lets the generated `_*_ops_gen.py` modules import the upstream ODS helpers."""

from mlir.dialects._ods_common import *  # noqa: F403
from mlir.dialects._ods_common import _cext  # noqa: F401
