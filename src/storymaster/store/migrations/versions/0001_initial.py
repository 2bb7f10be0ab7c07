"""The first schema: users, sessions, API tokens, campaigns, scenes, memberships, the log, digests.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("token_sha256", name="pk_sessions"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_sessions_user_id_users", ondelete="CASCADE"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_api_tokens"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_api_tokens_user_id_users", ondelete="CASCADE"),
        sa.UniqueConstraint("token_sha256", name="uq_api_tokens_token_sha256"),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("system", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_campaigns"),
    )
    op.create_table(
        "scenes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_scenes"),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name="fk_scenes_campaign_id_campaigns"),
    )
    op.create_index("ix_scenes_campaign_id", "scenes", ["campaign_id"])
    op.create_table(
        "memberships",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "user_id", name="pk_memberships"),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name="fk_memberships_campaign_id_campaigns"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_memberships_user_id_users"),
    )
    op.create_index("ix_memberships_user", "memberships", ["user_id"])
    op.create_table(
        "entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stream", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("scene_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("actor", sa.Integer(), nullable=True),
        sa.Column("audience", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("rolls", sa.Text(), nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_entries"),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name="fk_entries_campaign_id_campaigns"),
        sa.ForeignKeyConstraint(["scene_id"], ["scenes.id"], name="fk_entries_scene_id_scenes"),
        sa.UniqueConstraint("stream", "seq", name="uq_entries_stream_seq"),
    )
    op.create_index("ix_entries_campaign_at", "entries", ["campaign_id", "at"])
    op.create_table(
        "digests",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("last_sent_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_digests"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_digests_user_id_users", ondelete="CASCADE"),
    )


def downgrade() -> None:
    for table in ("digests", "entries", "memberships", "scenes", "campaigns", "api_tokens", "sessions", "users"):
        op.drop_table(table)
