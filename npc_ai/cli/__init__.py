"""The `npc-ai` command line: `main` parses the arguments and maps every input error to one line, exit 2."""

from npc_ai.cli.main import main

__all__ = ["main"]
