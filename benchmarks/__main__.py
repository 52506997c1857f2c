"""`python -m benchmarks [load|scale|chunking] ...` (what `python -m pipeline bench ...` runs)."""

import sys

from benchmarks.bench import main

sys.exit(main(sys.argv[1:]))
