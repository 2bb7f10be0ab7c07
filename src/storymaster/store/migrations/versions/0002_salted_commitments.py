"""Salted commitments: each log entry keeps the salt of its body's commitment (NULL before this revision).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("salt", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("salt")
