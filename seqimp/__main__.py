"""``python -m seqimp``: the command line (:func:`seqimp.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
