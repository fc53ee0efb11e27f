// The page: the game in play (board, status, result banner, clocks, controls, the moves and
// stepping through them, keyboard play), with the form (form.js) and the analysis panel
// (analysis.js). A game lives as long as this page: it is closed as the page goes away.
import * as api from "./api.js";
import { renderAnalysis } from "./analysis.js";
import { drawBoard } from "./board.js";
import { formSettings, gameLabel, setUpForm } from "./form.js";

const $ = (id) => document.getElementById(id);
// view: the game's latest view; viewing: the ply shown while stepping through the moves
// (null: the position now); positions: the positions fetched for stepping, by ply;
// selected: the from-cell picked for a step (chess), null when none
const page = { view: null, analysis: null, live: null, busy: false, viewing: null,
               positions: new Map(), viewAt: 0, selected: null };
const PROMOTIONS = [["q", "\u265B", "queen"], ["r", "\u265C", "rook"],
                    ["b", "\u265D", "bishop"], ["n", "\u265E", "knight"]];

async function start() {
  let catalog;
  try {
    catalog = await api.catalog();
  } catch (err) {
    return showMessage(`Could not load the games: ${err.message}`);
  }
  setUpForm(catalog, newGame);
  $("board").addEventListener("click", clickBoard);
  $("undo").addEventListener("click", () => send("undo"));
  $("swap").addEventListener("click", () => send("swap"));
  $("stop").addEventListener("click", () => send("stop"));
  $("resign").addEventListener("click", () => {
    if (confirm("Resign this game?")) send("resign");
  });
  $("first").addEventListener("click", () => step(-Infinity));
  $("back").addEventListener("click", () => step(-1));
  $("forward").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => step(Infinity));
  $("heat").addEventListener("change", render);
  document.addEventListener("keydown", onKey);
  window.addEventListener("pagehide", () => { if (page.view) api.closeAsThePageGoes(page.view.id); });
}

// ------------------------------------------------------------------------- game lifecycle
async function newGame() {
  showMessage("");
  const settings = formSettings();
  $("start").disabled = true;
  $("status").textContent = "Starting the game…";
  try {
    if (page.live) page.live.close();
    if (page.view) await api.command(page.view.id, "close").catch(() => {});
    page.view = null;
    const view = await api.newGame(settings);
    Object.assign(page, { analysis: null, viewing: null, positions: new Map() });
    show(view);
    page.live = api.live(view.id, onLive, onGone);
    document.body.classList.add("playing");
    $("setup-details").open = false;
    const board = $("board").getBoundingClientRect();
    if (board.top < 0 || board.bottom > window.innerHeight) $("play").scrollIntoView({ block: "start" });
  } catch (err) {
    showMessage(err.message);
    $("status").textContent = "Could not start that game.";
  } finally {
    $("start").disabled = false;
  }
}

function onLive(message) {
  if (!page.view) return;
  if (message.type === "view" && message.view.id === page.view.id) show(message.view);
  else if (message.type === "analysis" && message.ply === page.view.moves.length) {
    page.analysis = message.analysis;
    render();
  } else if (message.type === "closed") onGone();
}

function onGone() {
  $("status").textContent = "This game was closed. Start a new one.";
  for (const id of ["undo", "swap", "stop", "resign"]) $(id).disabled = true;
  $("setup-details").open = true;
}

function show(view) {
  // an HTTP answer and a WebSocket push can cross: never go back to an older revision
  const shown = page.view;
  if (shown && shown.id === view.id && view.revision < shown.revision) return;
  if (shown && shown.id === view.id && view.moves.length < shown.moves.length) {
    page.positions = new Map();  // moves were taken back: the cached positions may be gone
    if (page.viewing !== null && page.viewing > view.moves.length) page.viewing = null;
  }
  if (!shown || shown.id !== view.id || shown.revision !== view.revision) page.selected = null;
  page.view = view;
  page.viewAt = performance.now();
  document.title = `${gameLabel(view.game.name)} · boardzoo`;
  page.analysis = view.analysis;
  if (view.error) showMessage(view.error);
  render();
}

