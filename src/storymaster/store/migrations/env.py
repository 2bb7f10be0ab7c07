"""Alembic environment: run with a connection handed over by :func:`storymaster.store.db.migrate`."""

from alembic import context
from sqlalchemy import create_engine

from storymaster.store.tables import metadata

config = context.config
connection = config.attributes.get("connection")


def _run(conn) -> None:
    context.configure(connection=conn, target_metadata=metadata, render_as_batch=conn.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    _run(connection)
else:  # the alembic command line: sqlalchemy.url from alembic.ini or -x url=...
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    with create_engine(url).connect() as conn:
        _run(conn)
