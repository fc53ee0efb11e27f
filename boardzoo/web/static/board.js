// The board as SVG: cells or intersections, pieces, legal moves, the last move, captured or
// flipped pieces, and the agent's visit heat-map and (Go) ownership. Cells are row-major
// indices; `view` is the server's game view (see boardzoo/web/session.py).

const SVG = "http://www.w3.org/2000/svg";
const CELL = 60;   // user units per cell
const MARGIN = 28; // room for the coordinate labels

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const rgb = (c, alpha = 1) => `rgba(${c[0]}, ${c[1]}, ${c[2]}, ${alpha})`;
const dark = (c) => c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114 < 128;

export function drawBoard(svg, view, options) {
  const { board, game } = view;
  const { rows, cols } = board;
  const width = cols * CELL + 2 * MARGIN;
  const height = rows * CELL + 2 * MARGIN;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.style.maxWidth = `${Math.min(600, width * 1.6)}px`;
  svg.replaceChildren();
  svg.dataset.game = game.name;
  const centre = (cell) => [MARGIN + (cell % cols + 0.5) * CELL,
                            MARGIN + (Math.floor(cell / cols) + 0.5) * CELL];
  svg.appendChild(el("rect", { x: MARGIN, y: MARGIN, width: cols * CELL, height: rows * CELL,
                               rx: 6, fill: rgb(game.board_rgb), class: "board-bg" }));
  const lineColour = dark(game.board_rgb) ? "rgba(255,255,255,0.35)" : "rgba(0,0,0,0.55)";
  drawGrid(svg, rows, cols, game.intersections, lineColour);
  drawLabels(svg, board, game.intersections);
  if (options.heat && options.analysis) drawHeat(svg, board, options.analysis, centre);
  if (options.analysis && options.analysis.ownership) {
    drawOwnership(svg, board, options.analysis.ownership, centre, game);
  }
  const hits = el("g", { class: "hits" });  // on top: every click lands on a cell
  for (let cell = 0; cell < rows * cols; cell++) {
    const [x, y] = centre(cell);
    const piece = board.cells[Math.floor(cell / cols)][cell % cols];
    if (piece) drawPiece(svg, game, piece, x, y).dataset.at = cell;
    else if (options.yourTurn && String(cell) in invert(board.targets)) {
      svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.08, class: "legal",
                                     fill: rgb(game.piece_rgb[board.to_play], 0.3) }));
    }
    const square = el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
                                class: "cell", "data-cell": cell, fill: "transparent" });
    if (String(cell) in board.clicks && options.yourTurn) square.classList.add("playable");
    hits.appendChild(square);
  }
  for (const cell of view.changed) {
    const [x, y] = centre(cell);
    svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.44, class: "changed" }));
  }
  if (view.last_move && view.last_move.cell !== null) {
    const [x, y] = centre(view.last_move.cell);
    svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.12, class: "last-move" }));
  }
  svg.appendChild(hits);
}

const inverted = new WeakMap();
function invert(targets) {  // cell -> action of the legal moves (drawn as dots)
  if (!inverted.has(targets)) {
    inverted.set(targets, Object.fromEntries(Object.entries(targets).map(([a, c]) => [c, a])));
  }
  return inverted.get(targets);
}

function drawGrid(svg, rows, cols, intersections, colour) {
  const half = intersections ? CELL / 2 : 0;
  const lines = el("g", { stroke: colour, "stroke-width": intersections ? 1.4 : 1.2 });
  for (let r = intersections ? 0 : 1; r < (intersections ? rows : rows); r++) {
    const y = MARGIN + r * CELL + half;
    lines.appendChild(el("line", { x1: MARGIN + half, y1: y, x2: MARGIN + cols * CELL - half, y2: y }));
  }
  for (let c = intersections ? 0 : 1; c < cols; c++) {
    const x = MARGIN + c * CELL + half;
    lines.appendChild(el("line", { x1: x, y1: MARGIN + half, x2: x, y2: MARGIN + rows * CELL - half }));
  }
  svg.appendChild(lines);
}

function drawLabels(svg, board, intersections) {
  const labels = el("g", { class: "labels" });
  board.col_labels.forEach((text, c) => {
    labels.appendChild(el("text", { x: MARGIN + (c + 0.5) * CELL, y: MARGIN - 9 }, text));
  });
  board.row_labels.forEach((text, r) => {
    labels.appendChild(el("text", { x: MARGIN / 2, y: MARGIN + (r + 0.5) * CELL + 5 }, text));
  });
  svg.appendChild(labels);
}

function drawPiece(svg, game, piece, x, y) {
  const colour = game.piece_rgb[piece - 1];
  if (game.name === "tictactoe") {  // marks, not discs
    const mark = game.symbols[piece];
    return svg.appendChild(el("text", { x, y: y + CELL * 0.2, class: `piece mark mark-${mark}`,
                                        "data-owner": piece }, mark));
  }
  return svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.42, fill: rgb(colour),
                                        class: "piece", "data-owner": piece,
                                        stroke: dark(colour) ? "#000" : "#9a9a9a",
                                        "stroke-width": 1 }));
}

function drawHeat(svg, board, analysis, centre) {
  const most = Math.max(0, ...analysis.moves.map((m) => m.visits));
  if (!(most > 0)) return;
  const heat = el("g", { class: "heat" });
  analysis.moves.forEach(({ action, visits: n }) => {
    const cell = board.targets[String(action)];
    if (!n || cell === undefined) return;
    const [x, y] = centre(cell);
    const share = n / most;
    heat.appendChild(el("rect", { x: x - CELL / 2 + 3, y: y - CELL / 2 + 3, width: CELL - 6,
                                  height: CELL - 6, rx: 8,
                                  fill: `rgba(255, 120, 20, ${0.7 * share})` }));
    if (share >= 0.2) {
      const text = n >= 10000 ? `${Math.round(n / 1000)}k` : String(n);
      heat.appendChild(el("text", { x, y: y + CELL * 0.36, class: "heat-count" }, text));
    }
  });
  svg.appendChild(heat);
}

function drawOwnership(svg, board, ownership, centre, game) {
  // ownership: one value per point (action order = row-major cells) in [-1, 1], +1 Black's
  const group = el("g", { class: "ownership" });
  ownership.forEach((value, cell) => {
    if (Math.abs(value) < 0.2 || board.cells[Math.floor(cell / board.cols)][cell % board.cols]) return;
    const [x, y] = centre(cell);
    const size = CELL * 0.3 * Math.abs(value);
    group.appendChild(el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size,
                                   fill: rgb(game.piece_rgb[value > 0 ? 0 : 1], 0.8) }));
  });
  svg.appendChild(group);
}
