/**
 * The route table on its own: middleware order, which sub-router claims a
 * path, prefix routes, method checks and the answers for what no route
 * takes. The API's own routes are tested through the handler (api_test.ts
 * and its neighbours).
 */
import assert from "node:assert/strict";
import { HttpError, json } from "../../src/http/responses.ts";
import {
  allowMethods,
  type Middleware,
  routeTable,
  type SubRouter,
} from "../../src/http/router.ts";

const ORIGIN = "http://127.0.0.1:14300";

/** Middleware that notes its name, then lets the request on. */
function note(trace: string[], name: string): Middleware {
  return (context, next) => {
    trace.push(`${name} ${context.path}`);
    return next();
  };
}

/** The table's errors as the handler answers them, so a test reads status and message. */
const answerErrors: Middleware = async (_context, next) => {
  try {
    return await next();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return json(
      { kind: error.kind, message: error.message },
      error.status,
      error.headers,
    );
  }
};

function table(trace: string[]) {
  const api: SubRouter = {
    prefix: "/api",
    middleware: [note(trace, "api")],
    routes: [
      { path: "/api/ping", handle: () => json({ route: "ping" }) },
      {
        path: "/api/items/*",
        methods: ["POST"],
        middleware: [note(trace, "item")],
        handle: ({ rest }) => json({ route: "item", rest }),
      },
      { path: "/api/items", methods: ["GET"], handle: () => json({ route: "items" }) },
    ],
  };
  const pages: SubRouter = {
    prefix: "/",
    routes: [{ path: "/*", handle: ({ rest }) => json({ route: "page", rest }) }],
  };
  return routeTable({ middleware: [answerErrors, note(trace, "outer")], routers: [api, pages] });
}

async function call(
  handler: (request: Request) => Promise<Response>,
  path: string,
  method = "GET",
): Promise<{ status: number; body: Record<string, unknown>; allow: string | null }> {
  const response = await handler(new Request(`${ORIGIN}${path}`, { method }));
  return {
    status: response.status,
    body: await response.json(),
    allow: response.headers.get("allow"),
  };
}

Deno.test("the table runs its middleware, then the claiming router's, then the route's", async () => {
  const trace: string[] = [];
  const handler = table(trace);
  const item = await call(handler, "/api/items/a%2Eb", "POST");
  assert.deepEqual(item.body, { route: "item", rest: "a%2Eb" }, "the * part as sent");
  assert.deepEqual(trace, [
    "outer /api/items/a%2Eb",
    "api /api/items/a%2Eb",
    "item /api/items/a%2Eb",
  ]);
});

Deno.test("a prefix claims itself and what is below it, not a longer name", async () => {
  const trace: string[] = [];
  const handler = table(trace);
  assert.deepEqual((await call(handler, "/api/ping")).body, { route: "ping" });
  assert.deepEqual((await call(handler, "/apiary")).body, { route: "page", rest: "apiary" });
  assert.deepEqual((await call(handler, "/")).body, { route: "page", rest: "" });
  // An escape is not decoded before matching: %61pi is not /api, and no check sees it as such.
  assert.deepEqual((await call(handler, "/%61pi/ping")).body, {
    route: "page",
    rest: "%61pi/ping",
  });
  assert.deepEqual(trace.filter((line) => line.startsWith("api ")), ["api /api/ping"]);
});

Deno.test("a path under a prefix that no route takes passes the router's middleware, then is a 404", async () => {
  const trace: string[] = [];
  const handler = table(trace);
  const missing = await call(handler, "/api/nothing", "DELETE");
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, {
    kind: "not_found",
    message: "no route for DELETE /api/nothing",
  });
  assert.deepEqual(trace, ["outer /api/nothing", "api /api/nothing"]);
  // The exact route is not its own prefix route: /api/items is GET only, /api/items/ is POST.
  assert.equal((await call(handler, "/api/items")).status, 200);
  const slash = await call(handler, "/api/items/");
  assert.equal(slash.status, 405);
});

Deno.test("a method a route does not take is a 405 naming the methods, before the route's middleware", async () => {
  const trace: string[] = [];
  const handler = table(trace);
  const wrong = await call(handler, "/api/items/x", "GET");
  assert.equal(wrong.status, 405);
  assert.equal(wrong.allow, "POST");
  assert.equal(wrong.body.message, "use POST for /api/items/x; got GET");
  assert.ok(!trace.some((line) => line.startsWith("item ")), trace.join("; "));
  const two = allowMethods("GET", "HEAD");
  await assert.rejects(
    async () =>
      await two({
        request: new Request(`${ORIGIN}/x`, { method: "PUT" }),
        url: new URL(`${ORIGIN}/x`),
        path: "/x",
        rest: "",
      }, () => Promise.resolve(new Response())),
    (error) => error instanceof HttpError && error.headers.allow === "GET, HEAD",
  );
});

Deno.test("with no router for a path the table answers 404, and middleware can answer first", async () => {
  const handler = routeTable({
    middleware: [answerErrors],
    routers: [{ prefix: "/api", routes: [] }],
  });
  const missing = await call(handler, "/elsewhere");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, "no route for GET /elsewhere");
  const refusing = routeTable({
    middleware: [answerErrors, () => Promise.reject(new HttpError("forbidden", "no", 403))],
    routers: [{ prefix: "/", routes: [{ path: "/*", handle: () => json({}) }] }],
  });
  assert.equal((await call(refusing, "/anything")).status, 403);
});

Deno.test("a router's own error answer takes every failure under its prefix, the table's checks included", async () => {
  const refuseOn = (marker: string): Middleware => (context, next) => {
    // Thrown at once, before any promise exists, as the Host/Origin guard does.
    if (context.request.headers.has(marker)) {
      throw new HttpError("forbidden", `refused by ${marker}`, 403);
    }
    return next();
  };
  const handler = routeTable({
    middleware: [refuseOn("x-table")],
    answerError: (_context, error) =>
      json({ by: "table", message: (error as Error).message }, (error as HttpError).status),
    routers: [
      {
        prefix: "/intake",
        middleware: [refuseOn("x-router")],
        routes: [{ path: "/intake/take", methods: ["POST"], handle: () => json({ taken: true }) }],
        answerError: (context, error) =>
          new Response(`${context.path}: ${(error as Error).message}`, {
            status: error instanceof HttpError ? error.status : 500,
          }),
      },
      { prefix: "/", routes: [{ path: "/*", handle: () => json({ page: true }) }] },
    ],
  });
  const ask = (path: string, headers: Record<string, string> = {}, method = "POST") =>
    handler(new Request(`${ORIGIN}${path}`, { method, headers }));

  const byTable = await ask("/intake/take", { "x-table": "1" });
  assert.equal(byTable.status, 403);
  assert.equal(await byTable.text(), "/intake/take: refused by x-table");
  const byRouter = await ask("/intake/take", { "x-router": "1" });
  assert.equal(await byRouter.text(), "/intake/take: refused by x-router");
  const method = await ask("/intake/take", {}, "GET");
  assert.equal(method.status, 405);
  assert.equal(await method.text(), "/intake/take: use POST for /intake/take; got GET");
  const missing = await ask("/intake/other");
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "/intake/other: no route for POST /intake/other");
  assert.deepEqual(await (await ask("/intake/take")).json(), { taken: true });
  // Elsewhere the table's own answer applies.
  const elsewhere = await ask("/page", { "x-table": "1" });
  assert.deepEqual(await elsewhere.json(), { by: "table", message: "refused by x-table" });
});
