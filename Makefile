# Quick start: `make demo` then `make test` (see README).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-dist setup clean

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

# train.py under torchrun with 2 gloo ranks against 1 (FSDP2, DDP, HSDP, LoRA, async, resume):
# tests/test_multirank.py, about 6 minutes on 2 idle cores. One pytest process: each test
# already runs 2 ranks.
test-dist: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -m dist tests/test_multirank.py

clean:
	rm -rf runs/demo runs/smoke runs/tiny runs/bench
