/**
 * The agent-experience benchmark: ten questions agents really ask, each
 * asked in a session of its own (a fresh `vantage mcp-serve` over stdio, as
 * every agent session starts one) on each MCP surface, against a seeded
 * store. It counts what the model receives — the tool definitions clients
 * send it (name, description, input schema) and every tool result as
 * clients forward it (the structured payload when there is one, else the
 * text) — and the round trips (tool calls). Tokens are characters / 4, as
 * every Vantage benchmark counts them. Each script checks it got its answer.
 *
 * Goals printed beside the figures: `dex` at most 40% of `full`'s tokens,
 * and no task over 3 round trips on `dex`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { connectStdio } from "../../tests/helpers/mcp_stdio.ts";
import { seedAxStore, SEEDED } from "./ax_seed.ts";
import { printTable } from "./stats.ts";

type Surface = "dex" | "composite" | "full";
type Body = Record<string, unknown>;

/** One task session's account. */
interface Tally {
  definitions: number;
  results: number;
  wire: number;
  roundTrips: number;
  /** Operations the dex search did not put among its hits. */
  misses: string[];
}

/** An agent session on one surface: calls tools and keeps the account. */
class AgentSession {
  readonly tally: Tally = { definitions: 0, results: 0, wire: 0, roundTrips: 0, misses: [] };
  constructor(readonly client: Client) {}

  async listTools(): Promise<void> {
    const { tools } = await this.client.listTools();
    const sent = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
    this.tally.definitions += JSON.stringify(sent).length;
    this.tally.wire += JSON.stringify(tools).length;
  }

  /** Calls a tool; answers what the model would read, parsed. */
  async call(name: string, args: Body): Promise<Body> {
    const result = await this.client.callTool({ name, arguments: args });
    this.tally.roundTrips++;
    this.tally.wire += JSON.stringify(result).length;
    const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
    // Claude Code, Codex and Copilot CLI forward the structured payload when there is one
    // (Claude Code the text of a failure); other clients the text.
    const structured = result.structuredContent as Body | undefined;
    const seen = structured !== undefined && result.isError !== true
      ? JSON.stringify(structured)
      : text;
    this.tally.results += seen.length;
    if (result.isError === true) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
    return structured ?? JSON.parse(text);
  }

  /** The dex discovery step: search in words, and find `operationId` among the hits. */
  async find(query: string, operationId: string): Promise<void> {
    const found = await this.call("search", { query });
    const hits = (found.results as Array<{ operation_id: string }>).map((h) => h.operation_id);
    if (hits.includes(operationId)) return;
    // Not among the hits: an agent would list everything it may run, and read it.
    this.tally.misses.push(operationId);
    await this.call("execute", { operation_id: "dex.describe", arguments: {} });
  }

  /** Runs one operation on the dex surface and answers its result. */
  async execute(operationId: string, args: Body): Promise<Body> {
    const body = await this.call("execute", { operation_id: operationId, arguments: args });
    return body.result as Body;
  }
}

type Script = (agent: AgentSession) => Promise<void>;

/** One question, scripted per surface (absent where the surface cannot answer it). */
interface Task {
  ask: string;
  scripts: Partial<Record<Surface, Script>>;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`the answer lacks ${what}`);
}

const NOTE = "Deploy note: staging runs scripts/deploy.sh (blue-green); rotate the API token " +
  "before Friday's release.";

function checkBuild(status: Body): void {
  expect(status.status === "failing", "the failing build");
  expect((status.last_error as Body | undefined)?.file === "src/config.ts", "where it failed");
}

/** The first session found that is not the caller's own. */
function earlierSession(found: Body): string {
  const ids = (found.sessions as Array<{ session_id: string }>).map((s) => s.session_id);
  const other = ids.find((id) => id !== SEEDED.mine);
  expect(other !== undefined, "an earlier session");
  return other!;
}

function checkFix(transcript: Body): void {
  const texts = (transcript.messages as Array<{ text: string }>).map((m) => m.text).join("\n");
  expect(texts.includes("Number("), "how the error was fixed");
}

function checkChanges(changes: Body): void {
  const paths = (changes.changes as Array<{ path: string }>).map((c) => c.path);
  expect(paths.some((p) => p.endsWith("deno.json")), "the file changed outside the session");
}

function checkPeers(peers: Body): void {
  const agents = (peers.sessions as Array<{ agent_source: string }>).map((s) => s.agent_source);
  expect(agents.includes("codex"), "the Codex session");
}

function checkNoteFound(found: Body): void {
  expect(JSON.stringify(found.results ?? found).includes("deploy-note"), "the stored note");
}

