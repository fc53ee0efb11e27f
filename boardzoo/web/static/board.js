// The board as SVG: cells or intersections, pieces, legal moves, the last move, captured or
// flipped pieces, a winning line, Go's dead stones, chess's pieces, selected piece and king
// in check, and the agent's visit heat-map and (Go) ownership. Cells are row-major indices; `position` is the server's position view (see
// position_view in boardzoo/web/session.py) and `game` its game view.

const SVG = "http://www.w3.org/2000/svg";
const CELL = 60;   // user units per cell
const MARGIN = 28; // room for the coordinate labels (above and to the left)
const EDGE = 6;    // room below and to the right
const MOST_DOTS = 40; // legal moves are dotted when there are at most this many
// chess's pieces by FEN letter: the solid figurines, filled in each side's colour
const FIGURINES = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E",
                    p: "\u265F" };

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const rgb = (c, alpha = 1) => `rgba(${c[0]}, ${c[1]}, ${c[2]}, ${alpha})`;
const dark = (c) => c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114 < 128;

// options: {playable: clicks allowed, heat: show the heat-map, analysis, dead: Go's dead
// stones (cells), selected: the from-cell picked for a step (chess), or null}
export function drawBoard(svg, game, position, options) {
  const { board } = position;
  const { rows, cols } = board;
  const width = cols * CELL + MARGIN + EDGE;
  const height = rows * CELL + MARGIN + EDGE;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  svg.dataset.game = game.name;
  const centre = (cell) => [MARGIN + (cell % cols + 0.5) * CELL,
                            MARGIN + (Math.floor(cell / cols) + 0.5) * CELL];
  svg.appendChild(el("rect", { x: MARGIN, y: MARGIN, width: cols * CELL, height: rows * CELL,
                               rx: 6, fill: rgb(game.board_rgb), class: "board-bg" }));
  const darkBoard = dark(game.board_rgb);
  if (board.letters) drawSquares(svg, rows, cols);
  else drawGrid(svg, rows, cols, game.intersections,
                darkBoard ? "rgba(255,255,255,0.35)" : "rgba(0,0,0,0.55)");
  drawLabels(svg, board);
  if (options.heat && options.analysis) drawHeat(svg, board, options.analysis, centre);
  if (options.analysis && options.analysis.ownership) {
    drawOwnership(svg, board, options.analysis.ownership, centre, game);
  }
  // dots on the legal cells where they are few enough to help (not on Go's or Gomoku's
  // open boards, where every empty point is legal: there a playable cell lights up instead);
  // where moves are steps (chess), the targets of the selected piece only
  const steps = Object.values(board.steps || {});
  const starts = new Set(steps.map((s) => String(s[0])));
  const targets = new Set(steps.length
    ? steps.filter((s) => s[0] === options.selected).map((s) => String(s[1]))
    : Object.values(board.targets).map(String));
  if (board.check !== null && board.check !== undefined) {
    const [x, y] = centre(board.check);
    svg.appendChild(el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
                                 class: "check", "data-at": board.check }));
  }
  if (options.selected !== null && options.selected !== undefined) {
    const [x, y] = centre(options.selected);
    svg.appendChild(el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
                                 class: "selected", "data-at": options.selected }));
  }
  const dots = targets.size <= MOST_DOTS;
  const line = new Set(position.line);
  const dead = new Set(options.dead || []);
  const hits = el("g", { class: "hits" });  // on top: every click lands on a cell
  for (let cell = 0; cell < rows * cols; cell++) {
    const [x, y] = centre(cell);
    const piece = board.cells[Math.floor(cell / cols)][cell % cols];
    const letter = board.letters ? board.letters[Math.floor(cell / cols)][cell % cols] : null;
    if (piece && options.playable && dots && targets.has(String(cell))) {
      svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.46, class: "legal capture" }));
    }
    if (piece) {
      const drawn = letter ? drawFigurine(svg, game, piece, letter, x, y)
        : drawPiece(svg, game, piece, x, y);
      drawn.dataset.at = cell;
      if (line.has(cell)) drawn.classList.add("winning");
      if (dead.has(cell)) drawDead(svg, game, piece, x, y, cell);
    } else if (options.playable && dots && targets.has(String(cell))) {
      svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.1, class: "legal",
                                     fill: darkBoard ? "rgba(255,255,255,0.75)"
                                       : rgb(game.piece_rgb[board.to_play], 0.35),
                                     stroke: darkBoard ? "rgba(0,0,0,0.35)" : "none" }));
    }
    const square = el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
                                class: "cell", "data-cell": cell, fill: "transparent" });
    const clickable = String(cell) in board.clicks || starts.has(String(cell))
      || targets.has(String(cell));
    if (clickable && options.playable) square.classList.add("playable");
    hits.appendChild(square);
  }
  for (const cell of position.changed) {
    const [x, y] = centre(cell);
    svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.44, class: "changed" }));
  }
  if (position.line.length) drawLine(svg, position.line.map(centre));
  if (position.last_move && position.last_move.cell !== null) {
    const [x, y] = centre(position.last_move.cell);
    svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.47, class: "last-move" }));
  }
  if (position.last_move && position.last_move.from != null) {
    const [x, y] = centre(position.last_move.from);
    svg.appendChild(el("circle", { cx: x, cy: y, r: CELL * 0.47, class: "last-move from" }));
  }
  svg.appendChild(hits);
  if (options.playable && board.removes) showRemovals(svg, board);
}

