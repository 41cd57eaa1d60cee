"""Imports every module of passes/ so that each pass, pipeline and lowering
registers itself: adding one is adding a file in its folder."""

from tilec.passes.registry import import_package

import_package("tilec.passes")
import_package("tilec.passes.conversion")
