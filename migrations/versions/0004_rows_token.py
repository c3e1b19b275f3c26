"""A space's rows carry a token that changes whenever they are written, so a copy of its vectors kept outside
the database (benchmarks.store.vector_file) can tell it still holds what the table holds.

- `spaces.rows_token`: a random value, set anew by every sync that adds, updates or removes rows, and NULL
  while one is under way. Unlike the corpus digest, it also tells apart two fillings of a space with the same
  texts (a collection dropped and embedded again by another model build, or another server holding the same
  corpus). Spaces made before this revision get one now.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("spaces", sa.Column("rows_token", sa.String(32)))
    op.execute("UPDATE spaces SET rows_token = replace(gen_random_uuid()::text, '-', '')")


def downgrade() -> None:
    op.drop_column("spaces", "rows_token")
