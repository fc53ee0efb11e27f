// The page: the new-game form, the game in play, the analysis panel.
import * as api from "./api.js";
import { drawBoard } from "./board.js";

const $ = (id) => document.getElementById(id);
const page = { catalog: null, view: null, analysis: null, live: null, busy: false };

// ------------------------------------------------------------------------- new game form
async function start() {
  try {
    page.catalog = await api.catalog();
  } catch (err) {
    return showMessage(`Could not load the games: ${err.message}`);
  }
  for (const game of page.catalog.games) $("game").append(new Option(label(game.name), game.name));
  $("game").addEventListener("change", fillForm);
  $("agent").addEventListener("change", fillAgentOptions);
  $("new-game").addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
  $("record-file").addEventListener("change", readRecordFile);
  $("board").addEventListener("click", clickBoard);
  $("undo").addEventListener("click", () => send("undo"));
  $("swap").addEventListener("click", () => send("swap"));
  $("stop").addEventListener("click", () => send("stop"));
  $("heat").addEventListener("change", render);
  fillForm();
}

const NAMES = { tictactoe: "Tic-tac-toe", nim: "Nim", connect_four: "Connect Four",
                othello: "Othello", go: "Go", gomoku: "Gomoku" };
const label = (name) => NAMES[name] || name.replace(/_/g, " ");

function selectedGame() {
  return page.catalog.games.find((g) => g.name === $("game").value);
}

function fillForm() {
  const game = selectedGame();
  $("game-options").replaceChildren(...game.options.map((o) =>
    field("game-option", o.name, o.default, o.type)));
  $("position-format").textContent = `Position format: ${game.position_format}`;
  const agents = page.catalog.agents.filter((a) => !["alphazero", "ppo"].includes(a.name) ||
    checkpointsFor(a.name, game.name).length);
  const previous = $("agent").value;
  $("agent").replaceChildren(...agents.map((a) => new Option(agentLabel(a.name), a.name)));
  $("agent").value = agents.some((a) => a.name === previous) ? previous : "mcts";
  fillAgentOptions();
}

const agentLabel = (name) => ({ random: "Random", alphabeta: "Alpha-beta", mcts: "MCTS",
                                alphazero: "AlphaZero", ppo: "PPO" }[name] || name);

function checkpointsFor(agent, game) {
  return page.catalog.checkpoints.filter((c) => c.agent === agent && c.game === game);
}

function fillAgentOptions() {
  const agent = page.catalog.agents.find((a) => a.name === $("agent").value);
  const fields = agent.options.map((o) => {
    if (o.name !== "checkpoint") return field("agent-option", o.name, o.default, o.help);
    const select = document.createElement("select");
    select.className = "agent-option";
    select.dataset.name = "checkpoint";
    for (const c of checkpointsFor(agent.name, $("game").value)) {
      const opts = Object.entries(c.options).map(([k, v]) => `${k}=${v}`).join(", ");
      select.append(new Option(opts ? `${c.name} (${opts})` : c.name, c.name));
    }
    select.addEventListener("change", () => matchCheckpointOptions(agent.name, select.value));
    const wrap = document.createElement("label");
    wrap.append("checkpoint ", select);
    matchCheckpointOptions(agent.name, select.value);
    return wrap;
  });
  $("agent-options").replaceChildren(...fields);
}

// a checkpoint plays the game options it was trained for: set them in the form
function matchCheckpointOptions(agent, name) {
  const checkpoint = page.catalog.checkpoints.find((c) => c.agent === agent && c.name === name);
  if (!checkpoint) return;
  for (const input of document.querySelectorAll(".game-option")) {
    if (input.dataset.name in checkpoint.options) input.value = checkpoint.options[input.dataset.name];
  }
}

function field(kind, name, value, help) {
  const wrap = document.createElement("label");
  const input = document.createElement("input");
  input.className = kind;
  input.dataset.name = name;
  input.value = value;
  input.title = help || "";
  input.placeholder = value === "" ? "(default)" : "";
  wrap.append(`${name.replace(/_/g, " ")} `, input);
  return wrap;
}

function values(kind) {
  const out = {};
  for (const input of document.querySelectorAll(`.${kind}`)) out[input.dataset.name] = input.value;
  return out;
}

async function readRecordFile(event) {
  const file = event.target.files[0];
  if (file) $("record").value = await file.text();
}

async function newGame() {
  showMessage("");
  const settings = {
    game: $("game").value,
    options: values("game-option"),
    agent: $("agent").value,
    agent_options: values("agent-option"),
    human_seat: Number(document.querySelector("input[name=seat]:checked").value),
    record: $("record").value,
    time_control: $("time-control").value,
    ponder: $("ponder").checked,
  };
  $("start").disabled = true;
  $("status").textContent = "Starting the agent…";
  try {
    if (page.view) await api.command(page.view.id, "close").catch(() => {});
    if (page.live) page.live.close();
    const view = await api.newGame(settings);
    page.analysis = null;
    show(view);
    page.live = api.live(view.id, onLive);
  } catch (err) {
    showMessage(err.message);
    $("status").textContent = "Could not start that game.";
  } finally {
    $("start").disabled = false;
  }
}

