# Set-up is part of each target, so `make demo` and `make test` work on a fresh machine.
VENV ?= .venv
PY   := $(VENV)/bin/python
PIP  := $(VENV)/bin/pip --disable-pip-version-check -q
# PyTorch's CPU-only build (the README's CPU install); the plain index serves only the CUDA build.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test bench fuzz check-install clean

# Core install: the scorers and the CLI (no torch, no verl).
$(VENV)/.core: pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PIP) install -c constraints.txt -e .
	touch $@

# Development install: CPU torch first (see constraints.txt), then verl 0.9.1 and the test tools.
$(VENV)/.dev: pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PIP) install --retries 0 --timeout 20 torch==2.13.0 --index-url $(TORCH_CPU_INDEX) || \
	  { echo 'PyTorch CPU index unreachable: installing torch from the plain index (CUDA build, several GB)'; \
	    $(PIP) install torch==2.13.0; }
	$(PIP) install -c constraints.txt -e '.[test,verl,bench]'
	touch $(VENV)/.core $@

demo: $(VENV)/.core
	$(VENV)/bin/rewards score docs/examples/rollouts.jsonl

test: $(VENV)/.dev
	$(PY) -m pytest

# The README's GPU-node install line, resolved against the package index by pip (dry run; minutes).
check-install: $(VENV)/.dev
	$(PY) -m pytest -m network tests/test_install.py

bench: $(VENV)/.dev
	$(PY) tests/bench/run.py

# The long mutation search: fresh random seeds, the `fuzz` profile's examples per gold family
# (tests/fuzz/search.py); prints the figures and every finding. FUZZ_ARGS="-n 200 --seed 7".
fuzz: $(VENV)/.dev
	$(PY) -m tests.fuzz.search $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
