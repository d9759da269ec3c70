# The two commands the README leads with: `make demo` and `make test`.
# Both build .venv from scratch when it is missing. torch is installed first, pinned to the
# CPU build, so sentence-transformers does not pull a multi-GB CUDA build.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
VE     := $(BIN)/vault-engine
DEMO   := $(CURDIR)/.demo-vault

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(VENV)/.installed
	rm -rf $(DEMO) && cp -r sample-vault $(DEMO)
	$(VE) --vault $(DEMO) index
	$(VE) --vault $(DEMO) search "why did we drop the second microphone"
	$(VE) --vault $(DEMO) show "specs/audio-pipeline.md#Buffers"
	$(VE) --vault $(DEMO) status

test: $(VENV)/.installed
	$(BIN)/ruff check vault_engine tui tests bench
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -n 2 tests

bench: $(VENV)/.installed
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache
