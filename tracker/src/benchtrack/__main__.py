"""`python -m benchtrack`: the CLI, for callers that hold an interpreter rather than a script."""

import sys

from benchtrack.cli import main

sys.exit(main())
