# Quickstart: `make demo` then `make test`. Each target creates .venv when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test reliability clients lab lint clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ctxlab demo
	$(BIN)/ctxlab run --stage 5 --scenario long-task
	$(BIN)/ctxlab compare --scenario long-task

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

reliability: $(STAMP)  # the large property set: 15,300 generated cases (docs/reliability.md)
	CTXLAB_HYPOTHESIS=large $(BIN)/python -m pytest tests/reliability -q

CLIENTS := .venv-clients
clients: $(STAMP)  # third-party clients against `ctxlab serve` (README "The ctxlab command")
	@test -x $(CLIENTS)/bin/python || $(PYTHON) -m venv $(CLIENTS)
	$(CLIENTS)/bin/python -m pip install --quiet -r tests/clients/requirements.txt
	$(CLIENTS)/bin/python tests/clients/check_clients.py $(BIN)/ctxlab

lab: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,lab]'
	$(BIN)/jupyter lab notebooks/

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(CLIENTS) build *.egg-info stages/*.egg-info
