"""The MiniLM model hindsight ships, loaded for the peers: the vendored int8 ONNX, nothing downloaded.

Same files (``hindsight_es/assets/minilm``), same runtime (fastembed, one-thread onnxruntime session),
same way of running (each text alone, texts side by side on a thread pool), so a peer's vector for a
text is the vector hindsight's ``minilm`` embedder computes for it. The files are found through the
installed package, not imported from its modules, so the harness does not depend on hindsight's
internals.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path

import numpy as np

FASTEMBED_NAME = "peers/all-MiniLM-L6-v2-onnx-qint8"
DIM = 384
_register_lock = threading.Lock()
_shared_lock = threading.Lock()


def assets_dir() -> Path:
    """The vendored model directory of the installed hindsight package."""
    spec = find_spec("hindsight_es")
    if spec is None or spec.origin is None:
        raise RuntimeError("hindsight_es is not installed in this environment (pip install -e ../..)")
    path = Path(spec.origin).parent / "assets" / "minilm"
    if not (path / "model-qint8.onnx").is_file():
        raise RuntimeError(f"no vendored MiniLM model in {path}")
    return path


def _register(model_file: Path) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if any(m["model"] == FASTEMBED_NAME for m in TextEmbedding.list_supported_models()):
            return
        TextEmbedding.add_custom_model(
            model=FASTEMBED_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=DIM,
            model_file=str(model_file),  # absolute: fastembed's path join keeps it as is
            description="all-MiniLM-L6-v2, int8 ONNX vendored by hindsight",
            license="apache-2.0",
        )


class MiniLM:
    """``embed(texts) -> (n, 384) float32``, unit vectors; thread-safe."""

    def __init__(self, threads: int | None = None) -> None:
        from fastembed import TextEmbedding

        path = assets_dir()
        _register(path / "model-qint8.onnx")
        self.model = TextEmbedding(
            model_name=FASTEMBED_NAME,
            specific_model_path=str(path),
            cache_dir=str(path),
            threads=1,
            providers=["CPUExecutionProvider"],
            local_files_only=True,
        )
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.threads = threads or max(1, min(cpus or 1, 8))
        self.pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="peers-minilm")

    def one(self, text: str) -> np.ndarray:
        return next(iter(self.model.embed([text], batch_size=1))).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1:
            return self.one(texts[0])[None, :]
        return np.stack(list(self.pool.map(self.one, texts)))


_shared: MiniLM | None = None


def shared() -> MiniLM:
    """One model per process."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLM()
        return _shared
