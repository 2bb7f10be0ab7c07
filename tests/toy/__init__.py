"""A sixth rule system that lives only in the tests: see toy_rpg.py."""
