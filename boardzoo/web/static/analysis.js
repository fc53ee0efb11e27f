// The analysis panel: the agent's real name and settings, then what its last search found in
// one unit per kind of agent (see AGENT_VALUES in boardzoo/web/catalog.py): MCTS and
// AlphaZero as win rates (their mean result in [-1, 1], from the side to move's view, as a
// percentage), alpha-beta as a heuristic score in (-1, 1) or an exact value, PPO as its
// policy's move probabilities, and an exact solver's answer as what it is: a proven result.

const $ = (id) => document.getElementById(id);

const SETTING_TEXT = {
  time_limit: (v) => `${v} s a move`,
  simulations: (v) => `${Number(v).toLocaleString()} simulations`,
  depth: (v) => `depth ${v}`,
  checkpoint: (v) => `network ${v}`,
  max_nodes: (v) => `tree of at most ${Number(v).toLocaleString()} nodes`,
};

export function agentName(info) {
  const settings = info.settings.map(([k, v]) => (SETTING_TEXT[k] || ((x) => `${k} ${x}`))(v));
  const defaults = info.name === "mcts" && !info.settings.some(([k]) =>
    k === "time_limit" || k === "simulations") ? ["1,000 simulations (its default)"] : [];
  return [info.label, ...defaults, ...settings].join(" · ");
}

// a proven result from the side to move's view: in the game's exact unit (Connect Four:
// Pons' score, Othello: the final disc difference) where the analysis is in it, else +1/0/-1
function exactText(game, value, unit) {
  const outcome = value > 0 ? "win" : value < 0 ? "loss" : "draw";
  if (unit !== "exact" || !value) return outcome;
  if (game === "connect_four") return `${outcome} (Pons score ${value > 0 ? "+" : ""}${value})`;
  if (game === "othello") return `${outcome} by ${Math.abs(value)} discs`;
  return outcome;
}

const percent = (value) => `${(50 * (value + 1)).toFixed(1)}%`;
const signed = (value) => `${value >= 0 ? "+" : ""}${value.toFixed(2)}`;

// [header, cell(move), class] columns and a summary for one analysis of an agent kind
function layout(info, a, game) {
  if (a.engine === "rule") {  // chosen by the game's rules of play, before any search
    return {
      columns: [["move", (m) => m.move]],
      summary: "no search: the game's rules of play choose this move (Go: after the " +
        "opponent's pass, a pass that wins as the board is scored)",
    };
  }
  if (a.engine === "solver" || (a.unit === "exact" && info.values === "score")) {
    const how = a.engine === "solver" ? "the game's exact solver proves"
      : "searched to the end of the game, it proves";
    return {
      columns: [["move", (m) => m.move], ["proven", (m) => m.value === null ? ""
        : exactText(game, m.value, a.unit)], ["line", pvText, "line"]],
      summary: `${how} a ${exactText(game, a.value, a.unit)} for the side to move · ` +
        `${a.nodes.toLocaleString()} nodes · ${a.elapsed.toFixed(2)} s`,
    };
  }
  if (info.values === "win_rate") {
    const proven = a.proven ? ` · proven ${a.proven} (MCTS-Solver)` : "";
    return {
      columns: [["move", (m) => m.move], ["visits", (m) => m.visits.toLocaleString(), "num"],
                ["win rate", (m) => m.value === null ? "" : percent(m.value), "num"], ["line", pvText, "line"]],
      summary: `${a.nodes.toLocaleString()} simulations · ${a.elapsed.toFixed(2)} s · ` +
        `win rate ${percent(a.value)}${proven}`,
    };
  }
  if (info.values === "score") {
    return {
      columns: [["move", (m) => m.move], ["score", (m) => m.value === null ? "" : signed(m.value), "num"],
                ["line", pvText, "line"]],
      summary: `depth ${a.depth} · ${a.nodes.toLocaleString()} nodes · ${a.elapsed.toFixed(2)} s · ` +
        `score ${signed(a.value)} (heuristic, -1 to +1: ±1 only for a proven result)`,
    };
  }
  return {  // a policy's move probabilities
    columns: [["move", (m) => m.move], ["probability", (m) => `${(100 * m.prior).toFixed(1)}%`, "num"]],
    summary: "the policy's move probabilities (a network's choice: no search, no value)",
  };
}

function pvText(m) {
  const pv = m.pv || [];
  return pv.slice(0, 8).join(" ") + (pv.length > 8 ? " …" : "");
}

// view: the game's view (agent_info, thinking, analysis_ply, moves); a: the analysis or null
export function renderAnalysis(view, a) {
  const info = view.agent_info;
  $("agent-name").textContent = agentName(info);
  $("agent-name").title = info.built ? `built as ${info.built}` : "";
  $("analysis-state").textContent = view.thinking ? "· searching" : a ? "· last search" : "";
  const body = $("top-moves").querySelector("tbody");
  if (info.values === "none") {
    $("summary").textContent = `${info.label} plays a uniformly random legal move: it has no ` +
      "analysis to show.";
    return clearTable(body);
  }
  if (!a) {
    $("summary").textContent = !view.thinking ? "The agent's search appears here while it thinks."
      : solverFirst(info, view.game) ? "The game's exact solver goes first when it estimates " +
        "it can solve this position in the move's time (up to half of it for MCTS, 90% for " +
        "alpha-beta), and shows nothing until it is done; the search shows here once it starts."
      : "The search has not reported yet…";
    return clearTable(body);
  }
  const { columns, summary } = layout(info, a, view.game.name);
  const mover = a.final ? ` for move ${view.analysis_ply + 1} (${a.move})` : "";
  $("summary").textContent = `The agent's ${a.final ? "search" : "search so far"}${mover}: ${summary}`;
  $("analysis-head").replaceChildren(...columns.map(([title, , kind]) =>
    Object.assign(document.createElement("th"), { textContent: title, className: kind || "" })));
  const moves = a.moves.length ? a.moves.slice(0, 10)
    : [{ move: a.move, visits: 0, value: a.value, prior: null, pv: a.pv }];
  body.replaceChildren(...moves.map((m) => {
    const row = document.createElement("tr");
    for (const [, cell, kind] of columns) {
      row.append(Object.assign(document.createElement("td"),
                               { textContent: cell(m), className: kind || "" }));
    }
    return row;
  }));
  $("analysis-hint").textContent = {
    win_rate: "Win rates are the agent's, for the side to move in the searched position.",
    score: "Scores are the side to move's in the searched position.",
    policy: "Probabilities over the legal moves (the policy's output, renormalised).",
  }[info.values] || "";
}

// whether the agent tries the game's exact solver before its search reports anything
function solverFirst(info, game) {
  const off = info.settings.some(([key, value]) => key === "exact_solver" && value === "false");
  return game.exact_solver && (info.name === "alphabeta" || info.name === "mcts") && !off;
}

function clearTable(body) {
  $("analysis-head").replaceChildren();
  body.replaceChildren();
  $("analysis-hint").textContent = "";
}
