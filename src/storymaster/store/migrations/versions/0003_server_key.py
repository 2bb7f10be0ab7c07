"""The table's Ed25519 signing key, shared by every worker.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("private_hex", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_server_keys"),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
