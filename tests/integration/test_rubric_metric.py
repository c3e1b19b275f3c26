"""A rubric metric declared in bench.toml, with no code change, through the CLI: `bench evaluate` (value,
statuses, --dry-run, several judges, resume, compare) and `bench tier2 --metrics`.

The scripted local server answers the rubric's prompt by reading it: the judge model and the response
(and which criterion) decide the score it gives.
"""

import json
import re
import shlex
from importlib.resources import files
from pathlib import Path

import pytest

from tests.integration.interrupt import ctrl_c_on_call
from tests.integration.item_scores import assert_scores_reproduce_report
from tests.integration.openai_server import FakeOpenAI, Reply
from tests.integration.test_tier2_cli import CORPUS, QUESTIONS, write_dataset

pytestmark = pytest.mark.integration

RUBRICS = """
[rubrics.politeness]
criteria = { en = "Is the response polite and free of blame towards the user?", \
ru = "Вежлив ли ответ и обходится ли он без упрёков пользователю?" }
scale = "binary"
needs = ["user_input", "response"]

[rubrics.helpfulness]
criteria = { en = "How much does the response help the user to act?" }
scale = "1-5"
"""
REWORDED = RUBRICS.replace("Is the response polite and free of blame towards the user?",
                           "Is the response courteous towards the user?")
RUBRIC_FIRST_LINE = (files("benchmarks") / "prompts" / "en" / "rubric.txt").read_text("utf-8").splitlines()[0]

POLITE, RUDE = "You find the form on the HR portal.", "It is on the portal, as everybody knows. Read the guide."
SAMPLES = [{"id": "s1", "user_input": "Where is the expense form?", "response": POLITE},
           {"id": "s2", "user_input": "Where is the travel form?", "response": RUDE},
           {"id": "s3", "user_input": "Who approves vacation?"}]  # no response: undetermined, never asked
# the judges' scores per (criterion, response): judge-b finds the rude answer polite, everyone else agrees
SCORES = {("politeness", POLITE): 1, ("politeness", RUDE): 0, ("helpfulness", POLITE): 5, ("helpfulness", RUDE): 2}
LENIENT = {("politeness", RUDE): 1}


def rubric_judge(body, lenient_models=("rubric-b",), courteous=None):
    """Answers a rubric prompt with a reason and the scripted score; anything else is not expected here."""
    prompt = body["messages"][0]["content"]
    assert prompt.splitlines()[0] == RUBRIC_FIRST_LINE, prompt[:80]
    criteria = re.search(r"^Criterion: (.*)$", prompt, re.MULTILINE).group(1)
    criterion = "politeness" if "polite" in criteria or "courteous" in criteria else "helpfulness"
    response = re.findall(r"^Response: (.*)$", prompt, re.MULTILINE)[-1]
    score = SCORES[criterion, response]
    if body["model"] in lenient_models:
        score = LENIENT.get((criterion, response), score)
    if courteous is not None and "courteous" in criteria:
        score = courteous
    return Reply(text=json.dumps({"reason": f"{criterion} judged by {body['model']}", "score": score}))


def write_samples(path, samples=SAMPLES):
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return path


def read(out):
    report = json.loads((out / "report.json").read_text())
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    return report, items


@pytest.fixture
def rubrics(tmp_path):
    """bench.toml in the test's working directory, declaring the two rubrics."""
    (tmp_path / "bench.toml").write_text(RUBRICS, encoding="utf-8")
    return tmp_path / "bench.toml"


