# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
# Each creates (or reuses) the virtual environment .venv; `make bench` adds .venv-bench for the anchors and
# `make test-agilerl` .venv-agilerl (AgileRL pins tensordict 0.13, which TorchRL 0.14 in .venv does not take).
PYTHON ?= python3
VENV := .venv
BENCH_VENV := .venv-bench
AGILERL_VENV := .venv-agilerl
PY := $(VENV)/bin/python
ANCHORS := pettingzoo==1.26.1 rlcard==1.2.0 open_spiel==2.0.2 numpy pygame-ce
TEST_ARGS ?= -n 2

.PHONY: demo test test-all test-wheel test-agilerl bench league recipe-gin_2p recipe-rami51_2p recipe-rami51_4p watch docs clean

# torch is pinned first to the CPU build that pip finds on this kind of machine; pyproject.toml keeps
# a range, so users elsewhere are not pinned.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[dev,train,interop,docs]"
	touch $@

$(VENV)/.rllib: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[dev,train,interop,docs,rllib]"
	touch $@

$(VENV)/.openspiel: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[dev,train,interop,docs,openspiel]"
	touch $@

$(BENCH_VENV)/.installed:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet $(ANCHORS)
	touch $@

# AgileRL 2.58 imports peft without requiring it; .ci/test_agilerl installs the package's wheel into it
$(AGILERL_VENV)/.installed:
	$(PYTHON) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(AGILERL_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(AGILERL_VENV)/bin/python -m pip install --quiet agilerl==2.58.0 peft==0.21.0
	touch $@

demo: $(VENV)/.installed          ## a short PPO run on basic 2-player rummy, then the arena against the baselines
	$(PY) -m rummy_env.training.demo

watch: $(VENV)/.installed         ## a seeded game between baseline agents as text, then the engine's throughput
	$(PY) -m rummy_env.agents.demo

test: $(VENV)/.openspiel          ## the CI profile of the test-suite (with the OpenSpiel differential's fast tier), compiling beside the tests
	$(PY) tests/ci_profile.py

test-wheel: $(VENV)/.installed    ## build the wheel, install it into a fresh venv, use it from outside the repository
	PYTHON=$(PY) .ci/test_wheel

test-agilerl: $(AGILERL_VENV)/.installed  ## the libraries guide's AgileRL recipe, from the wheel, in AgileRL's venv
	PYTHON=$(CURDIR)/$(AGILERL_VENV)/bin/python .ci/test_agilerl

test-all: $(VENV)/.rllib $(VENV)/.openspiel  ## every test, slow ones (RLlib, the OpenSpiel differential) and the thorough hypothesis profile
	HYPOTHESIS_PROFILE=thorough $(PY) -m pytest -q $(TEST_ARGS)

bench: $(VENV)/.installed $(BENCH_VENV)/.installed   ## throughput beside the anchors (a few minutes)
	$(PY) benchmarks/throughput.py --bench-python $(BENCH_VENV)/bin/python
	$(PY) benchmarks/throughput.py --ruleset rami51 --players 2 --bench-python $(BENCH_VENV)/bin/python
	$(PY) benchmarks/throughput.py --ruleset rami51 --players 4 --batches 1,4096 --bench-python $(BENCH_VENV)/bin/python
	$(PY) benchmarks/throughput.py --ruleset gin_openspiel --bench-python $(BENCH_VENV)/bin/python
	$(PY) benchmarks/throughput.py --ruleset gin --bench-python $(BENCH_VENV)/bin/python

league: $(VENV)/.installed        ## the README's arena tables from the shipped checkpoints and the searchers (about an hour on one core)
	$(PY) -m rummy_env.training.evaluate league --out results --readme README.md --torch-threads 1

DISTILL := $(PY) -m rummy_env.training.distill
GIN_TEACHER := pimc:worlds=64,blueprint=lookahead
GIN_EXIT := --teacher $(GIN_TEACHER) --rounds 2 --states 40000 --epochs 3 --learning-rate 3e-4 --rows 64
recipe-gin_2p: $(VENV)/.installed  ## checkpoints/gin_2p.pt's recipe: runs/gin_2p_exit/policy.pt (about 45 minutes on one core)
	$(DISTILL) --config gin_2p --teacher lookahead --states 300000 --out runs/gin_2p_bc
	$(DISTILL) --config gin_2p $(GIN_EXIT) --init runs/gin_2p_bc/policy.pt --out runs/gin_2p_exit

recipe-rami51_2p: $(VENV)/.installed  ## checkpoints/rami51_2p.pt's recipe: runs/rami51_2p_ft/policy.pt (about an hour on one core)
	$(DISTILL) --config rami51_2p --teacher heuristic --states 800000 --epochs 6 --out runs/rami51_2p_bc
	$(PY) -m rummy_env.training.ppo_selfplay --config rami51_2p_finetune --init-policy runs/rami51_2p_bc/policy.pt \
		--out runs/rami51_2p_ft

recipe-rami51_4p: $(VENV)/.installed  ## checkpoints/rami51_4p.pt's recipe: runs/rami51_4p_ft/policy.pt (about an hour on one core)
	$(DISTILL) --config rami51_4p --teacher heuristic --states 600000 --epochs 6 --out runs/rami51_4p_bc
	$(PY) -m rummy_env.training.ppo_selfplay --config rami51_4p_finetune --init-policy runs/rami51_4p_bc/policy.pt \
		--out runs/rami51_4p_ft

docs: $(VENV)/.installed          ## the documentation (rules book, guides, API reference) in docs/_build/html, built strictly
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(AGILERL_VENV) .pytest_cache .hypothesis runs results docs/_build
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
