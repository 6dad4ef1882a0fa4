"""all-MiniLM-L6-v2 (dynamically quantized int8 ONNX) run by fastembed: English, 384-d, mean pooling.

The ONNX file and the tokenizer files are vendored in ``hindsight_es/assets/minilm`` (see NOTICE.md
there; ``hindsight_es.embedding.quantize`` is how the model was made). Nothing is downloaded or written.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hindsight_es.embedding.base import BatchedEmbedder, default_threads
from hindsight_es.errors import ConfigError

if TYPE_CHECKING:
    from fastembed import TextEmbedding

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets" / "minilm"
ONNX_FILE = ASSETS_DIR / "model-qint8.onnx"
#: sha256 of ONNX_FILE: "@1" in the id means these exact weights.
ONNX_SHA256 = "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length, also in the vendored tokenizer_config.json
#: Texts handed to the worker threads at a time (each text still runs alone, see MiniLMEmbedder).
BATCH_SIZE = 64
FASTEMBED_NAME = "hindsight/all-MiniLM-L6-v2-onnx-qint8"

_register_lock = threading.Lock()


def onnx_path() -> Path:
    """The vendored model file, checked against ``ONNX_SHA256``."""
    path = ONNX_FILE
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != ONNX_SHA256:
        raise ConfigError(f"{path} has sha256 {digest}, expected {ONNX_SHA256}")
    return path


def _register(model_file: Path) -> None:
    """Register the custom model with fastembed once per process."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if any(m["model"] == FASTEMBED_NAME for m in TextEmbedding.list_supported_models()):
            return
        # model_file is absolute: fastembed joins it onto specific_model_path (the vendored
        # tokenizer dir), and an absolute right operand of Path "/" wins, so no dir is assembled.
        TextEmbedding.add_custom_model(
            model=FASTEMBED_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=MiniLMEmbedder.dim,
            model_file=str(model_file),
            description="all-MiniLM-L6-v2, dynamically quantized int8 ONNX",
            license="apache-2.0",
        )


class MiniLMEmbedder(BatchedEmbedder):
    """sentence-transformers/all-MiniLM-L6-v2 with int8 matrix products; texts truncated at 256 tokens.

    Every text runs alone through a one-thread onnxruntime session, ``threads`` texts at a time on a
    thread pool (onnxruntime releases the GIL). Not in batches: dynamic quantization scales the
    activations of a whole input tensor, so in a batch a text's vector would depend on its neighbours
    and their padding (cosine 0.97 min to the same text alone). Alone, a text always gets the same
    vector, nearer the float32 model's (0.992 mean, 0.982 min on ingest texts), and nothing is padded:
    on 2 cores 530 ingest texts/s, against 480 in 32-text batches and 230 for the float32 products.
    """

    id = "minilm-l6-v2-qint8@1"
    #: Ids whose vectors this model's queries compare with: the same model computed in float32 (the
    #: embedder before this one, whose vectors old stores hold).
    compatible: tuple[str, ...] = ("minilm-l6-v2-int8@1",)
    dim = 384

    def __init__(self, batch_size: int = BATCH_SIZE, threads: int | None = None) -> None:
        super().__init__(batch_size)
        self.threads = threads or default_threads()
        self._model: TextEmbedding | None = None
        self._pool: ThreadPoolExecutor | None = None

    def _load(self) -> None:
        from fastembed import TextEmbedding

        _register(onnx_path())
        self._model = TextEmbedding(
            model_name=FASTEMBED_NAME,
            specific_model_path=str(ASSETS_DIR),
            cache_dir=str(ASSETS_DIR),  # unused with specific_model_path, but fastembed mkdirs it
            threads=1,  # one thread per run: parallelism comes from running texts side by side
            providers=["CPUExecutionProvider"],
            local_files_only=True,
        )
        if self.threads > 1:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="minilm")

    def _one(self, text: str) -> np.ndarray:
        assert self._model is not None
        return next(iter(self._model.embed([text], batch_size=1)))

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1 or self._pool is None:
            return np.stack([self._one(t) for t in texts])
        return np.stack(list(self._pool.map(self._one, texts)))