function checkAnomalies(found: Body): void {
  expect((found.count as number) > 0, "the repeated failure");
}

function checkProject(state: Body): void {
  expect(JSON.stringify(state).includes("deno task test"), "the test command");
}

function checkCost(usage: Body): void {
  expect(((usage.totals as Body).cost_usd as number) > 0, "the cost");
}

function checkSession(state: Body): void {
  expect(state.session_id === SEEDED.mine, "the caller's session");
  expect((state.tool_failures as number) >= 3, "its failed test runs");
}

const ERROR_WORDS = "not assignable to type number";

const TASKS: Task[] = [
  {
    ask: "What failed in the last build, and where?",
    scripts: {
      dex: async (a) => {
        await a.find("what failed in the last build and where", "agent.get_build_status");
        checkBuild(await a.execute("agent.get_build_status", {}));
      },
      full: async (a) => checkBuild(await a.call("get_build_status", {})),
    },
  },
  {
    ask: "How did we fix this error before?",
    scripts: {
      dex: async (a) => {
        await a.find("how did we fix this error before", "agent.search_sessions");
        const found = await a.execute("agent.search_sessions", { query: ERROR_WORDS, limit: 3 });
        // The hit says which result field get_session_transcript takes; the agent skips its own
        // session (the newest, where the error shows again) by what its snippet says.
        checkFix(
          await a.execute("agent.get_session_transcript", {
            session_id: earlierSession(found),
            message_limit: 10,
          }),
        );
      },
      full: async (a) => {
        const found = await a.call("search_sessions", { query: ERROR_WORDS, limit: 3 });
        checkFix(
          await a.call("get_session_transcript", {
            session_id: earlierSession(found),
            message_limit: 10,
          }),
        );
      },
    },
  },
  {
    ask: "What changed outside my session?",
    scripts: {
      dex: async (a) => {
        await a.find("what changed outside my session", "agent.get_external_changes");
        checkChanges(await a.execute("agent.get_external_changes", { since_min: 60 }));
      },
      full: async (a) => checkChanges(await a.call("get_external_changes", { since_min: 60 })),
    },
  },
  {
    ask: "What are the other agents doing here?",
    scripts: {
      dex: async (a) => {
        await a.find("what are other agents doing here", "agent.get_peer_sessions");
        checkPeers(await a.execute("agent.get_peer_sessions", {}));
      },
      full: async (a) => checkPeers(await a.call("get_peer_sessions", {})),
    },
  },
  {
    ask: "Store this note for later.",
    scripts: {
      dex: async (a) => {
        await a.find("store this note for later", "docs.add");
        await a.execute("docs.add", { content: NOTE, name: "deploy-note.md", tags: ["deploy"] });
      },
      composite: async (a) => {
        // The composite tools name their ops but not their parameters: describe first.
        await a.call("query", { steps: [{ op: "describe", params: { target: "add" } }] });
        await a.call("execute", {
          operations: [{ op: "add", params: { content: NOTE, name: "deploy-note.md" } }],
        });
      },
      full: async (a) => {
        await a.call("docs_add", { content: NOTE, name: "deploy-note.md", tags: ["deploy"] });
      },
    },
  },
  {
    ask: "Find the note I stored yesterday.",
    scripts: {
      dex: async (a) => {
        await a.find("find the note I stored", "docs.search");
        checkNoteFound(await a.execute("docs.search", { query: "staging deploy", limit: 3 }));
      },
      composite: async (a) => {
        await a.call("query", { steps: [{ op: "describe", params: { target: "search" } }] });
        checkNoteFound(
          await a.call("query", {
            steps: [{ op: "search", params: { query: "staging deploy", limit: 3 } }],
          }),
        );
      },
      full: async (a) => {
        checkNoteFound(await a.call("docs_search", { query: "staging deploy", limit: 3 }));
      },
    },
  },
  {
    ask: "Am I going in circles?",
    scripts: {
      dex: async (a) => {
        await a.find("am I going in circles", "agent.get_anomalies");
        checkAnomalies(await a.execute("agent.get_anomalies", {}));
      },
      full: async (a) => checkAnomalies(await a.call("get_anomalies", {})),
    },
  },
  {
    ask: "How do I build and test this project?",
    scripts: {
      dex: async (a) => {
        await a.find("how do I build and test this project", "agent.get_project_state");
        checkProject(await a.execute("agent.get_project_state", {}));
      },
      full: async (a) => checkProject(await a.call("get_project_state", {})),
    },
  },
  {
    ask: "How much did today cost?",
    scripts: {
      dex: async (a) => {
        await a.find("how much did today cost", "agent.usage_timeseries");
        checkCost(
          await a.execute("agent.usage_timeseries", { group_by: "model", bucket_min: 1440 }),
        );
      },
      full: async (a) => {
        checkCost(await a.call("agent_usage_timeseries", { group_by: "model", bucket_min: 1440 }));
      },
    },
  },
  {
    ask: "What did my session do so far?",
    scripts: {
      dex: async (a) => {
        await a.find("what did my session do so far", "agent.get_session_state");
        checkSession(await a.execute("agent.get_session_state", {}));
      },
      full: async (a) => checkSession(await a.call("get_session_state", {})),
    },
  },
];

