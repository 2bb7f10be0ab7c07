"""`python -m storymaster ...` is the `storymaster` command."""

from storymaster.cli.app import main

main()
