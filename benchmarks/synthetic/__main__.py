"""Regenerate the synthetic datasets: `python -m benchmarks.synthetic --out datasets`.

With no other option this rewrites the shipped `synthetic` (English) and `synthetic-ru`
(Russian) sets byte for byte, each with `judge_pipeline.jsonl` (200 show/no-show items for
the production judge) and `judge_pairs.jsonl` (100 answer pairs for `bench judge --pairwise`),
both the same size at every scale. `--scale N` adds 20 numbered entities per scalable page
family for every step above 1 and writes `synthetic-xN` / `synthetic-ru-xN` instead, for
performance benchmarks: `--scale 28` is the smallest scale with at least 10,000 chunks
(10,031) and 2,000 questions (14,126) per language. Write scaled sets outside `datasets/`
(e.g. `--out /tmp/bench-data`), since that folder is packed into the wheel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.synthetic.bank_files import bank_path, shown
from benchmarks.synthetic.generate import LANGUAGES, check_bank, load_bank, write_dataset
from benchmarks.synthetic.model import Bank, BankMismatch


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.synthetic",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument("--out", type=Path, default=Path("datasets"), help="parent folder of the datasets")
    parser.add_argument(
        "--languages",
        default=",".join(LANGUAGES),
        help=f"comma-separated languages to generate (default: {','.join(LANGUAGES)})",
    )
    parser.add_argument("--scale", type=int, default=1, help="1 for the shipped sets, more for larger ones")
    args = parser.parse_args(argv)
    if args.scale < 1:
        parser.error("--scale must be at least 1")
    return args


def _banks(languages: str) -> list[Bank]:
    """Load and check every bank before writing anything, so a bad language leaves no half-updated output."""
    banks = []
    for language in (code.strip() for code in languages.split(",") if code.strip()):
        path = bank_path(language)
        if not path.is_file():
            raise SystemExit(f"no bank for language {language!r}: {shown(path)} is missing")
        bank = load_bank(language)
        check_bank(bank)
        banks.append(bank)
    if not banks:
        raise SystemExit("--languages names no language")
    return banks


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        banks = _banks(args.languages)
    except BankMismatch as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for bank in banks:
        target = write_dataset(bank, args.out, args.scale)
        print(f"{target}: {_summary(target)}")
    return 0


def _summary(target: Path) -> str:
    counts = json.loads((target / "manifest.json").read_text(encoding="utf-8"))["counts"]
    return ", ".join(f"{value} {key}" for key, value in counts.items())


if __name__ == "__main__":
    sys.exit(main())
