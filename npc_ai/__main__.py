"""`python -m npc_ai` runs the command line."""

import sys

from npc_ai.cli.main import main

sys.exit(main())
