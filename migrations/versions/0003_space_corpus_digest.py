"""Each space remembers the digest of the corpus its rows were last made equal to.

A rerun on an unchanged corpus then compares one digest (benchmarks.store.vectors.corpus_digest)
instead of reading every stored row's hash: at a million chunks, seconds of every run. NULL (a
space made before this revision, or never synced to completion) means unknown: the next sync
compares the rows and writes it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("spaces", sa.Column("corpus_sha256", sa.String(64)))


def downgrade() -> None:
    op.drop_column("spaces", "corpus_sha256")