function drawGrid(svg, rows, cols, intersections, colour) {
  const half = intersections ? CELL / 2 : 0;
  const lines = el("g", { stroke: colour, "stroke-width": intersections ? 1.4 : 1.2 });
  for (let r = intersections ? 0 : 1; r < rows; r++) {
    const y = MARGIN + r * CELL + half;
    lines.appendChild(el("line", { x1: MARGIN + half, y1: y, x2: MARGIN + cols * CELL - half, y2: y }));
  }
  for (let c = intersections ? 0 : 1; c < cols; c++) {
    const x = MARGIN + c * CELL + half;
    lines.appendChild(el("line", { x1: x, y1: MARGIN + half, x2: x, y2: MARGIN + rows * CELL - half }));
  }
  svg.appendChild(lines);
}

function drawLabels(svg, board) {
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

function drawSquares(svg, rows, cols) {
  // a chequered board: light squares over the board's (dark) colour, the top-left one light
  const squares = el("g", { class: "light-squares" });
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if ((r + c) % 2 === 0) {
        squares.appendChild(el("rect", { x: MARGIN + c * CELL, y: MARGIN + r * CELL,
                                         width: CELL, height: CELL }));
      }
    }
  }
  svg.appendChild(squares);
}

function drawFigurine(svg, game, piece, letter, x, y) {
  // a chess piece: its solid figurine in its side's colour, outlined in the other's
  const kind = letter.toLowerCase();
  return svg.appendChild(el("text", { x, y: y + CELL * 0.3, class: "piece figurine",
                                      "data-owner": piece, "data-letter": letter,
                                      fill: rgb(game.piece_rgb[piece - 1]),
                                      stroke: rgb(game.piece_rgb[2 - piece]) },
                            FIGURINES[kind] || letter));
}

function drawDead(svg, game, piece, x, y, cell) {
  // a cross in the other colour over a stone the estimate calls dead
  const colour = rgb(game.piece_rgb[2 - piece]);
  const d = CELL * 0.2;
  const cross = el("g", { class: "dead", "data-at": cell, stroke: colour, "stroke-width": 4,
                          "stroke-linecap": "round" });
  cross.appendChild(el("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d }));
  cross.appendChild(el("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d }));
  svg.appendChild(cross);
}

function drawLine(svg, points) {
  // points are in reading order: the two ends of a straight line
  const [[x1, y1], [x2, y2]] = [points[0], points[points.length - 1]];
  svg.appendChild(el("line", { x1, y1, x2, y2, class: "winning-line" }));
}

function showRemovals(svg, board) {
  // Nim: hovering a stone shows every stone the click takes with it
  svg.querySelectorAll(".cell.playable").forEach((square) => {
    const taken = board.removes[String(board.clicks[square.dataset.cell])] || [];
    square.addEventListener("mouseenter", () => taken.forEach((cell) => {
      const piece = svg.querySelector(`.piece[data-at="${cell}"]`);
      if (piece) piece.classList.add("taken");
    }));
    square.addEventListener("mouseleave", () => {
      svg.querySelectorAll(".piece.taken").forEach((p) => p.classList.remove("taken"));
    });
  });
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
      // as large as a cell holds the count: up to three characters ("999", "99k") at 0.45 of
      // a cell, readable on a phone's 15x15 board too (the drawing is scaled to the screen);
      // four ("262k") smaller, so that they stay inside their cell
      const text = n >= 1000 ? `${Math.min(999, Math.round(n / 1000))}k` : String(n);
      const size = text.length > 3 ? CELL * 1.2 / text.length : CELL * 0.45;
      heat.appendChild(el("text", { x, y: y + size * 0.38, class: "heat-count",
                                    "font-size": size }, text));
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
