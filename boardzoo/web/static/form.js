// The new-game form: games and their options, opponents and theirs (with the bounds the
// server enforces), the seat, the clock, a position or record to start from.

const $ = (id) => document.getElementById(id);

const NAMES = { tictactoe: "Tic-tac-toe", nim: "Nim", connect_four: "Connect Four",
                othello: "Othello", go: "Go", gomoku: "Gomoku", chess: "Chess" };
export const gameLabel = (name) => NAMES[name] || name.replace(/_/g, " ");

export function setUpForm(catalog, onStart) {
  for (const game of catalog.games) $("game").append(new Option(gameLabel(game.name), game.name));
  $("game").addEventListener("change", () => fillForm(catalog));
  $("agent").addEventListener("change", () => fillAgentOptions(catalog));
  $("new-game").addEventListener("submit", (event) => { event.preventDefault(); onStart(); });
  $("record-file").addEventListener("change", readRecordFile);
  fillForm(catalog);
}

export function formSettings() {
  return {
    game: $("game").value,
    options: values("game-option"),
    agent: $("agent").value,
    agent_options: values("agent-option"),
    human_seat: Number(document.querySelector("input[name=seat]:checked").value),
    record: $("record").value,
    time_control: $("time-control").value,
    ponder: $("ponder").checked,
  };
}

function fillForm(catalog) {
  const game = catalog.games.find((g) => g.name === $("game").value);
  $("game-options").replaceChildren(...game.options.map((o) =>
    field("game-option", o.name, o.default, o.type)));
  $("position-format").textContent = `Position format: ${game.position_format}`;
  const agents = catalog.agents.filter((a) => !["alphazero", "ppo"].includes(a.name) ||
    checkpointsFor(catalog, a.name, game.name).length);
  const previous = $("agent").value;
  $("agent").replaceChildren(...agents.map((a) => new Option(a.label, a.name)));
  $("agent").value = agents.some((a) => a.name === previous) ? previous : "mcts";
  fillAgentOptions(catalog);
}

function checkpointsFor(catalog, agent, game) {
  return catalog.checkpoints.filter((c) => c.agent === agent && c.game === game);
}

function fillAgentOptions(catalog) {
  const agent = catalog.agents.find((a) => a.name === $("agent").value);
  const fields = agent.options.map((o) => {
    if (o.kind !== "checkpoint") {
      const wrap = field("agent-option", o.name, o.default, `${o.help} (${o.low}–${o.high})`);
      const input = wrap.querySelector("input");
      Object.assign(input, { type: "number", min: o.low, max: o.high,
                             step: o.kind === "count" ? 1 : "any" });
      return wrap;
    }
    const select = document.createElement("select");
    select.className = "agent-option";
    select.dataset.name = "checkpoint";
    for (const c of checkpointsFor(catalog, agent.name, $("game").value)) {
      const opts = Object.entries(c.options).map(([k, v]) => `${k}=${v}`).join(", ");
      select.append(new Option(opts ? `${c.name} (${opts})` : c.name, c.name));
    }
    select.addEventListener("change", () => matchCheckpointOptions(catalog, agent.name, select.value));
    const wrap = document.createElement("label");
    wrap.append("checkpoint ", select);
    matchCheckpointOptions(catalog, agent.name, select.value);
    return wrap;
  });
  $("agent-options").replaceChildren(...fields);
}

// a checkpoint plays the game options it was trained for: set them in the form
function matchCheckpointOptions(catalog, agent, name) {
  const checkpoint = catalog.checkpoints.find((c) => c.agent === agent && c.name === name);
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
