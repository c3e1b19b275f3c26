"""The compare result's declared shape (benchmarks/compare/result.py) is the JSON `bench compare --format json`
prints: on a comparison where every optional part is present, each object holds exactly the keys its TypedDict
declares, every declared key and every nested shape occurs, and each value has its declared type."""

import json
import types
from collections import defaultdict
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.compare.result import CompareResult
from tests.unit.compare_helpers import item, write_run

N = 30


def _items(values: dict[str, list[float | None]], ids: list[str]) -> list[dict[str, Any]]:
    """Items with a binary faithfulness label each (agreement) and a source document per three (clusters)."""
    return [item(i, {name: column[k] for name, column in values.items()}, cluster=f"doc{k // 3}",
                 inputs={"question": f"question {i}", "labels": {"faithfulness": int(k % 2 == 0)}})
            for k, i in enumerate(ids)]


def _metrics(items: list[dict[str, Any]], *, latency: float, extra: str) -> dict[str, dict[str, Any]]:
    """Each per-item metric's mean, with faithfulness's agreement, a report-only latency (a row without per-item
    values) and one metric only this side has."""
    out: dict[str, dict[str, Any]] = {}
    for name in ("ndcg@10", "faithfulness"):
        values = [v for i in items if (s := i["scores"][name]["bench"])["status"] == "ok" for v in [s["value"]]]
        out[name] = {"value": sum(values) / len(values), "n": len(values), "errors": len(items) - len(values),
                     "ci95": None, "higher_is_better": True}
    out["faithfulness"]["agreement"] = {"n": len(items), "labels": "binary",
                                        "roc_auc": {"value": 0.75, "ci95": None, "n": len(items)}}
    out["latency_ms"] = {"value": latency, "n": 1, "errors": 0, "ci95": [latency - 5, latency + 5],
                         "higher_is_better": False}
    out[extra] = {"value": 0.5, "n": 1, "errors": 0, "ci95": None, "higher_is_better": True}
    return out


def _rich_pair(tmp_path):
    """Every part of a result: a mismatch (another dataset content, --allow-mismatch), a changed floating-point
    path, dropped and added items, lost and gained values, failed items, flipped cases, a broken gate, Holm across
    two primary metrics, most regressed items, agreement, a config diff, metrics one side lacks, unknown gates."""
    ids = [f"q{k:02d}" for k in range(N)]
    base_values: dict[str, list[float | None]] = {
        "ndcg@10": [0.9 if k % 2 else 0.6 for k in range(N)],
        "faithfulness": [0.8 if k % 2 == 0 else 0.3 for k in range(N)]}
    cand_values: dict[str, list[float | None]] = {
        "ndcg@10": [None if k < 2 else 0.4 if k % 2 else 0.6 for k in range(N)],
        "faithfulness": [0.2 if k % 3 == 0 else 0.9 for k in range(N)]}
    base_values["ndcg@10"][-1] = None  # gained back by the candidate
    cand_values["ndcg@10"][-1] = 0.7
    base_items = _items(base_values, ids)
    cand_items = _items(cand_values, ids[1:] + ["new"])
    path = {"cpu": "X (x86_64: avx2 fma)", "blas": "openblas 0.3.31, kernel Haswell", "numpy_simd": "X86_V3"}
    base = write_run(tmp_path / "base", base_items, _metrics(base_items, latency=100.0, extra="base_only"),
                     settings={"top_k": 10}, provenance={"numeric_path": {**path, "libm": "glibc 2.36"}})
    cand = write_run(tmp_path / "cand", cand_items, _metrics(cand_items, latency=140.0, extra="cand_only"),
                     sha="b" * 64, settings={"top_k": 20}, provenance={"numeric_path": {**path, "libm": "glibc 2.41"}})
    gates = tmp_path / "gates.toml"
    gates.write_text('[metrics."ndcg@10"]\nprimary = true\nfloor = 0.9\n[metrics.faithfulness]\nprimary = true\n'
                     '[metrics.nope]\nmin_effect = 0.1\n', encoding="utf-8")
    return base, cand, gates


def test_the_json_holds_exactly_the_declared_keys_and_types(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base, cand, gates = _rich_pair(tmp_path)
    out = CliRunner().invoke(app, ["compare", str(base), str(cand), "--gates", str(gates), "--allow-mismatch",
                                   "--format", "json", "--resamples", "200"], catch_exceptions=False)
    assert out.exit_code == 1, out.output
    result = json.loads(out.output)
    seen: dict[str, set[str]] = defaultdict(set)
    problems = _check(result, CompareResult, "result", seen)
    assert problems == []
    shapes = _shapes(CompareResult)
    assert sorted(shapes) == sorted(seen), "a shape the crafted pair never produced"
    assert {name: sorted(keys - seen[name]) for name, keys in shapes.items() if keys - seen[name]} == {}


def test_the_check_sees_a_misspelt_key_a_missing_one_and_a_wrong_type():
    """The checker above could fail: a renamed key, a dropped one and a string count are each reported."""
    good = {"tier": "tier1", "tier_version": "1.0"}
    assert _check(good, CompareResult.__annotations__["kind"], "kind", defaultdict(set)) == []
    wrong = {"tier": "tier1", "tier_versoin": "1.0"}
    assert _check(wrong, CompareResult.__annotations__["kind"], "kind", defaultdict(set)) == [
        "kind: undeclared tier_versoin", "kind: missing tier_version"]
    bootstrap = {"resamples": "200", "seed": 0, "unit": "sample", "clusters": None, "interval": "x"}
    assert _check(bootstrap, CompareResult.__annotations__["bootstrap"], "b", defaultdict(set)) == [
        "b.resamples: '200' is not int", "b.unit: 'sample' is not one of ('source document', 'item')"]


def _check(value: Any, hint: Any, where: str, seen: dict[str, set[str]]) -> list[str]:
    """What in `value` its declared type `hint` does not allow; `seen` collects each shape's keys met."""
    origin = get_origin(hint)
    if hint is Any:
        return []
    if origin is NotRequired:
        return _check(value, get_args(hint)[0], where, seen)
    if origin in (Union, types.UnionType):
        members = get_args(hint)
        if value is None and type(None) in members:
            return []
        found = [_check(value, m, where, seen) for m in members if m is not type(None)]
        return [] if any(not f for f in found) else found[0]
    if origin is Literal:
        return [] if value in get_args(hint) else [f"{where}: {value!r} is not one of {get_args(hint)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [p for k, v in enumerate(value) for p in _check(v, get_args(hint)[0], f"{where}[{k}]", seen)]
    if is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object"]
        declared = get_type_hints(hint)
        seen[hint.__name__].update(k for k in value if k in declared)
        problems = [f"{where}: undeclared {k}" for k in value if k not in declared]
        problems += [f"{where}: missing {k}" for k in sorted(hint.__required_keys__) if k not in value]
        return problems + [p for k, v in value.items() if k in declared
                           for p in _check(v, declared[k], f"{where}.{k}", seen)]
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, hint) and (hint is bool or not isinstance(value, bool))
    return [] if ok else [f"{where}: {value!r} is not {hint.__name__}"]


def _shapes(hint: Any, out: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Every TypedDict reachable from `hint`, by name, with its declared keys."""
    out = {} if out is None else out
    if is_typeddict(hint):
        if hint.__name__ in out:
            return out
        out[hint.__name__] = set(get_type_hints(hint))
        for field in get_type_hints(hint).values():
            _shapes(field, out)
    for arg in get_args(hint):
        _shapes(arg, out)
    return out
