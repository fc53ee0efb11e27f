"""Where games run: one executor interface behind arena tournaments and training self-play.

Two backends, chosen with ``--backend`` (:func:`make_executor`):

* ``local`` (the default): this process with one worker, else a pool of processes on this
  machine that end when this process dies.
* ``ray`` (extra ``boardzoo[ray]``): an existing Ray cluster (``address``), or a Ray instance
  started here for the run, bound to loopback only, and shut down at the end.

An executor offers two things (and Ray a third, below). :meth:`Executor.submit` runs a
stateless call (a tournament game; on Ray a task, retried if its worker dies) and returns a
``concurrent.futures.Future``.
:meth:`Executor.worker_pool` starts ``workers`` stateful workers built by a factory (training's
self-play workers, each holding a network copy; on Ray actors, restarted if they die, their
in-flight call retried). :meth:`WorkerPool.share` hands every worker a new version of some
state (the network's weights; on Ray put once in the object store): each worker applies the
latest version once, before its next call, also after a restart. Results come back to the
caller, which alone writes them to the results store, so "every game exactly once" is the
store's guarantee on any backend. :meth:`RayExecutor.actor` starts one more stateful worker
where Ray finds the resources it asks for (training's learner on a GPU node); its owner
replaces it when it dies (:class:`WorkerDiedError`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from boardzoo.errors import InvalidOptionError, excerpt, os_reason
from boardzoo.options import parse_int

__all__ = ["BACKENDS", "Executor", "LocalExecutor", "RayActor", "RayExecutor", "WorkerDiedError",
           "WorkerPool", "make_executor"]

#: where work runs: local processes (the default) or a Ray cluster
BACKENDS = ("local", "ray")
#: a Ray instance started here: its object store (weights and game records are small)
LOCAL_RAY_OBJECT_STORE_BYTES = 512 * 2**20
#: Ray's defaults that must change for a private, loopback-only instance (see NOTES.md):
#: no token-auth files in ~/.ray, no usage report, no binding of the external address
_LOCAL_RAY_ENVIRONMENT = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
_RETRIES = 3  # a task or actor call is retried this often when its worker process dies
#: the most local worker processes (a few per core is already more than helps) and Ray
#: workers (a cluster's CPUs)
MAX_LOCAL_WORKERS = 256
MAX_RAY_WORKERS = 4096

_Shared = tuple[int, str, Any]  # (version, method name, its arguments or a handle to them)


class WorkerDiedError(RuntimeError):
    """A worker's process died during a call (its owner may start another and retry)."""


