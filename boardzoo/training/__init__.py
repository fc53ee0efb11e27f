"""AlphaZero training: self-play workers, replay buffer, learner and checkpoints.

``train("tictactoe", TrainConfig(minutes=3), out="runs/ttt")`` is the same as
``boardzoo train tictactoe --minutes 3 --out runs/ttt``. Workers, replay and learner are apart
(:mod:`.selfplay`, :mod:`.replay`, :mod:`.learner`) and games go through one small sink
interface (:class:`~.sink.GameSink`), so another executor or store plugs in without touching
the algorithm.
"""

from boardzoo.training.config import TrainConfig
from boardzoo.training.loop import TrainRun, train
from boardzoo.training.sink import DirectorySink, GameSink

__all__ = ["DirectorySink", "GameSink", "TrainConfig", "TrainRun", "train"]
