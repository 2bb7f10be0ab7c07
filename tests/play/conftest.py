from play.kit import tally  # noqa: F401  (fixture)
