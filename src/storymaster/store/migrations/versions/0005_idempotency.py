"""Idempotency keys for posts: a retry after a lost response finds the post instead of posting twice.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("scene_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "key", name="pk_idempotency"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_idempotency_user_id_users", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["scene_id"], ["scenes.id"], name="fk_idempotency_scene_id_scenes"),
    )


def downgrade() -> None:
    op.drop_table("idempotency")
