"""The command-line interface (Typer + Rich). Not imported by the core."""