// ---------------------------------------------------------------------------- drawing
function yourTurn() {
  const v = page.view;
  return v && !v.result && v.board.to_play === v.human_seat;
}

function live() {
  return page.viewing === null || page.viewing === page.view.moves.length;
}

function render() {
  const v = page.view;
  if (!v) return;
  const position = live() ? v : page.positions.get(page.viewing);
  if (!position) return;
  const playable = live() && yourTurn() && !page.busy;
  drawBoard($("board"), v.game, position, {
    playable,
    heat: $("heat").checked,
    // the search's overlays belong to the position being searched: shown while it thinks
    analysis: live() && v.thinking && $("heat").checked ? page.analysis : null,
    dead: live() && v.go_end ? v.go_end.dead : null,
    selected: playable ? page.selected : null,
  });
  if (!playable || page.selected === null) $("promotion").hidden = true;
  $("board").classList.toggle("your-turn", playable);
  $("board-hint").textContent = boardHint(v, playable);
  renderStatus(v);
  renderBanner(v);
  $("notice").textContent = v.notice || "";
  $("undo").disabled = v.moves.length === 0 || (v.result && v.result.reason !== "rules");
  $("swap").disabled = Boolean(v.result);
  $("stop").disabled = !v.thinking;
  $("resign").disabled = Boolean(v.result);
  $("buttons").replaceChildren(...v.board.buttons.map((b) => {
    const button = document.createElement("button");
    button.textContent = b.label;
    button.disabled = !playable;
    button.addEventListener("click", () => play(b.action));
    return button;
  }));
  renderMoves(v);
  for (const [id, format] of [["download-jsonl", "jsonl"], ["download-sgf", "sgf"],
                              ["download-pgn", "pgn"]]) {
    $(id).href = api.recordUrl(v.id, format);
    $(id).classList.remove("disabled");
  }
  $("download-sgf").hidden = !v.game.intersections;
  $("download-pgn").hidden = v.game.name !== "chess";
  renderAnalysis(v, page.analysis);
  renderClocks();
}

function boardHint(v, playable) {
  if (!live()) return `You are looking at the position after move ${page.viewing}: press » ` +
    "or End to return to the game.";
  if (!playable) return "";
  const keys = keyMap(v);
  const typed = keys ? ` (or type ${keys.label})` : "";
  if (v.game.name === "nim") return "Click a stone to take it and every stone to its right in " +
    `its heap${typed}.`;
  if (v.game.name === "connect_four") return `Click a column to drop a disc${typed}.`;
  if (Object.keys(v.board.steps).length) return "Click a piece, then the square it goes to.";
  return keys ? `Click a point to play${typed}.` : "";
}

function sideName(game, seat) {
  if (game.name === "tictactoe") return game.symbols[seat + 1];
  const c = game.piece_rgb[seat];
  const brightness = c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114;
  if (brightness < 60) return "Black";
  if (brightness > 200 && Math.abs(c[0] - c[2]) < 30) return "White";
  return c[0] > 200 && c[1] > 150 ? "Yellow" : c[0] > 150 ? "Red" : `player ${seat + 1}`;
}

// the counts that mean something in each game: Othello's discs, Go's stones and captures,
// Nim's stones left
function counts(v) {
  const b = v.board;
  if (v.game.name === "nim") return `${b.counts[0]} stones left`;
  if (v.game.name === "othello") {
    return `${sideName(v.game, 0)} ${b.counts[0]} · ${sideName(v.game, 1)} ${b.counts[1]}`;
  }
  if (v.game.name === "go") {
    return `captures: ${sideName(v.game, 0)} ${v.captures[0]} · ${sideName(v.game, 1)} ${v.captures[1]}`;
  }
  return "";
}

