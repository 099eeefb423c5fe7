/**
 * The dashboard in a real browser (Debian's Chromium, headless, driven by
 * playwright-core) against the real `vantage serve` tailing the transcript
 * fixtures: every page loads, a session opens to its timeline and transcript,
 * a search and a SQL query run, and a hook posted to the server shows up
 * live. Screenshots land in tests/output/ for a person to look at.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { browserMissing, launchBrowser, outputDir } from "../helpers/browser.ts";
import { seedPerception } from "../helpers/dashboard_seed.ts";
import { startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

const CLAUDE = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const PROJECT = "/home/fixture/project";
const missing = browserMissing();
if (missing !== undefined) console.log(`dashboard tests skipped: ${missing}`);

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test({
  name: "dashboard pages in Chromium against a real serve",
  ignore: missing !== undefined,
  async fn(t) {
    const home = await makeAgentHome();
    const server = await startServe(home);
    const out = await outputDir();
    const browser = await launchBrowser();
    const errors: string[] = [];
    const watch = (page: Page) => {
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        // Failed requests are judged below by their URL; the SQL step's refusal is expected.
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          errors.push(message.text());
        }
      });
      page.on("response", (response) => {
        if (response.status() >= 400 && !response.url().endsWith("/api/query")) {
          errors.push(`${response.status()} ${response.url()}`);
        }
      });
    };
    try {
      // The server tails the fixtures at start; then hooks and sensors add the rest.
      await waitFor(async () => {
        const { body } = await postJson(`${server.url}/api/ops/agent.list_sessions`, {
          since_min: 525_600,
        });
        return body.result?.count >= 3 ? true : undefined;
      }, "the fixtures to be ingested");
      for (
        const line of (await Deno.readTextFile(`${FIXTURES}claude_code/hooks.jsonl`)).trim().split(
          "\n",
        )
      ) {
        const posted = await postJson(`${server.url}/api/hooks`, JSON.parse(line), {
          "x-vantage-agent": "claude_code",
        });
        assert.equal(posted.status, 200);
      }
      seedPerception(`${home.dataHome}/vantage.db`, CLAUDE, PROJECT);
      const docs = await postJson(`${server.url}/api/ops/docs.add`, {
        content:
          "# Build notes\n\nRun `deno task test` before pushing. The hello.txt greeting lives here.\n",
        name: "notes/build.md",
        collection: "notes",
      });
      const hasDocs = docs.status === 200;

      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      watch(page);
      const shot = (name: string) => page.screenshot({ path: `${out}${name}.png`, fullPage: true });

      await t.step("overview shows counters, charts, builds and recent sessions", async () => {
        await page.goto(`${server.url}/#/?range=1y`);
        await page.waitForSelector(".kpi >> nth=6");
        await page.waitForSelector(".uplot >> nth=1");
        const kpis = await page.locator(".kpi").allInnerTexts();
        assert.ok(kpis.some((text) => /Active now\s+1/i.test(text)), kpis.join(" | "));
        // The seeded two, plus whatever the anomaly engine found in the replayed hooks.
        const open = kpis.map((text) => text.match(/Open anomalies\s+(\d+)/i)).find(Boolean);
        assert.ok(open && Number(open[1]) >= 2, kpis.join(" | "));
        assert.match(await page.locator("main").innerText(), /deno check main\.ts|check/);
        await shot("overview");
      });

      await t.step("a new hook event appears live", async () => {
        await page.waitForSelector("#live.live");
        const payload = JSON.parse(
          (await Deno.readTextFile(`${FIXTURES}claude_code/hooks.jsonl`)).split("\n")[3],
        );
        payload.session_id = "livehook-2b7c-4d1e";
        const posted = await postJson(`${server.url}/api/hooks`, payload, {
          "x-vantage-agent": "claude_code",
        });
        assert.equal(posted.status, 200);
        await page.waitForSelector(".feed-item:has-text('livehook')");
        await shot("overview-live");
      });

      await t.step("sessions list → session timeline → transcript → tokens", async () => {
        await page.click("nav.nav a[data-nav=sessions]");
        await page.waitForSelector(".sessions-table tr.session-row >> nth=2");
        await page.selectOption("#range", "1y");
        await page.waitForSelector(`a[href="#/session/${CLAUDE}"]`);
        await shot("sessions");
        await page.click(`a[href="#/session/${CLAUDE}"]`);
        await page.waitForSelector(".tl-item >> nth=5");
        assert.ok(await page.locator(".tl-item.failed").count() >= 1);
        assert.ok(await page.locator(".tl-item.kind-anomaly").count() >= 2);
        assert.ok(await page.locator(".tl-item.kind-build").count() >= 1);
        await page.waitForSelector(".lanes .uplot");
        await shot("session-timeline");
        await page.click("#tab-transcript");
        await page.waitForSelector(".msg >> nth=9");
        assert.match(await page.locator(".transcript").innerText(), /missing-dir/);
        await shot("session-transcript");
        await page.click("#tab-tokens");
        await page.waitForSelector(".uplot >> nth=1");
        await shot("session-tokens");
      });

      await t.step("anomalies feed with evidence, suggestions and facets", async () => {
        await page.goto(`${server.url}/#/anomalies?range=1y`);
        await page.waitForSelector(".anomaly >> nth=1");
        assert.match(await page.locator(".anomaly").first().innerText(), /Suggestion/);
        await page.click(".chip:has-text('repeated_command_failure')");
        // Polled from here, not with a predicate evaluated in the page: the dashboard's CSP
        // forbids eval, which Playwright's string predicates need.
        const deadline = Date.now() + 10_000;
        for (;;) {
          const kinds = await page.locator(".anomaly-kind").allInnerTexts();
          if (kinds.length > 0 && kinds.every((kind) => kind === "repeated_command_failure")) break;
          assert.ok(Date.now() < deadline, `still listed after filtering: ${kinds.join(", ")}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await shot("anomalies");
      });

      await t.step("search finds sessions and highlights the match", async () => {
        await page.goto(`${server.url}/#/search?range=1y`);
        await page.fill("#q", "missing-dir");
        await page.press("#q", "Enter");
        await page.waitForSelector(".hit mark");
        assert.match(await page.locator(".hit mark").first().innerText(), /missing/i);
        await shot("search");
        if (hasDocs) {
          await page.click("nav.tabs a:has-text('Documents')");
          await page.waitForSelector(".results .hit, .results .empty");
          await shot("search-documents");
        }
      });

      await t.step("documents browse and view (when the docs cassette is there)", async () => {
        if (!hasDocs) return;
        await page.goto(`${server.url}/#/documents`);
        await page.waitForSelector("text=notes");
        await shot("documents");
        const link = page.locator("a[href*='#/documents?doc=']").first();
        if (await link.count() > 0) {
          await link.click();
          await page.waitForSelector(".doc-text, .error-box, .empty");
          await shot("document");
        }
      });

      await t.step("operations: schema form runs an operation", async () => {
        await page.goto(`${server.url}/#/operations?op=agent.list_sessions`);
        await page.fill("#arg-since_min", "525600");
        await page.fill("#arg-limit", "3");
        await page.click(".op-form button[type=submit]");
        await page.waitForSelector(".op-output .json");
        assert.match(
          await page.locator(".op-output").innerText(),
          /HTTP 200[\s\S]*agent\.list_sessions/,
        );
        await shot("operations");
      });

      await t.step("SQL console runs a SELECT and shows SQLite's refusal of a write", async () => {
        await page.goto(`${server.url}/#/sql`);
        await page.fill(
          "#sql",
          "SELECT agent, count(*) AS sessions FROM sessions GROUP BY agent ORDER BY agent",
        );
        await page.click("button:has-text('Run query')");
        await page.waitForSelector(".sql-output tbody tr >> nth=1");
        assert.match(await page.locator(".sql-output").innerText(), /claude_code/);
        await shot("sql");
        await page.fill("#sql", "DELETE FROM sessions");
        await page.click("button:has-text('Run query')");
        await page.waitForSelector(".sql-output .error-box");
      });

      await t.step("keyboard: the first Tab reaches the skip link", async () => {
        await page.goto(`${server.url}/#/`);
        await page.reload();
        await page.waitForSelector(".kpi");
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate("document.activeElement?.textContent"), "Skip to content");
      });

      await t.step("phone width", async () => {
        const phone = await browser.newPage({
          viewport: { width: 390, height: 844 },
          isMobile: true,
        });
        watch(phone);
        await phone.goto(`${server.url}/#/?range=1y`);
        await phone.waitForSelector(".uplot >> nth=1");
        await phone.screenshot({ path: `${out}overview-phone.png`, fullPage: true });
        await phone.goto(`${server.url}/#/session/${CLAUDE}`);
        await phone.waitForSelector(".tl-item >> nth=3");
        await phone.screenshot({ path: `${out}session-phone.png`, fullPage: true });
        const overflow = await phone.evaluate(
          "document.documentElement.scrollWidth > innerWidth + 1",
        );
        assert.equal(overflow, false, "the page scrolls sideways at phone width");
        await phone.close();
      });

      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
