"""bench's settings: declared by domain (one module each), composed into one flat `Settings`, loaded with the
origin of every value kept.

Every setting can be given as a CLI flag, an environment variable or a bench.toml key, so a nightly cron can
pin a value in bench.toml and a developer can override it for one run. Secrets are read from the environment
only; they are masked wherever settings are shown (`benchmarks.transport.redaction`).
"""

from benchmarks.config.judging_settings import (
    PROMPT_LANGUAGES,
    PromptLanguage,
    check_rubrics,
    correctness_weights,
)
from benchmarks.config.loading import (
    OTHER_VARIABLES,
    Layer,
    Origins,
    Source,
    load_settings,
    refused_key,
    unknown_setting,
    warn_unknown_variables,
)
from benchmarks.config.retrieval_settings import megabytes
from benchmarks.config.settings import (
    SETTING_FIELDS,
    ScopedSettings,
    Settings,
    env_names,
    help_for,
    setting_type,
)

__all__ = [
    "OTHER_VARIABLES", "PROMPT_LANGUAGES", "SETTING_FIELDS", "Layer", "Origins", "PromptLanguage",
    "ScopedSettings", "Settings", "Source", "check_rubrics", "correctness_weights", "env_names", "help_for",
    "load_settings", "megabytes", "refused_key", "setting_type", "unknown_setting", "warn_unknown_variables",
]
