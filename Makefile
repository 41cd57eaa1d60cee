# Two commands for a fresh clone (see README.md):
#   make demo    install, build and run the demo
#   make check   install, build and run the whole test suite
# While changing one pass or op lowering:
#   make test-pass PASS=<name>   its lit tests (named for it, or running it) and the pytest
#                                modules naming it (seconds to a few minutes);
#                                <name> a pass or pipeline (tile-ascend-inject-sync) or an op
#                                lowering (ascend-cube-gemm); see test/python/pass_tests.py
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
BUILD ?= build
LIT_FLAGS ?= -sv

.PHONY: install build check check-slow lit pytest lint demo clean test-pass

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(BUILD)/build.ninja: $(VENV)/.installed CMakeLists.txt dialects/CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DPython3_EXECUTABLE=$(abspath $(BIN)/python)

# CMake builds into $(BUILD) and copies the library and the generated builders
# into python/tilec; the editable install then only points the venv at the
# source folders and installs the tools (pyproject.toml skips CMake for
# editable installs), so the C++ is built once, incrementally.
build: $(BUILD)/build.ninja
	cmake --build $(BUILD)
	$(BIN)/pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e .

install: build

lit: build
	$(BIN)/lit $(LIT_FLAGS) test

pytest: build
	$(BIN)/python -m pytest -q -n auto test/python

lint: $(VENV)/.installed
	$(BIN)/ruff check .

check: build
	$(BIN)/ruff check .
	$(BIN)/lit $(LIT_FLAGS) test
	$(BIN)/python -m pytest -q -n auto test/python

ifneq ($(filter test-pass,$(MAKECMDGOALS)),)
ifeq ($(PASS),)
$(error usage: make test-pass PASS=<pass, pipeline or op lowering>, e.g. PASS=tile-ascend-inject-sync)
endif
endif
test-pass: build
	LIT_FLAGS="$(LIT_FLAGS)" $(BIN)/python test/python/pass_tests.py "$(PASS)"

check-slow: build
	$(BIN)/python -m pytest -q -m slow test/python

demo: build
	$(BIN)/python examples/demo.py

clean:
	rm -rf $(BUILD) python/tilec/_lib python/tilec/dialects/_*_gen.py
