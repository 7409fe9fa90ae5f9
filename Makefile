# Quick start: `make demo` then `make test` (see README).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test setup clean bench tatham-c

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

clean:
	rm -rf runs/demo runs/smoke runs/tiny runs/bench
