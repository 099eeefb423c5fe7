/**
 * The Sessions page and a session's page in headless Chromium (Debian's, driven by
 * playwright-core) against the real `vantage serve` tailing the transcript fixtures: Claude
 * Code sub-agents are rows under their parent that open and close, never top-level rows of
 * their own; a parent's page lists its sub-agents and shows their runs, its compaction and its
 * API errors on the timeline; a sub-agent's page names its parent.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { browserMissing, launchBrowser, outputDir } from "../helpers/browser.ts";
import { startServe } from "../helpers/serve_process.ts";

const WEBAPP = "5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71";
const missing = browserMissing();
if (missing !== undefined) console.log(`sub-agent browser tests skipped: ${missing}`);

const href = (id: string) => `#/session/${encodeURIComponent(id)}`;

/** Polls from Deno: the dashboard's CSP forbids the eval Playwright's page predicates need. */
async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test({
  name: "Sessions page: sub-agents open under their parent, and no empty top-level rows",
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
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("response", (response) => {
        if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
      });
    };
    try {
      await until(
        async () => {
          const response = await fetch(`${server.url}/api/ops/agent.list_sessions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ since_min: 525_600 }),
          });
          const body = await response.json();
          return body.result?.sessions?.find((s: { session_id: string }) => s.session_id === WEBAPP)
            ?.subagent_count ?? 0;
        },
        (n) => n === 3,
        "the fixtures to be ingested",
      );

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      watch(page);

      await t.step("one row per session; the sub-agents wait behind a toggle", async () => {
        await page.goto(`${server.url}/#/sessions?range=1y`);
        await page.waitForSelector(`.session-row a[href="${href(WEBAPP)}"]`);
        const rows = page.locator("tr.session-row");
        assert.equal(await rows.count(), 5);
        const links = await page.locator("tr.session-row a.session-link").evaluateAll((as) =>
          as.map((a) => a.getAttribute("href") ?? "")
        );
        assert.ok(links.every((h) => !h.includes("%2Fagent-")), links.join(" "));
        // Every top-level row has something in it (the old empty sub-agent rows are gone).
        const messages = await page.locator("tr.session-row td:nth-child(6)").allInnerTexts();
        assert.ok(
          messages.every((text) => text.trim() !== "0" && text.trim() !== ""),
          messages.join(),
        );
        assert.match(
          await page.locator(".page-head p").innerText(),
          /with 4 sub-agent runs.*counts include sub-agents/,
        );

        const group = page.locator(`tbody.session-group:has(a[href="${href(WEBAPP)}"])`);
        const toggle = group.locator("button.subagent-toggle");
        assert.equal((await toggle.innerText()).trim(), "▸ 3 sub-agents");
        assert.equal(await toggle.getAttribute("aria-expanded"), "false");
        assert.equal(await group.locator("tr.subagent-row").count(), 3);
        assert.equal(await group.locator("tr.subagent-row:visible").count(), 0);
        // The parent's totals include its sub-agents (36 messages, 20 of them its own).
        assert.equal(
          (await group.locator("tr.session-row td:nth-child(6)").innerText()).trim(),
          "36",
        );
        assert.equal(
          await group.locator("tr.session-row td:nth-child(6) span").getAttribute("title"),
          "own: 20; the rest is its sub-agents'",
        );
      });

      await t.step("opening the row shows each sub-agent's type, task and own counts", async () => {
        const group = page.locator(`tbody.session-group:has(a[href="${href(WEBAPP)}"])`);
        await group.locator("button.subagent-toggle").click();
        await until(
          () => group.locator("tr.subagent-row:visible").count(),
          (n) => n === 3,
          "the sub-agent rows to show",
        );
        assert.equal(
          await group.locator("button.subagent-toggle").getAttribute("aria-expanded"),
          "true",
        );
        const rows = [];
        for (let i = 0; i < 3; i++) {
          const texts = await group.locator("tr.subagent-row").nth(i).locator("td").allInnerTexts();
          rows.push(texts.map((text) => text.replace(/\s+/g, " ").trim()));
        }
        assert.deepEqual(rows.map((cells) => [cells[1], cells[5], cells[6]]), [
          ["Explore Find the login test claude-haiku-4-5-20251001", "7", "2"],
          ["general-purpose Check the auth config claude-opus-4-6", "6", "2"],
          ["compact Sub-agent acompact-5e91b2 claude-opus-4-6", "3", "0"],
        ]);
        await page.screenshot({ path: `${out}sessions-subagents.png`, fullPage: true });
        // Closed again, they hide.
        await group.locator("button.subagent-toggle").click();
        await until(
          () => group.locator("tr.subagent-row:visible").count(),
          (n) => n === 0,
          "the sub-agent rows to hide",
        );
        await group.locator("button.subagent-toggle").click();
      });

      await t.step("a sub-agent's page names its parent", async () => {
        await page.click(`tr.subagent-row a[href="${href(`${WEBAPP}/agent-a1f0c3e`)}"]`);
        await page.waitForSelector(".subagent-of");
        assert.match(
          await page.locator(".subagent-of").innerText(),
          /Sub-agent run of Fix the failing login test/,
        );
        assert.equal(await page.locator(".head-badges .subagent-type").innerText(), "Explore");
        await page.waitForSelector(".tl-item.kind-tool >> nth=1");
        assert.equal(await page.locator(".tl-item.kind-tool").count(), 2);
        await page.screenshot({ path: `${out}session-subagent.png`, fullPage: true });
      });

      await t.step("the parent's page lists its sub-agents and shows their runs", async () => {
        await page.click(`.crumbs a[href="${href(WEBAPP)}"]`);
        await page.waitForSelector(".subagents-table tbody tr >> nth=2");
        assert.equal(await page.locator(".subagents-table tbody tr").count(), 3);
        await page.waitForSelector(".tl-item.kind-sidechain >> nth=2");
        const runs = await page.locator(".tl-item.kind-sidechain .tl-label a").allInnerTexts();
        assert.deepEqual(runs, [
          "Sub-agent Explore: Find the login test",
          "Sub-agent general-purpose: Check the auth config",
          "Sub-agent compact",
        ]);
        assert.equal(await page.locator(".tl-item.kind-compaction").count(), 1);
        assert.equal(await page.locator(".tl-item.kind-api_error.failed").count(), 2);
        assert.match(
          await page.locator(".facts").innerText(),
          /Messages\s+36 \(20 own\)\s+Tool calls\s+9 \(5 own\)[\s\S]*Sub-agents\s+3/i,
        );
        await page.screenshot({ path: `${out}session-parent-subagents.png`, fullPage: true });
      });

      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
