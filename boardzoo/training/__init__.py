"""AlphaZero training: self-play workers, replay buffer, learner and checkpoints.

``train("tictactoe", TrainConfig(minutes=3), out="runs/ttt")`` is the same as
``boardzoo train tictactoe --minutes 3 --out runs/ttt``. Workers, replay and learner are apart
(:mod:`.selfplay`, :mod:`.replay`, :mod:`.learner`) and games go through one small sink
interface (:class:`~.sink.GameSink`; by default the run folder's results store, see
:func:`~.loop.run_games`), so another executor or store plugs in without touching the
algorithm.
"""

from boardzoo.training.config import TrainConfig
from boardzoo.training.loop import TrainRun, run_games, train
from boardzoo.training.sink import GameSink

__all__ = ["GameSink", "TrainConfig", "TrainRun", "run_games", "train"]
