"""The Go Text Protocol (GTP 2), both sides of it.

* :mod:`boardzoo.gtp.engine`: boardzoo *as* a GTP engine (``boardzoo gtp``), for Sabaki,
  GoGui, KGS clients or any GTP controller: the protocol and the clock, over the game it
  keeps (:mod:`boardzoo.gtp.record`), GTP's syntax (:mod:`boardzoo.gtp.syntax`) and time
  controls (:mod:`boardzoo.gtp.clock`), served on stdin/stdout by :mod:`boardzoo.gtp.serve`;
  Go's rules of play and its scoring are :mod:`boardzoo.knowledge.go`'s;
* :mod:`boardzoo.gtp.client`: a client that drives another engine as a child process
  (:class:`GtpEngine`, :class:`GtpError`);
* :mod:`boardzoo.gtp.agent`: any GTP engine as an arena agent (:class:`GTPAgent`), GNU Go
  in particular (:class:`GnuGoAgent`, ``make_agent("gnugo:level=10")``), and finding its
  executable (:func:`find_gnugo`).
"""

from boardzoo.gtp.agent import GnuGoAgent, GTPAgent, find_gnugo, gnugo_command
from boardzoo.gtp.client import GtpEngine, GtpError

__all__ = ["GTPAgent", "GnuGoAgent", "GtpEngine", "GtpError", "find_gnugo", "gnugo_command"]
