"""`bench judge` runs that are never lost: Ctrl-C mid-run, then `--resume`, against a scripted judge.

The judge answers by what it is shown (no call counting), so an uninterrupted run is the reference
a resumed one must equal. Ctrl-C is a real SIGINT sent to this process from the server's thread on
the Nth call: asyncio.run cancels the run and the CLI exits 130, as it would for a user. Every run
goes without the reply cache, so every item a session does is a call the server sees.
"""

import json
import re
import zlib

import pytest

from tests.integration.interrupt import ctrl_c_on_call
from tests.integration.openai_server import Reply
from tests.integration.test_judge_tier_cli import write_jsonl

pytestmark = pytest.mark.integration

ITEMS = [{"id": f"i{n:02d}", "question": f"Q{n}?", "context": f"C{n}.", "answer": f"A{n}."} for n in range(10)]
PAIRS = [{"id": f"p{n:02d}", "question": f"Q{n}?", "context": f"C{n}.", "answer_a": f"right {n}",
          "answer_b": f"wrong {n}", "better": "a"} for n in range(10)]


def shown_answer(body) -> str:
    """The item's answer (a rating), or answer A (a comparison): which item or pair a call is about."""
    prompt = body["messages"][0]["content"]
    return re.search(r"^Answer(?: A)?: (.*)$", prompt, re.MULTILINE).group(1)


def rating_judge(body) -> Reply:
    """A score of many digits from the model and the answer, the same for every repeat."""
    score = zlib.crc32(f"{body['model']}:{shown_answer(body)}".encode()) % 1000 / 997
    return Reply(text=json.dumps({"score": score}))


def pairwise_judge(body) -> Reply:
    """jr-first says "A" whatever it is shown; any other model picks the right answer."""
    shown = re.findall(r"^Answer [AB]: (.*)$", body["messages"][0]["content"], re.MULTILINE)
    verdict = "A" if body["model"] == "jr-first" or shown[0].startswith("right") else "B"
    return Reply(text=json.dumps({"verdict": verdict}))


def stable(folder):
    """The report without its volatile block, and the final item rows."""
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    return report, (folder / "items.jsonl").read_text().splitlines()


def journaled_ids(folder) -> set[str]:
    return {json.loads(line)["id"] for line in (folder / "items.jsonl").read_text().splitlines()}


def interrupt(bench, llm, judge, nth, folder, *args):
    """Run `bench judge *args` into `folder` until Ctrl-C on the nth call; the ids it kept."""
    llm.responder = ctrl_c_on_call(nth, judge)
    result = bench("judge", *args, "-o", folder)
    assert result.exit_code == 130, result.output
    kept = journaled_ids(folder)
    assert f"interrupted: {len(kept)} finished item(s) kept in {folder / 'items.jsonl'}" in result.output
    command = "judge --pairwise" if "--pairwise" in args else "judge"  # the fallback hint names the command
    assert f"resume with: bench {command} --dataset" in result.output and f"--resume {folder}" in result.output
    assert (folder / "run.json").exists() and not (folder / "report.json").exists()
    return kept


def resume(bench, llm, judge, folder, *args):
    """Resume the stopped run in `folder`; the calls this session made."""
    llm.responder = judge
    resumed = llm.listen_afresh()  # a request the stopped run sent is never counted as this session's
    result = bench("judge", *args, "--resume", folder)
    assert result.exit_code == 0, result.output
    assert not (folder / "run.json").exists()  # a finished run
    return [r for r in llm.chat_requests if r["generation"] == resumed]


def test_an_interrupted_rating_run_resumes_to_the_report_of_an_uninterrupted_run(bench, tmp_path, llm):
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    flags = ("--dataset", items, "--models", "jr-rate-1,jr-rate-2", "--repeats", "2", "--concurrency", "1",
             "--no-cache")
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    # 4 calls an item, at most 2 items open: 10 answered calls finish at least one item, and not all
    kept = interrupt(bench, llm, rating_judge, 11, stopped, *flags)
    assert 0 < len(kept) < len(ITEMS)

    calls = resume(bench, llm, rating_judge, stopped, *flags)
    kept_answers = {item["answer"] for item in ITEMS if item["id"] in kept}
    assert not {shown_answer(call["body"]) for call in calls} & kept_answers
    assert len(calls) == (len(ITEMS) - len(kept)) * 2 * 2  # every other item: 2 models × 2 repeats

    llm.responder = rating_judge
    result = bench("judge", *flags, "-o", full)
    assert result.exit_code == 0, result.output
    assert stable(stopped) == stable(full)
    report = json.loads((stopped / "report.json").read_text())
    assert report["volatile"]["resumed"] == {"restored_items": len(kept)}
    assert report["metrics"]["error_rate"]["n"] == len(ITEMS) * 2 * 2


def test_an_interrupted_pairwise_run_resumes_to_the_report_of_an_uninterrupted_run(bench, tmp_path, llm):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    judge = pairwise_judge
    flags = ("--pairwise", "--dataset", pairs, "--models", "jr-first,jr-pair-fair", "--concurrency", "1",
             "--no-cache")
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    kept = interrupt(bench, llm, judge, 11, stopped, *flags)
    assert 0 < len(kept) < len(PAIRS)

    calls = resume(bench, llm, judge, stopped, *flags)
    kept_answers = {pair["answer_a"] for pair in PAIRS if pair["id"] in kept}
    asked = {shown_answer(call["body"]).replace("wrong", "right") for call in calls}  # either order names the pair
    assert not asked & kept_answers
    assert len(calls) == (len(PAIRS) - len(kept)) * 2 * 2  # every other pair: 2 models × 2 orders

    llm.responder = judge
    result = bench("judge", *flags, "-o", full)
    assert result.exit_code == 0, result.output
    assert stable(stopped) == stable(full)
    report = json.loads((stopped / "report.json").read_text())
    assert report["volatile"]["resumed"] == {"restored_items": len(kept)}
    assert report["metrics"]["position_consistency/jr-first"]["value"] == 0.0
    assert report["metrics"]["pairwise_accuracy/jr-pair-fair"]["value"] == 1.0


def test_resuming_with_another_rating_or_repeats_is_refused_naming_the_difference(bench, tmp_path, llm):
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    flags = ("--dataset", items, "--models", "jr-refused", "--concurrency", "1", "--no-cache")
    stopped = tmp_path / "stopped"
    kept = interrupt(bench, llm, rating_judge, 5, stopped, *flags)
    asked = len(llm.chat_requests)

    other_rating = bench("judge", *flags, "--metric", "answer_relevance", "--resume", stopped)
    assert other_rating.exit_code == 2, other_rating.output
    assert "--metric 'faithfulness' → 'answer_relevance'" in other_rating.output
    more_repeats = bench("judge", *flags, "--repeats", "3", "--resume", stopped)
    assert more_repeats.exit_code == 2, more_repeats.output
    assert "repeats 2 → 3" in more_repeats.output
    other_models = bench("judge", *flags[:2], "--models", "jr-refused,jr-other", *flags[4:], "--resume", stopped)
    assert other_models.exit_code == 2, other_models.output
    assert "models ['jr-refused'] → ['jr-refused', 'jr-other']" in other_models.output
    assert len(llm.chat_requests) == asked  # a refused session asks nothing
    assert journaled_ids(stopped) == kept and (stopped / "run.json").exists()  # and the run can still go on
