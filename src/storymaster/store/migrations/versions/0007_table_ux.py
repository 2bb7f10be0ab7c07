"""The table's reader side: where each reader stopped in each scene (unread counts), characters' portraits,
and per-user mail settings (a confirmed e-mail address, the digest's choice, the reader's time zone).

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("email_confirmed_at", sa.String(40), nullable=True))
        batch.add_column(sa.Column("email_token_sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("email_token_expires", sa.String(40), nullable=True))
        batch.add_column(sa.Column("digest", sa.String(16), nullable=False, server_default="all"))
        batch.add_column(sa.Column("time_zone", sa.String(64), nullable=True))
    op.create_table(
        "scene_reads",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("scene_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "scene_id", name="pk_scene_reads"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_scene_reads_user_id_users", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["scene_id"], ["scenes.id"], name="fk_scene_reads_scene_id_scenes"),
    )
    op.create_table(
        "portraits",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("media_type", sa.String(32), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("uploaded_by", sa.Integer(), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "character_id", name="pk_portraits"),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name="fk_portraits_campaign_id_campaigns", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("portraits")
    op.drop_table("scene_reads")
    with op.batch_alter_table("users") as batch:
        for col in ("time_zone", "digest", "email_token_expires", "email_token_sha256", "email_confirmed_at"):
            batch.drop_column(col)
