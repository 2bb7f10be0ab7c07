from play.kit import db_url, pg_url, tally  # noqa: F401  (fixtures)