def test_evaluate_scores_a_rubric_from_bench_toml(bench, tmp_path, monkeypatch, rubrics):
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = rubric_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-a")
        result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"),
                       "--metrics", "politeness,helpfulness", "-o", out)
        requests = server.chat_requests
    assert result.exit_code == 0, result.output
    report, items = read(out)
    politeness, helpfulness = report["metrics"]["politeness"], report["metrics"]["helpfulness"]
    assert (politeness["value"], politeness["n"], politeness["errors"]) == (0.5, 2, 0)  # s1 1, s2 0
    assert politeness["higher_is_better"] is True
    assert (helpfulness["value"], helpfulness["n"]) == (3.5, 2)  # on 1–5: (5 + 2) / 2
    assert report["notes"]["statuses"]["politeness"] == {"ok": 2, "undetermined": 1, "parse_error": 0, "truncated": 0,
                                                         "api_error": 0}
    assert report["notes"]["rubrics"]["helpfulness"]["scale"].startswith("1-5")
    assert report["notes"]["rubrics"]["politeness"]["criteria"]["en"].startswith("Is the response polite")
    assert set(report["provenance"]["judge"]["prompts_sha256"]) == {"en/rubric/politeness", "en/rubric/helpfulness"}
    assert report["settings"]["rubrics"]["politeness"]["scale"] == "binary"
    assert len(requests) == 4  # one call per metric and sample with a response
    s2 = items["s2"]["scores"]["politeness"]["rubric-a"]
    assert (s2["value"], s2["status"], s2["explanation"], s2["calls"]) == (
        0.0, "ok", "politeness judged by rubric-a", 1)
    s3 = items["s3"]["scores"]["politeness"]["rubric-a"]
    assert (s3["status"], s3["explanation"]) == ("undetermined", "missing field(s): response")
    assert assert_scores_reproduce_report(out) == {"politeness", "helpfulness"}


def test_dry_run_counts_one_call_per_sample(bench, tmp_path, monkeypatch, rubrics):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never called
    monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-a")
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"),
                   "--metrics", "politeness,faithfulness", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "no call made" in result.output
    rows = {m.group(1): int(m.group(2)) for m in re.finditer(r"│ (\w+)\s+│\s+(\d+) │", result.output)}
    assert rows["politeness"] == 2  # s1 and s2; s3 has no response
    assert rows["faithfulness"] == 0  # no sample has contexts


def test_several_judges_give_their_means_and_agreement(bench, tmp_path, monkeypatch, rubrics):
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = rubric_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-a")
        result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics", "politeness",
                       "--models", "rubric-a,rubric-b", "-o", out)
    assert result.exit_code == 0, result.output
    report, _ = read(out)
    metrics = report["metrics"]
    assert metrics["politeness/rubric-a"]["value"] == 0.5
    assert metrics["politeness/rubric-b"]["value"] == 1.0  # finds the rude answer polite
    assert metrics["politeness"]["value"] == 0.75  # mean over samples of the judges' mean: (1 + 0.5) / 2
    agreement = report["notes"]["agreement"]["politeness"]
    assert agreement["mean_absolute_difference"] == 0.5  # s1 agree (0), s2 differ (1)
    assert report["notes"]["statuses"]["politeness"]["ok"] == 4


def test_a_rubric_without_criteria_in_the_language_is_refused_before_any_call(bench, tmp_path, monkeypatch, rubrics):
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-a")
        result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"),
                       "--metrics", "politeness,helpfulness", "--language", "ru")
        assert server.chat_requests == []
    assert result.exit_code == 2
    assert "rubric 'helpfulness' has no criteria in 'ru'" in result.output


def test_offline_has_no_proxy_for_a_rubric(bench, tmp_path, rubrics):
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics", "politeness",
                   "--judge", "offline")
    assert result.exit_code == 2
    assert "--judge offline has no proxy for politeness" in result.output and "a rubric is a judgement" in result.output


def test_a_bad_rubric_stops_the_command_naming_the_file(bench, tmp_path):
    (tmp_path / "bench.toml").write_text('[rubrics.politeness]\ncriteria = { en = "Polite?" }\nscale = "1-10"\n')
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics", "politeness")
    assert result.exit_code == 2
    assert "bench.toml: key 'rubrics': rubric 'politeness': scale must be binary or 1-5, got '1-10'" in result.output


