// The server's JSON API and the live WebSocket. Every error is thrown as an Error whose
// message is the server's explanation.

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) {
    throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

export const catalog = () => call("GET", "/api/catalog");
export const newGame = (settings) => call("POST", "/api/games", settings);
export const move = (id, action, ply) => call("POST", `/api/games/${id}/move`, { action, ply });
export const command = (id, name) => call("POST", `/api/games/${id}/${name}`, {});
export const position = (id, ply) => call("GET", `/api/games/${id}/position?ply=${ply}`);
export const recordUrl = (id, format) => `/api/games/${id}/record?format=${format}`;

// Close a game while the page unloads: a keepalive request outlives the page.
export function closeAsThePageGoes(id) {
  fetch(`/api/games/${id}/close`, { method: "POST", keepalive: true,
                                    headers: { "Content-Type": "application/json" },
                                    body: "{}" }).catch(() => {});
}

// Calls onMessage with every pushed message ({type: "view" | "analysis" | "closed"}) until
// close() is called; reconnects after a dropped connection (the server keeps the game for a
// few seconds after its last page goes). onGone() is called when the game no longer exists.
export function live(id, onMessage, onGone) {
  let socket = null;
  let closed = false;
  const open = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/api/games/${id}/live`);
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = (event) => {
      if (closed) return;
      if (event.code === 4404) onGone();
      else setTimeout(open, 1000);
    };
  };
  open();
  return { close() { closed = true; if (socket) socket.close(); } };
}