// ------------------------------------------------------------------------------- play
function onLive(message) {
  if (!page.view) return;
  if (message.type === "view" && message.view.id === page.view.id) show(message.view);
  else if (message.type === "analysis" && message.ply === page.view.moves.length) {
    page.analysis = message.analysis;
    render();
  } else if (message.type === "closed") {
    $("status").textContent = "This game was closed. Start a new one.";
  }
}

function show(view) {
  // an HTTP answer and a WebSocket push can cross: never go back to an older revision
  const shown = page.view;
  if (shown && shown.id === view.id && view.revision < shown.revision) return;
  page.view = view;
  page.viewAt = performance.now();
  if (view.analysis) page.analysis = view.analysis;
  if (view.error) showMessage(view.error);
  render();
}

function flagged(v) {
  return v.clock ? v.clock.flagged : null;
}

function yourTurn() {
  const v = page.view;
  return v && v.board.outcome === "ongoing" && flagged(v) === null &&
    v.board.to_play === v.human_seat;
}

function render() {
  const v = page.view;
  if (!v) return;
  // the search's overlays belong to the position being searched: shown while the agent thinks
  drawBoard($("board"), v, { yourTurn: yourTurn() && !page.busy,
                             heat: $("heat").checked,
                             analysis: v.thinking && $("heat").checked ? page.analysis : null });
  $("board").classList.toggle("your-turn", yourTurn());
  $("status").innerHTML = "";
  $("status").append(statusText(v));
  $("undo").disabled = v.moves.length === 0;
  $("swap").disabled = v.board.outcome !== "ongoing" || flagged(v) !== null;
  $("stop").disabled = !v.thinking;
  $("buttons").replaceChildren(...v.board.buttons.map((b) => {
    const button = document.createElement("button");
    button.textContent = b.label;
    button.disabled = !yourTurn();
    button.addEventListener("click", () => play(b.action));
    return button;
  }));
  $("moves").replaceChildren(...v.moves.map((m) => Object.assign(document.createElement("li"),
                                                                 { textContent: m })));
  const sgf = v.game.intersections;
  for (const [id, format] of [["download-jsonl", "jsonl"], ["download-sgf", "sgf"]]) {
    $(id).href = api.recordUrl(v.id, format);
    $(id).classList.remove("disabled");
  }
  $("download-sgf").hidden = !sgf;
  renderAnalysis(page.analysis, v.thinking);
  renderClocks();
}

// ------------------------------------------------------------------------------ clocks
function clockText(seconds) {
  const s = Math.max(0, seconds);
  const m = Math.floor(s / 60);
  return `${m}:${(s - 60 * m).toFixed(s < 10 ? 1 : 0).padStart(s < 10 ? 4 : 2, "0")}`;
}

function renderClocks() {
  const v = page.view;
  $("clocks").hidden = !(v && v.clock);
  if (!v || !v.clock) return;
  const c = v.clock;
  const since = (performance.now() - page.viewAt) / 1000;
  for (const seat of [0, 1]) {
    const view = c.seats[seat];
    const running = c.running === seat;
    const used = running ? c.running_for + since : 0;
    let main = view.per_move !== null ? view.per_move - used : view.remaining - used;
    let extra = "";
    if (view.per_move === null && main < 0 && view.byoyomi_periods) {
      const over = -main;
      main = 0;
      extra = view.byoyomi_stones ? ` · ${clockText(view.byoyomi_time - over)} for ${view.byoyomi_stones}`
        : ` · ${view.byoyomi_periods}×${clockText(view.byoyomi_time - (over % view.byoyomi_time))}`;
    } else if (view.byoyomi_periods && view.per_move === null) {
      extra = view.byoyomi_stones ? ` + ${view.byoyomi_stones}/${clockText(view.byoyomi_time)}`
        : ` + ${view.byoyomi_periods}×${clockText(view.byoyomi_time)}`;
    }
    const who = seat === v.human_seat ? "You" : "Agent";
    const node = $(`clock-${seat}`);
    node.textContent = `${who} (${sideName(v, seat)}) ${clockText(main)}${extra}`;
    node.classList.toggle("running", running);
    node.classList.toggle("flagged", c.flagged === seat);
  }
}
setInterval(renderClocks, 100);

function sideName(view, seat) {
  const g = view.game;
  if (g.name === "tictactoe") return g.symbols[seat + 1];
  const c = g.piece_rgb[seat];
  const brightness = c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114;
  if (brightness < 60) return "Black";
  if (brightness > 200 && Math.abs(c[0] - c[2]) < 30) return "White";
  return c[0] > 200 && c[1] > 150 ? "Yellow" : c[0] > 150 ? "Red" : `player ${seat + 1}`;
}

