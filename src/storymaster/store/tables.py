"""The tables. Rows are not domain objects: :mod:`.repo` maps between them.

The log (``entries``) is the source of truth and only grows; ``campaigns`` and
``scenes`` hold each log's head (for locking and linking) and the scene's
secret seed; ``memberships`` is a projection of the campaign logs kept in the
same transaction, so "my campaigns" is one query.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "api_tokens",
    "campaigns",
    "digests",
    "entries",
    "idempotency",
    "invites",
    "memberships",
    "metadata",
    "portraits",
    "scene_reads",
    "scenes",
    "server_keys",
    "sessions",
    "users",
]

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    #: the name as names are compared: NFKC, trimmed, case-folded
    Column("name_key", String(64), nullable=False, unique=True),
    Column("email", String(254), nullable=True),
    Column("password_hash", String(255), nullable=False),
    Column("created_at", String(40), nullable=False),
    #: when the address was confirmed by its mailed link (digests go only to confirmed addresses)
    Column("email_confirmed_at", String(40), nullable=True),
    #: the pending confirmation link's token (hashed) and when it stops working
    Column("email_token_sha256", String(64), nullable=True),
    Column("email_token_expires", String(40), nullable=True),
    #: what the digest carries: "all" (new posts and turns), "turns" (only "your turn"), "off"
    Column("digest", String(16), nullable=False, server_default="all"),
    #: the reader's IANA time zone for deadlines (None: UTC, or the browser's when scripts run)
    Column("time_zone", String(64), nullable=True),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("expires_at", String(40), nullable=False),
)

api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", String(40), nullable=False),
    #: "all" (everything its user may do) or "read" (GET only: feeds and bots that watch)
    Column("scope", String(16), nullable=False, server_default="all"),
)

campaigns = Table(
    "campaigns",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("system", String(64), nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("head_seq", Integer, nullable=False, default=0),
    Column("head_hash", String(64), nullable=True),
)

scenes = Table(
    "scenes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", Integer, ForeignKey("campaigns.id"), nullable=False, index=True),
    Column("seed", String(128), nullable=False),
    Column("head_seq", Integer, nullable=False, default=0),
    Column("head_hash", String(64), nullable=True),
)

memberships = Table(
    "memberships",
    metadata,
    Column("campaign_id", Integer, ForeignKey("campaigns.id"), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("role", String(16), nullable=False),
    Index("ix_memberships_user", "user_id"),
)

entries = Table(
    "entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("stream", String(32), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("campaign_id", Integer, ForeignKey("campaigns.id"), nullable=False),
    Column("scene_id", Integer, ForeignKey("scenes.id"), nullable=True),
    Column("kind", String(32), nullable=False),
    Column("at", String(40), nullable=False),
    Column("actor", Integer, nullable=True),
    Column("audience", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("rolls", Text, nullable=False),
    Column("prev", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    #: the body's commitment salt (version 2); NULL on entries written before salting
    Column("salt", String(64), nullable=True),
    UniqueConstraint("stream", "seq", name="uq_entries_stream_seq"),
    Index("ix_entries_campaign_at", "campaign_id", "at"),
)

digests = Table(
    "digests",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("last_sent_at", String(40), nullable=False),
)

#: the table's Ed25519 signing key (one row), shared by every worker
server_keys = Table(
    "server_keys",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("private_hex", String(64), nullable=False),
    Column("created_at", String(40), nullable=False),
)

#: invitation links: random tokens, stored hashed, per role, with optional expiry and use count
invites = Table(
    "invites",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", Integer, ForeignKey("campaigns.id"), nullable=False, index=True),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("created_by", Integer, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("expires_at", String(40), nullable=True),
    Column("max_uses", Integer, nullable=True),
    Column("uses", Integer, nullable=False, default=0),
    Column("revoked_at", String(40), nullable=True),
    Column("revoked_why", String(200), nullable=True),
)

#: posts by idempotency key: a retried request finds the post its first try wrote
idempotency = Table(
    "idempotency",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("key", String(100), primary_key=True),
    Column("scene_id", Integer, ForeignKey("scenes.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("at", String(40), nullable=False),
)

#: how far each reader has read each scene (the newest log entry they were shown): unread counts
scene_reads = Table(
    "scene_reads",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("scene_id", Integer, ForeignKey("scenes.id"), primary_key=True),
    Column("seq", Integer, nullable=False),
)

#: a character's portrait: validated and resized on upload (Pillow), stored here as WebP
portraits = Table(
    "portraits",
    metadata,
    Column("campaign_id", Integer, ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True),
    Column("character_id", Integer, primary_key=True),
    Column("media_type", String(32), nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("uploaded_by", Integer, nullable=False),
    Column("at", String(40), nullable=False),
)