class WorkerPool:
    """``workers`` stateful workers; subclasses say where they live."""

    def __init__(self) -> None:
        self._version = 0
        self._shared: _Shared | None = None

    def share(self, method: str, *args: Any) -> None:
        """Every worker calls ``method(*args)`` once before its next call (a new version
        replaces an unapplied older one)."""
        self._version += 1
        self._shared = (self._version, method, self._handle(args))

    def _handle(self, args: tuple) -> Any:
        return args

    def map_unordered(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        """``method(item)`` on free workers for every item; results as they finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers."""


class Executor:
    """Runs games somewhere (module docstring); a context manager that closes itself."""

    backend = ""
    #: the most workers this backend starts (each is a process)
    max_workers = 1

    def __init__(self, workers: int):
        if type(workers) is not int or not 1 <= workers <= self.max_workers:
            raise InvalidOptionError(
                f"workers={excerpt(workers)}: use an integer in 1..{self.max_workers} for the "
                f"{self.backend} backend (each worker is a process)")
        self.workers = workers

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` (a picklable module-level function) on a worker."""
        raise NotImplementedError

    def worker_pool(self, factory: Callable[[], Any]) -> WorkerPool:
        """``workers`` workers, each holding the object ``factory()`` (picklable) builds."""
        raise NotImplementedError

    def gpus(self) -> int:
        """GPUs that workers could be given (this process uses its own GPU directly)."""
        return 0

    def actor(self, factory: Callable[[], Any], gpus: int = 0) -> RayActor:
        """One more worker, apart from the pool (the Ray backend's)."""
        raise InvalidOptionError(f"a learner actor (--learner actor) needs --backend ray, "
                                 f"not {self.backend!r}; use --learner driver or auto")

    def close(self) -> None:
        """Stop everything this executor started."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def make_executor(backend: str = "local", workers: int = 1, address: str | None = None,
                  start_method: str | None = None) -> Executor:
    """The executor for ``--backend``: ``local`` (``workers`` processes started with
    ``start_method``, the platform's default if None) or ``ray`` (``workers`` Ray workers on
    the cluster at ``address``, or on a loopback-only instance started here)."""
    if backend == "local":
        if address is not None:
            raise InvalidOptionError("--ray-address needs --backend ray")
        return LocalExecutor(workers, start_method)
    if backend == "ray":
        return RayExecutor(workers, address)
    raise InvalidOptionError(f"backend {backend!r} unknown; use {' or '.join(BACKENDS)}")


# ----------------------------------------------------------------------------- local
class LocalExecutor(Executor):
    """This process with one worker, else a process pool (started on first use). A call
    whose worker process dies (killed, out of memory) is retried on a new pool, as Ray
    retries a task, up to ``_RETRIES`` times."""

    backend = "local"
    max_workers = MAX_LOCAL_WORKERS

    def __init__(self, workers: int = 1, start_method: str | None = None):
        super().__init__(workers)
        self.start_method = start_method
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        if self.workers == 1:
            return _done(fn, *args)
        outcome: Future = Future()
        self._run(outcome, fn, args, _RETRIES)
        return outcome

    def _run(self, outcome: Future, fn: Callable[..., Any], args: tuple, retries: int) -> None:
        """Submit ``fn(*args)`` to the current pool; its result or error goes to ``outcome``,
        except a dead worker's, which starts it again (up to ``retries`` more times)."""
        with self._lock:
            if self._closed:  # a retry after close(): nobody waits for it any more
                outcome.cancel()
                return
            if self._pool is None:
                self._pool = _process_pool(self.workers, self.start_method, None)
            pool = self._pool
        try:
            attempt = pool.submit(fn, *args)
        except BrokenProcessPool:  # broken since it was taken: the next try gets a new one
            attempt = Future()
            attempt.set_exception(BrokenProcessPool("the pool broke"))
        attempt.add_done_callback(
            lambda done: self._settle(outcome, done, pool, fn, args, retries))

    def _settle(self, outcome: Future, done: Future, pool: ProcessPoolExecutor,
                fn: Callable[..., Any], args: tuple, retries: int) -> None:
        """Pass a finished attempt on to ``outcome``, or retry it after its worker died."""
        error = None if done.cancelled() else done.exception()
        if done.cancelled():
            outcome.cancel()
        elif error is None:
            outcome.set_result(done.result())
        elif not isinstance(error, BrokenProcessPool):
            outcome.set_exception(error)
        elif retries == 0:
            outcome.set_exception(WorkerDiedError(
                f"a worker process died {_RETRIES + 1} times in a row running the same call "
                f"({fn.__name__}): killed, or out of memory"))
        else:  # not from this callback: it runs in the broken pool's own thread
            threading.Thread(target=self._retry, args=(outcome, pool, fn, args, retries - 1),
                             daemon=True).start()

    def _retry(self, outcome: Future, broken: ProcessPoolExecutor, fn: Callable[..., Any],
               args: tuple, retries: int) -> None:
        """Replace the broken pool (once, whichever call finds it first), then run again."""
        with self._lock:
            if self._pool is broken:  # the first call to find it broken replaces it
                broken.shutdown(wait=False, cancel_futures=True)
                self._pool = None
        if not outcome.cancelled():
            self._run(outcome, fn, args, retries)

    def worker_pool(self, factory: Callable[[], Any]) -> WorkerPool:
        if self.workers == 1:
            return _InlineWorkers(factory())
        return _ProcessWorkers(_process_pool(self.workers, self.start_method, factory))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None


def _done(fn: Callable[..., Any], *args: Any) -> Future:
    """A future already holding ``fn(*args)``, computed here."""
    future: Future = Future()
    future.set_result(fn(*args))
    return future


def _process_pool(workers: int, start_method: str | None,
                  factory: Callable[[], Any] | None) -> ProcessPoolExecutor:
    context = get_context(start_method) if start_method else None
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_init_process,
                               initargs=(os.getpid(), factory))


_held: dict[str, Any] = {}  # in a pool process: the worker object and its shared version


def _init_process(parent: int, factory: Callable[[], Any] | None) -> None:
    """Pool process start: one torch thread, exit when the parent is gone (a ``kill -9`` of
    it would otherwise leave the workers waiting forever), build the worker object."""
    os.environ["OMP_NUM_THREADS"] = "1"
    if "torch" in sys.modules:  # (forked from a parent that imported it)
        sys.modules["torch"].set_num_threads(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    if factory is not None:
        _held.update(worker=factory(), version=0)


def _call_held(worker: Any, applied: int, shared: _Shared | None, method: str,
               item: Any, fetch: Callable[[Any], tuple] = lambda args: args) -> tuple[int, Any]:
    """Apply ``shared`` to ``worker`` if its version is newer than ``applied``, then call
    ``method(item)``; returns (the version now applied, the result)."""
    if shared is not None and shared[0] != applied:
        version, name, handle = shared
        getattr(worker, name)(*fetch(handle))
        applied = version
    return applied, getattr(worker, method)(item)


def _call_in_process(shared: _Shared | None, method: str, item: Any) -> Any:
    _held["version"], result = _call_held(_held["worker"], _held["version"], shared, method,
                                          item)
    return result


class _InlineWorkers(WorkerPool):
    """One worker object in this process."""

    def __init__(self, worker: Any):
        super().__init__()
        self.worker, self.applied = worker, 0

    def map_unordered(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            self.applied, result = _call_held(self.worker, self.applied, self._shared, method,
                                              item)
            yield result


class _ProcessWorkers(WorkerPool):
    """One worker object per pool process; the shared state travels with each call."""

    def __init__(self, pool: ProcessPoolExecutor):
        super().__init__()
        self.pool = pool

    def map_unordered(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        futures = [self.pool.submit(_call_in_process, self._shared, method, item)
                   for item in items]
        try:
            for future in as_completed(futures):
                yield future.result()
        except BrokenProcessPool:
            raise WorkerDiedError(f"a worker process died running {method!r} (killed or out "
                                  "of memory)") from None

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


# ------------------------------------------------------------------------------- ray
def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InvalidOptionError(
            "--backend ray needs Ray: pip install -c constraints.txt 'boardzoo[ray]'"
        ) from None
    return ray


class RayExecutor(Executor):
    """Tasks and actors on a Ray cluster: the one at ``address``, the one this process is
    already connected to, or else a loopback-only instance with ``workers`` CPUs started
    here (and shut down by :meth:`close`)."""

    backend = "ray"
    max_workers = MAX_RAY_WORKERS

    def __init__(self, workers: int = 1, address: str | None = None,
                 object_store_bytes: int = LOCAL_RAY_OBJECT_STORE_BYTES):
        super().__init__(workers)
        ray = self.ray = _import_ray()
        self._temp_dir: str | None = None
        self._started = not ray.is_initialized()
        if self._started:
            if address is None:
                self._temp_dir = _start_local_ray(ray, workers, object_store_bytes)
            else:
                _join_ray(ray, address)
        self._task = ray.remote(num_cpus=1, max_retries=_RETRIES)(_call_pickled)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        return self._task.remote(fn, pickle.dumps(args)).future()

    def worker_pool(self, factory: Callable[[], Any]) -> WorkerPool:
        return _RayWorkers(self.ray, factory, self.workers)

    def gpus(self) -> int:
        """The GPUs of the Ray cluster (0 on one without)."""
        return int(self.ray.cluster_resources().get("GPU", 0))

    def actor(self, factory: Callable[[], Any], gpus: int = 0) -> RayActor:
        """One more worker, holding ``factory()``, that Ray places on a node with ``gpus``
        free GPUs (the learner on a cluster's GPU node)."""
        return RayActor(self.ray, factory, gpus)

    def close(self) -> None:
        if self._started:
            self.ray.shutdown()
            self._started = False
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None


def _join_ray(ray: Any, address: str) -> None:
    """``ray.init`` of the cluster at ``address`` ("HOST:PORT", "ray://HOST:PORT" or
    "auto"), refused in one line when nothing answers there: Ray itself would wait for
    minutes, then fail with a long trace."""
    if address != "auto":
        host, _, port = address.removeprefix("ray://").rpartition(":")
        if not host or parse_int(port, max_digits=5) is None:
            raise InvalidOptionError(f"Ray address {excerpt(address)}: give HOST:PORT (e.g. "
                                     "10.0.0.5:6379), ray://HOST:PORT or auto")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
                pass
        except (OSError, OverflowError) as err:
            reason = os_reason(err) if isinstance(err, OSError) else "no such port"
            raise InvalidOptionError(
                f"Ray address {address}: nothing answers there ({reason}); start the cluster "
                "(ray start --head) or leave the address out to use a local Ray instance"
            ) from None
    try:
        ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidOptionError(f"Ray address {address}: no Ray cluster could be joined "
                                 f"there ({first})") from None


def _call_pickled(fn: Callable[..., Any], payload: bytes) -> Any:
    """A Ray task: ``fn(*args)`` with the arguments pickled by the caller, as a process pool
    sends them (Ray's own transport would hand numpy arrays over read-only, and agents
    write to theirs, e.g. a search tree)."""
    return fn(*pickle.loads(payload))


def _start_local_ray(ray: Any, cpus: int, object_store_bytes: int) -> str:
    """``ray.init`` of a private instance: loopback address, no auth-token files, temp files
    in a fresh folder of its own, a capped object store, no usage stats; returns the folder."""
    temp_dir = tempfile.mkdtemp(prefix="bzray-", dir="/tmp")  # short: Ray's socket paths
    with _loopback_only(ray):
        ray.init(num_cpus=cpus, object_store_memory=object_store_bytes, _temp_dir=temp_dir,
                 include_dashboard=False, log_to_driver=False, configure_logging=False)
    return temp_dir


@contextlib.contextmanager
def _loopback_only(ray: Any) -> Iterator[None]:
    """Ray's settings for a private instance while it starts (the processes started inherit
    them). Ray reads its "cluster" switch from the environment when it is imported, so the
    already imported flag is set too: with it off, every Ray process binds 127.0.0.1
    instead of the machine's external address (checked: docs/ray.md)."""
    constants = ray._private.ray_constants
    before = {key: os.environ.get(key) for key in _LOCAL_RAY_ENVIRONMENT}
    cluster_flag = constants.ENABLE_RAY_CLUSTER
    os.environ.update(_LOCAL_RAY_ENVIRONMENT)
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = cluster_flag
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class RayWorker:
    """A Ray actor holding one worker object (:meth:`Executor.worker_pool`)."""

    def __init__(self, factory: Callable[[], Any]):
        os.environ["OMP_NUM_THREADS"] = "1"
        self.worker, self.applied = factory(), 0

    def call(self, shared: _Shared | None, method: str, item: Any) -> Any:
        """``method(item)`` after applying a newer shared version, fetched from the object
        store (its handle is wrapped in a list so Ray does not fetch it for every call)."""
        import ray

        self.applied, result = _call_held(self.worker, self.applied, shared, method, item,
                                          fetch=lambda handle: ray.get(handle[0]))
        return result

    def pid(self) -> int:
        return os.getpid()


class RayActor:
    """One :class:`RayWorker` whose owner restarts it: Ray does not (its state lives with
    the owner), and a call to a dead one raises :class:`WorkerDiedError`."""

    def __init__(self, ray: Any, factory: Callable[[], Any], gpus: int = 0):
        self.ray = ray
        self.handle = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=0)(
            RayWorker).remote(factory)

    def call(self, method: str, item: Any) -> Any:
        """``method(item)`` on the actor, waited for."""
        from ray.exceptions import RayActorError

        try:
            return self.ray.get(self.handle.call.remote(None, method, item))
        except RayActorError as err:
            raise WorkerDiedError(f"the actor running {method!r} died: {err}") from None

    def close(self) -> None:
        self.ray.kill(self.handle)


class _RayWorkers(WorkerPool):
    """``workers`` :class:`RayWorker` actors, restarted when they die; an in-flight call of
    a dead actor is retried on its restarted self (which re-applies the shared state)."""

    def __init__(self, ray: Any, factory: Callable[[], Any], workers: int):
        super().__init__()
        self.ray = ray
        actor = ray.remote(num_cpus=1, max_restarts=_RETRIES, max_task_retries=_RETRIES)(
            RayWorker)
        self.actors = [actor.remote(factory) for _ in range(workers)]

    def _handle(self, args: tuple) -> Any:
        return [self.ray.put(args)]

    def map_unordered(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        from ray.util import ActorPool

        shared = self._shared
        pool = ActorPool(self.actors)
        yield from pool.map_unordered(lambda a, item: a.call.remote(shared, method, item),
                                      list(items))

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
