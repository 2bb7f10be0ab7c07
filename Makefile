# Storymaster. `make run` and `make test` work on a fresh machine with Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint docs mypy-baseline constraints bench mutation clean postgres load screenshots chromium

# The table's tests run against a real PostgreSQL too: start the local cluster when it is down.
postgres:
	@pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || { \
	  for v in $$(ls /etc/postgresql 2>/dev/null); do pg_ctlcluster --skip-systemctl-redirect $$v main start || true; done; \
	  for i in 1 2 3 4 5 6 7 8 9 10; do pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && break; sleep 1; done; }

# The web pages' browser tests drive Debian's Chromium (headless, through Playwright): install it when missing.
chromium:
	@test -x /usr/bin/chromium || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

EXTRAS := test,plot,bench,server,lint,docs
LINT_PATHS := src tests bench examples tools

# The venv gets the versions the suite was last run with: constraints.txt pins every package
# (pip freeze of the tested venv, storymaster itself excluded). After adding or changing a
# dependency in pyproject.toml, run `make constraints` (installs without the pins, then
# re-freezes), run `make test`, and commit pyproject.toml and constraints.txt together.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[$(EXTRAS)]'
	touch $(STAMP)

constraints:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	{ echo "# The versions the suite was tested with (make constraints: pip freeze of .venv, storymaster excluded)."; \
	  echo "# The Makefile installs with -c constraints.txt; regenerate after changing dependencies in pyproject.toml."; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v -i '^storymaster[= @]' | LC_ALL=C sort -f; } > constraints.txt
	touch $(STAMP)

# The gate: ruff lint and format check, mypy (strict core; a baseline elsewhere that only goes down),
# the import-linter layer contracts. `make test` runs it first.
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/python tools/mypy_gate.py
	$(BIN)/lint-imports

# The documentation site (mkdocs.yml) into site/; --strict: a broken link or a missing page is an error.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict  # not --quiet: it hides the warnings --strict counts

# Record fewer mypy errors in mypy-baseline.json (it never raises a count).
mypy-baseline: $(STAMP)
	$(BIN)/python tools/mypy_gate.py --update

run: $(STAMP)
	$(BIN)/storymaster serve --demo

test: $(STAMP) postgres chromium
	$(MAKE) lint
	$(MAKE) docs
	$(BIN)/python -m pytest -n 2 -q

# Every bench script (each prints TARGET lines, see bench/common.py), niced, output kept in .bench-output.txt,
# then one table of all targets (bench/summary.py). BENCH_QUICK=1 for fewer repetitions. load_table.py is `make load`.
BENCH_SKIP := bench/common.py bench/summary.py bench/load_table.py
bench: $(STAMP)
	@rm -f .bench-output.txt
	@start=$$(date +%s); for f in bench/*.py; do \
		case " $(BENCH_SKIP) " in *" $$f "*) continue;; esac; \
		echo "== $$f" | tee -a .bench-output.txt; \
		nice -n 5 $(BIN)/python "$$f" 2>&1 | tee -a .bench-output.txt; \
		echo | tee -a .bench-output.txt; \
	done; echo "make bench took $$(( $$(date +%s) - start )) s" | tee -a .bench-output.txt
	@$(BIN)/python bench/summary.py .bench-output.txt | tee .bench-summary.md

# Mutation testing (issue 14; not part of make test): tools/mutation.py, a fork server over cosmic-ray's operators
# (each mutant judged in a forked child by the tests that execute the mutated line), niced, a time budget per
# module (MUTATION_BUDGET seconds), mutants in a fixed random order; run again to go on. MODULES= picks modules.
MUTATION_BUDGET ?= 600
MODULES ?=
mutation: $(STAMP)
	$(BIN)/python -c "import cosmic_ray" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[mutation]'
	nice -n 19 $(BIN)/python tools/mutation.py --budget $(MUTATION_BUDGET) $(MODULES)
	$(BIN)/python tools/mutation.py --report

# The table's load test (loopback, bounded; not part of make test).
load: $(STAMP) postgres
	$(BIN)/python bench/load_table.py

# Refresh the README's screenshots (docs/screenshots/) from the browser test.
screenshots: $(STAMP)
	STORYMASTER_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q -p no:xdist tests/pages/test_browser.py tests/pages/test_browser_table.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .hypothesis .mypy_cache .ruff_cache .import_linter_cache
