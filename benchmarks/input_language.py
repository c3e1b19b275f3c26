"""The prompt language of a run on samples or items: the one the user set, else the texts' own.

A Russian samples file judged with English prompts gives numbers that look right and are not (the
judge's instructions, its examples and the offline proxies' stop words are all English), so a run whose
`language` was left at its default takes its input's language, told by script as datasets' is
(`metrics.language`), and says so on stderr; the report's config names the source `detected`. Each
unit's language is told on its own too: a file that mixes languages is judged in its majority's, and a
warning counts the others, since one prompt language serves a whole run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from benchmarks.config import PROMPT_LANGUAGES, Origins, Settings
from benchmarks.inputs import InputSet, Warning
from benchmarks.metrics.language import detect_language

EXAMPLES = 3


@dataclass(frozen=True)
class Resolved:
    settings: Settings
    origins: Origins
    inputs: InputSet
    said: tuple[str, ...]  # what to tell the user before the run starts


def resolve(inputs: InputSet, settings: Settings, origins: Origins, *, reads: tuple[str, ...]) -> Resolved:
    """The run's settings with the prompt language decided, the inputs carrying it (and any mixed-language
    warning), and the lines to print. Left alone: a tier that reads no language, a set whose units give no
    texts (a dataset, whose language is its own)."""
    kept = Resolved(settings, origins, inputs, ())
    units = inputs.unit_texts()
    if "language" not in reads or not units:
        return kept
    by_unit = {unit_id: detect_language(texts) for unit_id, texts in units}
    counts = Counter(language for language in by_unit.values() if language in PROMPT_LANGUAGES)
    language, said = settings.language, []
    if origins["language"] == "default" and counts:
        language = counts.most_common(1)[0][0]
        settings = replace(settings, language=language)
        origins = origins.given("language", "detected", f"the language {language}, told from the input")
        said.append(f"language: {language}, told from the {_noun(inputs)}' script (--language, or language= in "
                    "Python, to choose)")
    others = sorted(unit_id for unit_id, found in by_unit.items() if found and found != language)
    warnings = inputs.warnings
    if others:
        message = (f"{len(others)} of {len(units)} {_noun(inputs)} are not in {language} by their script "
                   f"({', '.join(f'{n} {lang}' for lang, n in sorted(counts.items()) if lang != language)}), "
                   f"yet judged with {language} prompts: split the file by language and run each")
        warnings = (*warnings, Warning("mixed_languages", message, len(others), tuple(others[:EXAMPLES])))
        said.append(f"warning: {message}")
    return Resolved(settings, origins, replace(inputs, language=language, warnings=warnings), tuple(said))


def _noun(inputs: InputSet) -> str:
    return inputs.unit or "units"
