// Talks to the server: every read goes through the operation catalog
// (POST /api/ops/<id>), SQL through /api/query, live updates through
// /api/events. The bearer token (needed only when the server listens beyond
// loopback) is taken once from ?token= and kept for this browser tab.

const TOKEN_KEY = "vantage.token";

function takeTokenFromUrl() {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}
takeTokenFromUrl();

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** An error carrying the server's error object. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.kind = error?.kind;
  }
}

async function send(path, body, signal) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const data = await response.json().catch(() => ({}));
  return { status: response.status, data };
}

/** The operations this browser may run, with their schemas. */
export async function listOps() {
  const { status, data } = await send("/api/ops");
  if (status !== 200) throw new ApiError(status, data.error);
  return data;
}

/** Runs one operation and returns its result; throws on any kind of error. */
export async function op(id, args = {}, signal) {
  const { status, data } = await send(`/api/ops/${encodeURIComponent(id)}`, args, signal);
  if (data.error) throw new ApiError(status, data.error);
  if (data.operation_error) throw new ApiError(status, data.operation_error);
  return data.result;
}

/** Runs one operation and returns the whole response envelope with its HTTP status. */
export async function opRaw(id, args = {}) {
  return await send(`/api/ops/${encodeURIComponent(id)}`, args);
}

/** Runs one read-only SELECT. */
export async function sql(text, rowLimit = 200) {
  const { status, data } = await send("/api/query", { sql: text, row_limit: rowLimit });
  if (data.error) throw new ApiError(status, data.error);
  return data;
}

/**
 * Follows /api/events with fetch (so the token travels in a header, never
 * in a URL), reconnecting after a pause and resuming from the last id.
 * `onState` hears "live" / "offline".
 */
export function followEvents(onEvent, onState) {
  let lastId;
  let stopped = false;
  let controller;
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await fetch("/api/events", {
          headers: headers(lastId === undefined ? {} : { "last-event-id": String(lastId) }),
          signal: controller.signal,
        });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = parseBlock(block);
            if (event === undefined) continue;
            if (event.id !== undefined) lastId = event.id;
            onEvent(event);
          }
        }
      } catch {
        // Dropped or refused: say so and try again shortly.
      }
      if (stopped) break;
      onState("offline");
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  };
  run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

function parseBlock(block) {
  let type = "message";
  let id;
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    else if (field === "id") id = Number(value);
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    return { type, id, data: JSON.parse(data.join("\n")) };
  } catch {
    return undefined;
  }
}
