# Two commands on a fresh clone (see README.md): both create .venv and install as README "Install" says.
#   make demo   the sample end to end: ./surge, outputs/gt-as-generated, `surge metrics install`, the results table
#   make test   the test suite (about 20 minutes on 2 CPU cores, two pytest-xdist workers; the 15 slowest tests are listed at the end)
#   make test-quick   the inner loop: the same without the tests marked slow (bash scripts/test.sh -m "not slow")
# Without make: bash scripts/demo.sh / bash scripts/test.sh do the same.
.PHONY: demo test test-quick lint clean

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

test-quick:
	bash scripts/test.sh -m "not slow"

lint:
	.venv/bin/ruff check .

clean:
	rm -rf surge outputs
