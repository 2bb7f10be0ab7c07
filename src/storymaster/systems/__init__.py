"""The five built-in rule systems, each a plugin on the storymaster.systems entry point."""
