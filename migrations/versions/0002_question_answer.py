"""Real users' logged turns: the seeds' production `question_answer` table, plus import bookkeeping.

The seed columns (id, question, answer, confluence_url, score, session_id, turn_order,
created_at) are exactly what bench reads from a production database, so a log imported here
and a production table look the same to the tiers. `log_name` and `record_key` exist only in
bench's copy: several logs can live side by side, and UNIQUE(log_name, record_key) makes a
re-import of the same file a no-op instead of a second copy of every row.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "question_answer",
        sa.Column("id", sa.BigInteger, primary_key=True),  # bigserial
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer", sa.Text),
        sa.Column("confluence_url", sa.Text),
        sa.Column("score", sa.SmallInteger),
        sa.Column("session_id", sa.Text),
        sa.Column("turn_order", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True)),
        sa.Column("log_name", sa.Text, nullable=False),
        sa.Column("record_key", sa.Text, nullable=False),
        sa.CheckConstraint("score BETWEEN 1 AND 5", name="question_answer_score_check"),
        sa.UniqueConstraint("log_name", "record_key", name="question_answer_log_record_key"),
    )
    op.create_index("question_answer_session_idx", "question_answer", ["log_name", "session_id", "turn_order"])


def downgrade() -> None:
    op.drop_table("question_answer")
