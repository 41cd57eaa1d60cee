"""Kernels in files that use `from __future__ import annotations`: their parameter
annotations are strings, evaluated with the names visible where @T.prim_func
(or @tilec.kernel) is applied, including a kernel factory's locals."""

from __future__ import annotations

import numpy as np
from dsl_helpers import build, expect_error

import tilec
import tilec.language as T


def make_scale(block: int, dtype: str):
    @tilec.kernel
    def scale(X: T.Tensor((block * 2,), dtype), Y: T.Tensor((block * 2,), dtype), s: T.float32):
        with T.Kernel(2) as bx:
            x = T.alloc_fragment((block,), dtype)
            T.copy(X[bx * block], x)
            for i in T.Parallel(block):
                x[i] = x[i] * T.cast(s, dtype)
            T.copy(x, Y[bx * block])

    return scale


def test_string_annotations_see_the_factory_locals(context):
    kernel = make_scale(np.int64(16), "float16")
    fn = build(kernel).body.operations[0]
    assert str(fn.type) == "(memref<32xf16>, memref<32xf16>, f32) -> ()"


def test_string_annotation_kernels_run():
    kernel = tilec.compile(make_scale(8, "float32"))
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    kernel(x, y, 0.5)
    np.testing.assert_array_equal(y, x * 0.5)


def test_unresolvable_string_annotation_points_at_the_parameter():
    def define():
        @T.prim_func
        def k(X: T.Tensor((undefined_size,), "float32")):  # noqa: F821  # bad-annotation
            pass

    expect_error(
        define,
        __file__,
        "bad-annotation",
        "the annotation of parameter 'X'",
        "name 'undefined_size' is not defined",
    )
