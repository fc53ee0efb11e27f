"""AlphaZero training: self-play workers, replay buffer, learner and checkpoints.

``train("tictactoe", TrainConfig(minutes=3), out="runs/ttt")`` is the same as
``boardzoo train tictactoe --minutes 3 --out runs/ttt``. The loop (:mod:`.loop`) is the
algorithm only; the run folder and resuming (:mod:`.run_folder`) and the figures' sinks (log,
curve, TensorBoard, progress: :mod:`.report`) are apart, and so are workers, replay and
learner (:mod:`.selfplay`, :mod:`.replay`, :mod:`.learner`). Games go through one small sink
interface (:class:`~.sink.GameSink`; by default the run folder's results store, see
:func:`~.run_folder.run_games`), so another executor or store plugs in without touching the
algorithm.
"""

from boardzoo.training.config import TrainConfig
from boardzoo.training.loop import TrainRun, train
from boardzoo.training.run_folder import run_games
from boardzoo.training.sink import GameSink

__all__ = ["GameSink", "TrainConfig", "TrainRun", "run_games", "train"]
