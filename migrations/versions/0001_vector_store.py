"""Vector store: embedding spaces, chunks and the embedding cache.

A space is one (collection, embedding model) pair. Its dimension is fixed, and HNSW indexes are
built per space as partial expression indexes on embedding::vector(dim), because pgvector can
only index a column of fixed dimension while one table holds every model's vectors.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "spaces",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("model_id", sa.Text, nullable=False),
        sa.Column("dimension", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.UniqueConstraint("collection", "model_id", name="spaces_collection_model_key"),
    )
    op.create_table(
        "chunks",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("space_id", sa.Integer, sa.ForeignKey("spaces.id", ondelete="CASCADE"), nullable=False),
        sa.Column("external_id", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False, server_default=""),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("model_id", sa.Text, nullable=False),
        sa.Column("embedding", Vector(), nullable=False),
        sa.UniqueConstraint("space_id", "external_id", name="chunks_space_external_key"),
    )
    op.create_table(
        "embedding_cache",
        sa.Column("model_id", sa.Text, primary_key=True),
        sa.Column("text_sha256", sa.String(64), primary_key=True),
        sa.Column("embedding", Vector(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("embedding_cache")
    op.drop_table("chunks")
    op.drop_table("spaces")
