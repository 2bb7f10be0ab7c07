"""Invitation links: random tokens stored hashed, per role, with optional expiry and use count, revocable.

Links made before this revision were derived from the campaign log and are no longer accepted.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40), nullable=True),
        sa.Column("max_uses", sa.Integer(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.String(40), nullable=True),
        sa.Column("revoked_why", sa.String(200), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_invites"),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name="fk_invites_campaign_id_campaigns"),
        sa.UniqueConstraint("token_sha256", name="uq_invites_token_sha256"),
    )
    op.create_index("ix_invites_campaign_id", "invites", ["campaign_id"])


def downgrade() -> None:
    op.drop_table("invites")