function renderStatus(v) {
  const you = v.human_seat;
  let text;
  if (v.result) text = "The game is over.";
  else if (v.board.to_play === you) text = `Your move (${sideName(v.game, you)}).`;
  else if (!v.warm) {
    const what = v.compiling ? ` (${v.compiling})` : "";
    text = `The agent is warming up: building its compiled search${what}, once per game and ` +
      "agent kind. “Move now” plays a quick move meanwhile.";
  } else text = `The agent (${sideName(v.game, 1 - you)}) is thinking…`;
  const phrases = [text, counts(v)].filter(Boolean).map((phrase) => {
    const span = document.createElement("span");
    span.className = "phrase";
    span.textContent = phrase;
    return span;
  });
  $("status").replaceChildren(...phrases.flatMap((p, k) => (k ? [" · ", p] : [p])));
  $("status").dataset.state = v.result ? "over" : v.board.to_play === you ? "you" : "agent";
}

function renderBanner(v) {
  const banner = $("banner");
  banner.hidden = !v.result;
  if (!v.result) return;
  const { winner, reason, detail } = v.result;
  const title = winner === null ? "Draw" : winner === v.human_seat ? "You win" : "The agent wins";
  const how = reason === "time" ? (winner === v.human_seat ? "the agent ran out of time"
    : "your time ran out") : reason === "resignation" ? "by resignation" : "";
  const lines = [`${title}${detail ? ` ${detail}` : ""}${how ? ` (${how})` : ""}`];
  if (v.game.name === "go" && reason === "rules") lines.push(goNote(v));
  if (v.game.name === "othello" && reason === "rules") lines.push(`Discs: ${counts(v)}.`);
  banner.replaceChildren(...lines.filter(Boolean).map((text, k) =>
    Object.assign(document.createElement(k ? "p" : "strong"), { textContent: text })));
  banner.dataset.winner = winner === null ? "draw" : winner === v.human_seat ? "you" : "agent";
}

function goNote(v) {
  const komi = v.game.options.komi;
  const base = `Area score (Tromp–Taylor), komi ${komi}: every stone on the board counts.`;
  if (!v.go_end) return base;
  const dead = v.go_end.dead.length;
  if (!dead) return `${base} No stone looks dead.`;
  return `${base} ✕ marks ${dead} stone${dead > 1 ? "s" : ""} the ownership estimate ` +
    `calls dead (without them: ${v.go_end.score}); capture dead stones before passing.`;
}

// ------------------------------------------------------------------ moves and stepping
function renderMoves(v) {
  const shown = live() ? v.moves.length : page.viewing;
  $("ply-label").textContent = `move ${shown} of ${v.moves.length}`;
  $("first").disabled = $("back").disabled = shown === 0;
  $("forward").disabled = $("last").disabled = shown === v.moves.length;
  const items = [];
  for (let k = 0; k < v.moves.length; k += 2) {
    const li = document.createElement("li");
    for (const ply of [k, k + 1]) {
      if (ply >= v.moves.length) break;
      const button = document.createElement("button");
      button.className = "move";
      button.textContent = v.moves[ply];
      button.dataset.ply = ply + 1;
      button.classList.toggle("current", ply + 1 === shown);
      button.addEventListener("click", () => viewPly(ply + 1));
      li.append(button);
    }
    items.push(li);
  }
  $("moves").replaceChildren(...items);
}

function step(delta) {
  const v = page.view;
  if (!v) return;
  const now = live() ? v.moves.length : page.viewing;
  viewPly(Math.max(0, Math.min(v.moves.length, now + delta)));
}

async function viewPly(ply) {
  const v = page.view;
  if (!v) return;
  if (ply === v.moves.length) {
    page.viewing = null;
    return render();
  }
  if (!page.positions.has(ply)) {
    try {
      page.positions.set(ply, await api.position(v.id, ply));
    } catch (err) {
      return showMessage(err.message);
    }
  }
  page.viewing = ply;
  render();
}

