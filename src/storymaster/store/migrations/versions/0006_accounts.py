"""Accounts: names compared case-folded (``users.name_key``), API tokens with a scope.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(64), nullable=True))
    op.execute("UPDATE users SET name_key = lower(trim(name))")  # names so far were ASCII: lower is the fold
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name_key", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("uq_users_name_key", ["name_key"])
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("scope", sa.String(16), nullable=False, server_default="all"))


def downgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("scope")
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_name_key", type_="unique")
        batch.drop_column("name_key")
