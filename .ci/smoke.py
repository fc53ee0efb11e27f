"""Smoke test of an installed wheel (run outside the source tree)."""

import json
import os
import subprocess
import sys
import tempfile
from importlib.resources import files

import gymnasium as gym
import pettingzoo

import boardzoo
from boardzoo.agents import RandomAgent
from boardzoo.arena import play_match
from boardzoo.envs import GAMES, make_env

assert "site-packages" in boardzoo.__file__, boardzoo.__file__
assert files("boardzoo").joinpath("py.typed").is_file(), "py.typed is not shipped"
for name in GAMES:
    env = make_env(name)
    env.reset(seed=0)
    assert env.legal_mask().any()
pz = pettingzoo.make("aec", "boardzoo/connect_four_v0")
pz.reset()
g = gym.make("boardzoo/TicTacToe-v0")
g.reset(seed=0)
result = play_match("tictactoe", RandomAgent(0), RandomAgent(1), games=4)
assert result.wins + result.draws + result.losses == 4
from boardzoo.agents import AlphaZeroAgent  # noqa: E402  (needs the torch extra)

shipped = files("boardzoo").joinpath("checkpoints", "tictactoe.pt")
assert shipped.is_file(), "the tictactoe checkpoint is not shipped"
az = AlphaZeroAgent.from_checkpoint("tictactoe", simulations=50)
ttt = make_env("tictactoe")
ttt.reset(options={"position": "XX.OO...."})
assert az.act(ttt) == 2, "the shipped tictactoe network misses a win in one"
for name in ("connect_four.pt", "ppo_connect_four.pt"):
    assert files("boardzoo").joinpath("checkpoints", name).is_file(), f"{name} is not shipped"
c4 = make_env("connect_four")
c4.reset(options={"position": "445566"})  # X (to move) wins at once in column 3 or 7
c4_net = AlphaZeroAgent.from_checkpoint("connect_four", simulations=50, exact_solver=False)
assert c4_net.act(c4) in (2, 6), "the shipped connect_four network misses a win in one"
othello = make_env("othello", board_size=6)
othello.reset(seed=0)
oth_net = AlphaZeroAgent.from_checkpoint("othello_6x6", simulations=20, exact_solver=False)
mask = othello.observe(othello.agent_selection)["action_mask"]
assert mask[oth_net.act(othello)], "the shipped othello_6x6 network plays an illegal move"

# the compiled cache built for x86-64-v2 is shipped and used: a fresh process with an empty
# cache folder plays its first moves of every game loading it, compiling nothing of boardzoo's
from boardzoo.numba_cache import shipped_dir  # noqa: E402

assert list(shipped_dir().rglob("*.nbi")), f"no compiled cache shipped in {shipped_dir()}"
FIRST_MOVES = """
import json, time
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__module__.startswith("boardzoo."):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
event.register("numba:compile", Count())
start = time.perf_counter()
from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.envs import GAMES, make_env
seconds = {}
for name in GAMES:
    began = time.perf_counter()
    for agent in (MCTSAgent(simulations=50, seed=0), AlphaBetaAgent(depth=2, seed=0)):
        env = make_env(name)
        env.reset(seed=0)
        agent.act(env)
    seconds[name] = round(time.perf_counter() - began, 2)
print(json.dumps({"compiled": compiled, "seconds": seconds}))
"""
with tempfile.TemporaryDirectory() as empty:
    run = subprocess.run([sys.executable, "-c", FIRST_MOVES], capture_output=True, text=True,
                         env={**os.environ, "BOARDZOO_CACHE_DIR": empty}, check=True)
first = json.loads(run.stdout.splitlines()[-1])
compiled = first["compiled"]
assert compiled == [], f"compiled despite the shipped cache: {compiled}"
print("first MCTS and alpha-beta moves from the shipped cache, seconds:", first["seconds"])
print("wheel smoke test ok:", boardzoo.__version__, sorted(GAMES))
