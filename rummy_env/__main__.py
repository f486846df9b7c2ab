"""``python -m rummy_env``: the ``rummy`` command (``rummy_env.cli``)."""

import sys

from rummy_env.cli import main

if __name__ == "__main__":
    sys.exit(main())
