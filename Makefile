# Quick start: `make demo` then `make test` (see README).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test setup clean bench

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

# two pytest workers on two cores: one torch/OpenMP thread each (more makes OpenMP spin, 4-10x slower)
test: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 tests

# every bench/*.py (side by side with its anchor, CPU seconds) -> bench/RESULTS.md, and README's copies of it
bench: $(STAMP)
	$(BIN)/python scripts/bench.py

clean:
	rm -rf runs/demo runs/smoke runs/tiny runs/bench