MANY = [{"id": f"r{i:02d}", "user_input": f"Where is form {i}?", "response": POLITE if i % 3 else RUDE}
        for i in range(18)]


def test_an_interrupted_evaluate_with_a_rubric_resumes_to_the_uninterrupted_report(bench, tmp_path, monkeypatch,
                                                                                  rubrics):
    samples = write_samples(tmp_path / "many.jsonl", MANY)
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    flags = ("--metrics", "politeness", "--no-cache", "--concurrency", "2")
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-resume")
        server.responder = ctrl_c_on_call(8, rubric_judge)
        interrupted = bench("evaluate", "--dataset", samples, *flags, "-o", stopped)
        assert interrupted.exit_code == 130, interrupted.output
        kept = {json.loads(line)["id"] for line in (stopped / "items.jsonl").read_text().splitlines()}
        assert 0 < len(kept) < len(MANY)

        (tmp_path / "bench.toml").write_text(REWORDED, encoding="utf-8")  # another rubric: not the same run
        server.responder = rubric_judge
        refused = bench("evaluate", "--dataset", samples, *flags, "--resume", stopped)
        (tmp_path / "bench.toml").write_text(RUBRICS, encoding="utf-8")
        generation = server.listen_afresh()  # a request the stopped run sent is never counted as the resumed one's
        resumed = bench("evaluate", "--dataset", samples, *flags, "--resume", stopped)
        resumed_calls = sum(r["generation"] == generation for r in server.chat_requests)
        full_run = bench("evaluate", "--dataset", samples, *flags, "-o", full)
    assert refused.exit_code == 2 and "rubrics" in refused.output
    assert resumed.exit_code == 0, resumed.output
    assert full_run.exit_code == 0, full_run.output
    assert resumed_calls == len(MANY) - len(kept)  # one call for every sample not kept
    stopped_report, full_report = read(stopped)[0], read(full)[0]
    for report in (stopped_report, full_report):
        report.pop("volatile")
    assert stopped_report == full_report
    assert full_report["metrics"]["politeness"]["value"] == pytest.approx(12 / 18, abs=1e-6)


def test_compare_shows_a_changed_rubric_and_its_effect(bench, tmp_path, monkeypatch, rubrics):
    samples = write_samples(tmp_path / "samples.jsonl")
    base, cand = tmp_path / "base", tmp_path / "cand"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-compare")
        server.responder = rubric_judge
        assert bench("evaluate", "--dataset", samples, "--metrics", "politeness", "-o", base).exit_code == 0
        (tmp_path / "bench.toml").write_text(REWORDED, encoding="utf-8")
        server.responder = lambda body: rubric_judge(body, courteous=1)
        assert bench("evaluate", "--dataset", samples, "--metrics", "politeness", "-o", cand).exit_code == 0
    result = bench("compare", base, cand, "--format", "json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.output)
    row = next(r for r in compared["metrics"] if r["metric"] == "politeness")
    assert (row["base"], row["candidate"], row["delta"], row["n_paired"]) == (0.5, 1.0, 0.5, 2)
    changed = {d["key"] for d in compared["config_diff"]}
    assert any(key.endswith("prompts_sha256.en/rubric/politeness") for key in changed), changed
    assert "settings.rubrics.politeness.criteria.en" in changed


# --- tier 2: the rubric graded on the system's answers ------------------------------------------------


def tier2_judge(body):
    """The seed ratings get a fixed score; the rubric scores the precomputed answers by their politeness."""
    prompt = body["messages"][0]["content"]
    if prompt.splitlines()[0] == RUBRIC_FIRST_LINE:
        response = re.findall(r"^Response: (.*)$", prompt, re.MULTILINE)[-1]
        return Reply(text=json.dumps({"reason": "tone checked", "score": int("Please" in response)}))
    return Reply(text=json.dumps({"score": 1}))


def test_tier2_grades_the_answers_with_a_rubric(bench, tmp_path, monkeypatch, rubrics):
    answered = [{**q, "response": f"Please see the wiki about {q['id']}." if q["id"] != "q2" else "Ask HR yourself."}
                for q in QUESTIONS[:3]]
    data = write_dataset(tmp_path / "t2", answered, CORPUS)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = tier2_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "rubric-tier2")
        result = bench("tier2", "--dataset", data, "--generator", "precomputed", "--repeats", "1",
                       "--metrics", "politeness", "-o", out)
        rubric_calls = [r for r in server.chat_requests
                        if r["body"]["messages"][0]["content"].splitlines()[0] == RUBRIC_FIRST_LINE]
    assert result.exit_code == 0, result.output
    report, items = read(out)
    assert report["metrics"]["politeness"]["value"] == pytest.approx(2 / 3, abs=1e-6)  # q2's answer is curt
    assert report["metrics"]["politeness"]["n"] == 3
    assert report["notes"]["statuses"]["ragas:politeness"] == {"ok": 3}
    assert items["q2"]["scores"]["politeness"] == {"rubric-tier2": {"value": 0.0, "status": "ok",
                                                                    "explanation": "tone checked"}}
    assert assert_scores_reproduce_report(out) == set(report["metrics"])
    assert report["notes"]["rubrics"]["politeness"]["needs"] == ["user_input", "response"]
    assert "en/rubric/politeness" in report["provenance"]["judge"]["prompts_sha256"]
    assert len(rubric_calls) == 3  # one per answered question
    prompts = [r["body"]["messages"][0]["content"] for r in rubric_calls]
    assert any(p.endswith("Question: How do I connect to the VPN?\nResponse: Please see the wiki about q1.\nOutput:\n")
               for p in prompts)