// --------------------------------------------------------------------------- playing
async function clickBoard(event) {
  const target = event.target.closest("[data-cell]");
  if (!target || !page.view) return;
  const v = page.view;
  if (!live()) return showMessage("You are looking at an earlier position: press » or End to return.");
  if (!yourTurn()) {
    return showMessage(v.result ? "The game is over: undo or start a new game."
      : "It is the agent's turn: wait for its move, or press “Move now”.");
  }
  if (Object.keys(v.board.steps).length) return clickStep(v, Number(target.dataset.cell));
  const action = v.board.clicks[target.dataset.cell];
  if (action === undefined) {
    const legal = Object.values(v.board.legal);
    return showMessage(`That is not a legal move here. Legal: ${legal.slice(0, 20).join(", ")}` +
                       (legal.length > 20 ? ", …" : ""));
  }
  play(action);
}

// a step (chess): the first click picks a piece that has moves, the second its target; a
// pawn reaching the last rank then asks which piece it becomes
function clickStep(v, cell) {
  const steps = Object.entries(v.board.steps);
  const chosen = steps.filter(([, s]) => s[0] === page.selected && s[1] === cell);
  if (chosen.length === 1) return play(Number(chosen[0][0]));
  if (chosen.length > 1) return askPromotion(chosen);
  page.selected = steps.some(([, s]) => s[0] === cell) && page.selected !== cell ? cell : null;
  showMessage(page.selected === null && !steps.some(([, s]) => s[0] === cell)
    ? "Click one of your pieces that can move, then the square it goes to." : "");
  render();
}

function askPromotion(chosen) {
  const bySuffix = new Map(chosen.map(([action, s]) => [s[2], Number(action)]));
  const buttons = PROMOTIONS.filter(([suffix]) => bySuffix.has(suffix)).map(([suffix, glyph, name]) => {
    const button = document.createElement("button");
    button.textContent = glyph;
    button.title = button.ariaLabel = `promote to a ${name}`;
    button.dataset.promotion = suffix;
    button.addEventListener("click", () => play(bySuffix.get(suffix)));
    return button;
  });
  const label = document.createElement("span");
  label.textContent = "Promote to:";
  $("promotion").replaceChildren(label, ...buttons);
  $("promotion").hidden = false;
}

async function play(action) {
  if (page.busy) return;
  page.busy = true;
  showMessage("");
  page.selected = null;
  $("promotion").hidden = true;
  try {
    show(await api.move(page.view.id, action, page.view.moves.length));
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

// --------------------------------------------------------------------------- keyboard
// Keys that play, where a key per move fits: Connect Four's columns (1, 2, ...), tic-tac-toe's
// cells (1-9, row by row from the top left). Arrows, Home and End step through the moves.
function keyMap(v) {
  if (v.game.name === "connect_four") {
    return { label: `1–${v.board.cols}`, action: (key) => Number(key) - 1,
             fits: (key) => /^[1-9]$/.test(key) && Number(key) <= v.board.cols };
  }
  if (v.game.name === "tictactoe") {
    return { label: "1–9", fits: (key) => /^[1-9]$/.test(key),
             action: (key) => v.board.clicks[String(Number(key) - 1)] };
  }
  return null;
}

function onKey(event) {
  const v = page.view;
  if (!v || event.target.closest("input, textarea, select") || event.ctrlKey || event.metaKey) return;
  const steps = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  if (event.key in steps) {
    event.preventDefault();
    return step(steps[event.key]);
  }
  const keys = keyMap(v);
  if (keys && keys.fits(event.key) && live() && yourTurn()) {
    const action = keys.action(event.key);
    if (action !== undefined && String(action) in v.board.legal) play(action);
    else showMessage(`${event.key} is not a legal move here.`);
  }
}

// ------------------------------------------------------------------------------ clocks
// m:ss above ten seconds, then s.t; the time shown never exceeds the time left
function clockText(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return `0:0${(Math.floor(s * 10) / 10).toFixed(1)}`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
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
    node.textContent = `${who} (${sideName(v.game, seat)}) ${clockText(main)}${extra}`;
    node.classList.toggle("running", running);
    node.classList.toggle("flagged", c.flagged === seat);
  }
}
setInterval(renderClocks, 100);

start();
