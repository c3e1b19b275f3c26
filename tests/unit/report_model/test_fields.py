"""Every field of report.json is described where it is declared: the report schema page of the docs is generated
from these descriptions (through report.schema.json; tests/unit/docs/test_site.py reads one there), so a field added
without one leaves a blank there."""

import inspect

from pydantic import BaseModel

import benchmarks.report_model as model


def report_models() -> list[type[BaseModel]]:
    return [cls for _, cls in inspect.getmembers(model, inspect.isclass)
            if issubclass(cls, BaseModel) and cls.__module__.startswith(model.__name__)]


def test_every_field_of_every_report_model_has_a_description_that_is_a_sentence():
    found = report_models()
    assert {"Report", "DatasetBlock", "Provenance", "MetricEntry", "LabelAgreement", "Notes", "Volatile"} <= {
        cls.__name__ for cls in found}
    fields = [(f"{cls.__name__}.{name}", info.description or "") for cls in found
              for name, info in cls.model_fields.items()]
    assert len(fields) > 100
    undescribed = [name for name, description in fields if not description.strip()]
    assert not undescribed, f"fields without a description: {undescribed}"
    unfinished = [name for name, description in fields if not description.endswith(".")]
    assert not unfinished, f"descriptions that are no whole sentence: {unfinished}"

