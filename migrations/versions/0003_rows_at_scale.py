"""Rows at a million chunks: a space remembers its corpus's digest, and vectors stay in the table's pages.

- `spaces.corpus_sha256`: the digest of the corpus a space's rows were last made equal to
  (benchmarks.store.vectors.corpus_digest). A rerun on an unchanged corpus then compares one digest
  instead of reading every stored row's hash. NULL (a space made before this revision, or never synced to
  completion) means unknown: the next sync compares the rows and writes it.
- `chunks.embedding` STORAGE MAIN: pgvector's type defaults to EXTERNAL, so a row of about 2 kB (a
  384-d vector and a paragraph of text) had its vector moved to the TOAST table, and reading a space's
  vectors cost one TOAST lookup per row (15 s at a million chunks). MAIN keeps the vector in the row and
  moves the text out first; a vector too large for a page still goes out of line. Rows written before this
  revision keep their layout until rewritten.

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
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN")


def downgrade() -> None:
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE EXTERNAL")
    op.drop_column("spaces", "corpus_sha256")
