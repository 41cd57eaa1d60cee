"""Loads libTilecDialects.so and exposes its C entry points through ctypes.

The library shares the MLIR instance of the `mlir` Python bindings, so the
dialects it registers live in the same contexts as the bindings' objects.
Contexts and attributes cross the boundary as the bindings' C-API capsules.
"""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path

from mlir import ir

LIBRARY_NAME = "libTilecDialects.so"
_CONTEXT_CAPSULE = b"mlir.ir.Context._CAPIPtr"
_ATTRIBUTE_CAPSULE = b"mlir.ir.Attribute._CAPIPtr"
_MODULE_CAPSULE = b"mlir.ir.Module._CAPIPtr"


class _MlirHandle(ctypes.Structure):
    """Any MLIR C-API handle: a struct holding one opaque pointer."""

    _fields_ = [("ptr", ctypes.c_void_p)]


# C constructors of the enum attributes users build from Python.
ENUM_ATTR_GETTERS = (
    "tilecScopeAttrGet",
    "tilecMemSpaceAttrGet",
    "tilecPipeAttrGet",
    "tilecCoreTypeAttrGet",
)


# Their inverses: the enum value of such an attribute, -1 for any other attribute.
ENUM_ATTR_READERS = (
    "tilecScopeAttrValue",
    "tilecReduceKindAttrValue",
    "tilecMemSpaceAttrValue",
    "tilecPipeAttrValue",
    "tilecCoreTypeAttrValue",
)


class _MlirStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


def library_path() -> Path:
    return Path(__file__).resolve().parent / "_lib" / LIBRARY_NAME


@functools.cache
def library() -> ctypes.PyDLL:
    path = library_path()
    if not path.exists():
        raise ImportError(
            f"{path} is missing: build the dialects first (`make build`, see README.md)"
        )
    # PyDLL keeps the GIL held during calls: the parser reports errors to
    # Python diagnostic handlers, and nanobind aborts if they run without it.
    lib = ctypes.PyDLL(str(path), mode=ctypes.RTLD_GLOBAL)
    lib.tilecRegisterDialects.argtypes = [_MlirHandle]
    lib.tilecRegisterDialects.restype = None
    lib.tilecParseModule.argtypes = [_MlirHandle, _MlirStringRef, _MlirStringRef]
    lib.tilecParseModule.restype = _MlirHandle
    for name in ENUM_ATTR_GETTERS:
        fn = getattr(lib, name)
        fn.argtypes = [_MlirHandle, ctypes.c_int32]
        fn.restype = _MlirHandle
    for name in ENUM_ATTR_READERS:
        fn = getattr(lib, name)
        fn.argtypes = [_MlirHandle]
        fn.restype = ctypes.c_int32
    return lib


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_new.restype = ctypes.py_object


def context_handle(context: ir.Context) -> _MlirHandle:
    return _MlirHandle(_capsule_get_pointer(context._CAPIPtr, _CONTEXT_CAPSULE))


def attribute_from_handle(handle: _MlirHandle) -> ir.Attribute:
    if not handle.ptr:
        raise ValueError("the native library returned a null attribute")
    return ir.Attribute._CAPICreate(_capsule_new(handle.ptr, _ATTRIBUTE_CAPSULE, None))


def register_dialects(context: ir.Context) -> None:
    library().tilecRegisterDialects(context_handle(context))


def enum_attr(getter: str, context: ir.Context, value: int) -> ir.Attribute:
    return attribute_from_handle(getattr(library(), getter)(context_handle(context), value))


def attribute_handle(attr: ir.Attribute) -> _MlirHandle:
    return _MlirHandle(_capsule_get_pointer(attr._CAPIPtr, _ATTRIBUTE_CAPSULE))


def enum_value(reader: str, attr: ir.Attribute) -> int:
    """The enum value `reader` finds in `attr`; -1 when it is another attribute."""
    return getattr(library(), reader)(attribute_handle(attr))


def parse_module(context: ir.Context, source: bytes, source_name: str) -> ir.Module | None:
    """Parses `source` as the buffer `source_name`; None on failure.

    The errors are reported to the context's diagnostic handlers.
    """
    name = source_name.encode()
    handle = library().tilecParseModule(
        context_handle(context),
        _MlirStringRef(source, len(source)),
        _MlirStringRef(name, len(name)),
    )
    if not handle.ptr:
        return None
    return ir.Module._CAPICreate(_capsule_new(handle.ptr, _MODULE_CAPSULE, None))