function statusText(v) {
  const you = v.human_seat;
  const b = v.board;
  const span = document.createElement("span");
  const counts = v.game.name === "nim" ? `${b.counts[0]} stones left`
    : `${sideName(v, 0)} ${b.counts[0]} · ${sideName(v, 1)} ${b.counts[1]}` +
      (v.captures[0] || v.captures[1] ? ` · captures ${v.captures[0]}–${v.captures[1]}` : "");
  let text;
  const late = flagged(v);
  if (late !== null) {
    text = late === you ? "Your time ran out: the agent wins on time." : "The agent ran out of time: you win.";
  } else if (b.outcome === "draw") text = "Draw.";
  else if (b.outcome !== "ongoing") {
    const winner = b.outcome === "player_0" ? 0 : 1;
    text = winner === you ? `You win (${sideName(v, winner)}).` : `The agent wins (${sideName(v, winner)}).`;
  } else if (b.to_play === you) text = `Your move (${sideName(v, you)}).`;
  else if (!v.warm) text = "The agent is warming up (compiling its search, first game only)…";
  else text = `The agent (${sideName(v, 1 - you)}) is thinking…`;
  span.textContent = `${text}  ${counts}`;
  span.dataset.outcome = late !== null ? "time" : b.outcome;
  return span;
}

async function clickBoard(event) {
  const target = event.target.closest("[data-cell]");
  if (!target || !page.view) return;
  const v = page.view;
  if (!yourTurn()) {
    return showMessage(v.board.outcome !== "ongoing" ? "The game is over: undo or start a new game."
      : "It is the agent's turn: wait for its move, or press “Move now”.");
  }
  const action = v.board.clicks[target.dataset.cell];
  if (action === undefined) {
    const legal = Object.values(v.board.legal);
    return showMessage(`That is not a legal move here. Legal: ${legal.slice(0, 20).join(", ")}` +
                       (legal.length > 20 ? ", …" : ""));
  }
  play(action);
}

async function play(action) {
  if (page.busy) return;
  page.busy = true;
  showMessage("");
  try {
    show(await api.move(page.view.id, action, page.view.moves.length));
    page.analysis = null;
  } catch (err) {
    showMessage(err.message);
  } finally {
    page.busy = false;
    render();
  }
}

async function send(name) {
  if (!page.view) return;
  showMessage("");
  try {
    show(await api.command(page.view.id, name));
  } catch (err) {
    showMessage(err.message);
  }
}

function showMessage(text) {
  $("message").textContent = text;
  $("message").classList.toggle("visible", Boolean(text));
}

// --------------------------------------------------------------------------- analysis
// win rate of a value from the side to move's view: MCTS's mean result in [-1, 1]
const winRate = (a, value) => (value === null || value === undefined || a.unit.startsWith("exact")
  || a.unit.startsWith("heuristic")) ? null : (value + 1) / 2;

function renderAnalysis(a, thinking) {
  $("analysis-state").textContent = thinking ? "· searching" : a ? "· last search" : "";
  const body = $("top-moves").querySelector("tbody");
  if (!a) {
    $("summary").textContent = "The agent's search appears here while it thinks.";
    body.replaceChildren();
    return;
  }
  const parts = [`${a.engine}`];
  parts.push(a.engine === "mcts" ? `${a.nodes.toLocaleString()} simulations`
    : `${a.nodes.toLocaleString()} nodes${a.depth ? `, depth ${a.depth}` : ""}`);
  parts.push(`${a.elapsed.toFixed(2)} s`);
  const rate = winRate(a, a.value);
  if (a.proven) parts.push(`proven ${a.proven}`);
  else if (rate !== null) parts.push(`win ${(100 * rate).toFixed(1)}%`);
  else if (a.value !== null) parts.push(`value ${a.value.toFixed(3)} (${a.unit})`);
  $("summary").textContent = parts.join(" · ");
  const moves = a.moves.length ? a.moves.slice(0, 10) : [{ move: a.move, visits: 0, value: a.value, pv: a.pv }];
  body.replaceChildren(...moves.map((m) => {
    const row = document.createElement("tr");
    const r = winRate(a, m.value);
    const cells = [m.move, m.visits ? m.visits.toLocaleString() : "",
      r !== null ? `${(100 * r).toFixed(1)}%` : (m.value !== null && m.value !== undefined ? m.value.toFixed(2) : ""),
      (m.pv || []).slice(0, 8).join(" ") + ((m.pv || []).length > 8 ? " …" : "")];
    for (const text of cells) row.append(Object.assign(document.createElement("td"), { textContent: text }));
    return row;
  }));
}

start();
