"""The module upstream's functions live in (`from flash_mla.flash_mla_interface import
...` works against tilec's package too)."""

from . import *  # noqa: F403 - the package's API, under upstream's module name
from . import __all__  # noqa: F401
