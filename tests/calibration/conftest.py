"""Calibration runs the seeds' examples against a real LLM judge; nothing here starts a server."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "calibration: scores seed examples with a real LLM judge (needs BENCH_LLM_BASE_URL or OPENAI_BASE_URL "
        "and BENCH_LLM_MODEL); the run fails when none is configured",
    )
