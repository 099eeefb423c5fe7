/**
 * The Origin rules against what a real browser sends (headless Chromium,
 * skipped where it is missing): a page of another web application on this
 * machine and a sandboxed frame (Origin: null) each fire a "simple"
 * text/plain POST at a real `vantage serve` — the kind no CORS preflight
 * stops — and nothing is stored; the dashboard's own page stores the same
 * document.
 *
 * The hostile pages first send the same request to their own server, which
 * records the Origin the browser attached, so the test knows what Vantage
 * was shown; the browser's console reports Vantage's status (the page itself
 * cannot read the answer).
 */
import assert from "node:assert/strict";
import type { ConsoleMessage, Page } from "playwright-core";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { browserMissing, launchBrowser } from "../helpers/browser.ts";
import { startServe } from "../helpers/serve_process.ts";

const missing = browserMissing();
if (missing !== undefined) console.log(`browser origin tests skipped: ${missing}`);

/** The script a hostile page runs: the same simple POST to its own recorder, then to Vantage. */
function plantScript(recorder: string, target: string, name: string): string {
  const options = `{
    method: "POST",
    mode: "no-cors",
    headers: { "content-type": "text/plain;charset=UTF-8" },
    body: ${JSON.stringify(JSON.stringify({ content: "planted", name }))},
  }`;
  return `fetch(${JSON.stringify(recorder)}, ${options})
    .then(() => fetch(${JSON.stringify(`${target}/api/ops/docs.add`)}, ${options}))
    .then(() => { document.title = "sent"; }, (error) => { document.title = "failed " + error; });`;
}

/** Waits for the browser's report of the status a request to `url` was answered with. */
function statusReported(page: Page, url: string): Promise<number> {
  return page.waitForEvent("console", {
    predicate: (message: ConsoleMessage) =>
      message.location().url === url && /responded with a status of \d+/.test(message.text()),
    timeout: 20_000,
  }).then((message: ConsoleMessage) =>
    Number(/responded with a status of (\d+)/.exec(message.text())![1])
  );
}

Deno.test({
  name: "browser: pages on another port and sandboxed frames cannot store through serve",
  ignore: missing !== undefined,
  async fn(t) {
    const home = await makeAgentHome({ fixtures: false });
    const server = await startServe(home, ["--no-tail"]);
    const target = `${server.url}/api/ops/docs.add`;
    // Another web application on this machine, on its own port: it serves the hostile pages and
    // records the Origin of each POST it gets, by the document name in the body.
    const pages = new Map<string, string>();
    const origins = new Map<string, string | null>();
    const other = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (request) => {
        if (request.method === "POST") {
          origins.set(JSON.parse(await request.text()).name, request.headers.get("origin"));
          return new Response("recorded");
        }
        const html = pages.get(new URL(request.url).pathname);
        return html === undefined
          ? new Response("not found", { status: 404 })
          : new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
      },
    );
    const otherUrl = `http://127.0.0.1:${other.addr.port}`;
    const browser = await launchBrowser();
    const stored = async (name: string): Promise<boolean> => {
      const response = await fetch(`${server.url}/api/ops/docs.list`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ paths_only: true, limit: 10_000 }),
      });
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      return (body.result.paths as string[]).includes(name);
    };
    try {
      const page = await browser.newPage();

      await t.step("a page on another local port: its POST arrives and is refused", async () => {
        const name = "from-other-port.md";
        pages.set(
          "/other.html",
          `<!doctype html><script>${plantScript(`${otherUrl}/record`, server.url, name)}</script>`,
        );
        const status = statusReported(page, target);
        await page.goto(`${otherUrl}/other.html`);
        assert.equal(await status, 403);
        assert.equal(origins.get(name), otherUrl);
        assert.ok(!await stored(name));
      });

      await t.step("a sandboxed frame sends Origin: null and is refused", async () => {
        const name = "from-sandbox.md";
        const inner = `<script>${plantScript(`${otherUrl}/record`, server.url, name)}</script>`;
        pages.set(
          "/sandbox.html",
          `<!doctype html><iframe sandbox="allow-scripts" srcdoc="${
            inner.replaceAll("&", "&amp;").replaceAll('"', "&quot;")
          }"></iframe>`,
        );
        const status = statusReported(page, target);
        await page.goto(`${otherUrl}/sandbox.html`);
        assert.equal(await status, 403);
        assert.equal(origins.get(name), "null");
        assert.ok(!await stored(name));
      });

      await t.step("the dashboard's own page stores a document the same way", async () => {
        const name = "from-dashboard.md";
        await page.goto(`${server.url}/`);
        const status = await page.evaluate(async ([url, body]) => {
          const response = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          return response.status;
        }, [target, JSON.stringify({ content: "kept", name })]);
        assert.equal(status, 200);
        assert.ok(await stored(name));
      });
    } finally {
      await browser.close();
      await other.shutdown();
      assert.equal(await server.stop(), 0);
      await home.cleanup();
    }
  },
});
