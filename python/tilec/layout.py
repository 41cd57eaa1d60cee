"""`tilec.layout`: the layout constructors of TileLang's `tilelang.layout`.

They build layout annotations (`T.annotate_layout`), recorded on the tile IR
as `tile.layout` for the targets that lay out shared memory (cuda); the cpu
and ascend targets keep their own layouts and ignore them.
"""

from tilec.language.layouts import *  # noqa: F403 - the DSL's module, under TileLang's name
from tilec.language.layouts import __all__ as __all__