const SURFACES: Surface[] = ["dex", "composite", "full"];

function tokens(chars: number): number {
  return Math.round(chars / 4);
}

/** Runs every task on every surface and prints the figures. */
export async function benchAx(): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "vantage-bench-ax-" });
  try {
    const dataHome = join(work, ".vantage");
    const project = await seedAxStore(work, dataHome);
    const tallies = new Map<Surface, Array<Tally | undefined>>();
    for (const surface of SURFACES) {
      const row: Array<Tally | undefined> = [];
      for (const task of TASKS) {
        const script = task.scripts[surface];
        if (script === undefined) {
          row.push(undefined);
          continue;
        }
        const session = await connectStdio(["--surface", surface], {
          home: dataHome,
          env: { VANTAGE_MCP_CALLER: "claude_code" },
          cwd: project,
        });
        try {
          const agent = new AgentSession(session.client);
          await agent.listTools();
          await script(agent);
          row.push(agent.tally);
        } catch (error) {
          throw new Error(`${surface}: '${task.ask}': ${(error as Error).message}`);
        } finally {
          await session.close();
        }
      }
      tallies.set(surface, row);
    }
    report(tallies);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

function cell(tally: Tally | undefined): string {
  if (tally === undefined) return "—";
  const miss = tally.misses.length > 0 ? " (search missed)" : "";
  return `${tally.roundTrips} / ${tokens(tally.definitions + tally.results)}${miss}`;
}

function report(tallies: Map<Surface, Array<Tally | undefined>>): void {
  console.log(
    "\nagent experience: ten tasks, each a fresh `vantage mcp-serve` over stdio on a seeded store",
  );
  console.log("cells: round trips / tokens the model receives (tool definitions + results)");
  printTable([
    ["task", ...SURFACES],
    ...TASKS.map((task, index) => [
      `${index + 1}. ${task.ask}`,
      ...SURFACES.map((surface) => cell(tallies.get(surface)![index])),
    ]),
  ]);
  const totals = new Map<Surface, { defs: number; results: number; wire: number; trips: number }>();
  const rows: string[][] = [[
    "surface",
    "tasks",
    "definitions",
    "results",
    "total tokens",
    "wire tokens",
    "round trips",
    "most per task",
  ]];
  for (const surface of SURFACES) {
    const done = tallies.get(surface)!.filter((t): t is Tally => t !== undefined);
    const sum = (pick: (t: Tally) => number) => done.reduce((n, t) => n + pick(t), 0);
    const total = {
      defs: sum((t) => t.definitions),
      results: sum((t) => t.results),
      wire: sum((t) => t.wire),
      trips: sum((t) => t.roundTrips),
    };
    totals.set(surface, total);
    rows.push([
      surface,
      `${done.length}/${TASKS.length}`,
      String(tokens(total.defs)),
      String(tokens(total.results)),
      String(tokens(total.defs + total.results)),
      String(tokens(total.wire)),
      String(total.trips),
      String(Math.max(...done.map((t) => t.roundTrips))),
    ]);
  }
  console.log("");
  printTable(rows);
  const dex = totals.get("dex")!;
  const full = totals.get("full")!;
  const share = (dex.defs + dex.results) / (full.defs + full.results);
  const most = Math.max(...tallies.get("dex")!.map((t) => t?.roundTrips ?? 0));
  const misses = tallies.get("dex")!.flatMap((t) => t?.misses ?? []);
  console.log(
    `goal: dex total ≤ 40% of full's — ${(share * 100).toFixed(0)}% ${
      share <= 0.4 ? "(met)" : "(NOT met)"
    }; no dex task over 3 round trips — most ${most} ${most <= 3 ? "(met)" : "(NOT met)"}`,
  );
  if (misses.length > 0) {
    console.log(`dex search did not rank among its hits: ${misses.join(", ")}`);
  }
  console.log(
    "composite answers only the document tasks (its tools hold the docs and session operations)",
  );
}