def test_tier2_offline_refuses_a_rubric(bench, tmp_path, rubrics):
    data = write_dataset(tmp_path / "t2", [{**QUESTIONS[0], "response": "Install it."}], CORPUS)
    result = bench("tier2", "--dataset", data, "--generator", "precomputed", "--judge", "offline",
                   "--metrics", "politeness")
    assert result.exit_code == 2
    assert "--judge offline has no proxy for politeness" in result.output


def test_the_documented_rubric_runs_as_written(bench, tmp_path, monkeypatch):
    """The bench.toml block of docs/commands/evaluate.md and its `bench evaluate` line, run as written against the
    local server."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "commands" / "evaluate.md").read_text(encoding="utf-8")
    section = page[page.index("**Your own rubric metric**"):]
    toml_block = re.search(r"```toml\n(.*?)```", section, re.DOTALL).group(1)
    command = next(line for line in re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1).splitlines()
                   if line.startswith("bench evaluate"))
    (tmp_path / "bench.toml").write_text(toml_block, encoding="utf-8")
    write_samples(tmp_path / "samples.jsonl", [{**s, "retrieved_contexts": ["The form is on the HR portal."]}
                                               for s in SAMPLES])

    def judge(body):
        prompt = body["messages"][0]["content"]
        if prompt.splitlines()[0] == RUBRIC_FIRST_LINE:
            return rubric_judge(body, lenient_models=())
        if prompt.startswith("You judge whether statements"):  # faithfulness: the one statement is supported
            return Reply(text=json.dumps({"verdicts": [
                {"statement": "The form is on the HR portal.", "reason": "The context says so.", "verdict": 1}]}))
        return Reply(text=json.dumps({"statements": ["The form is on the HR portal."]}))

    with FakeOpenAI() as server:
        server.responder = judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "unused-default")
        result = bench(*shlex.split(command)[1:], "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report, _ = read(tmp_path / "out")
    assert report["metrics"]["politeness"]["value"] == 0.5 and report["metrics"]["politeness"]["n"] == 2
    assert {"politeness/a", "politeness/b"} <= set(report["metrics"])
    assert report["metrics"]["faithfulness"]["value"] == 1.0
