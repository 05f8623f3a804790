import sys

from harness.cli import main

if __name__ == "__main__":  # not when a worker process of ``harness demo`` starts
    sys.exit(main())
