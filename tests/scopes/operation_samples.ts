/**
 * One argument sample per built-in operation, keyed by operation id, and the
 * store they act on. Each sample names a real target (a stored document, a
 * session, a folder under the document root), so the call would do
 * something if the caller were allowed: a refusal then proves the scope
 * check stopped it, and the positive control proves the sample is valid.
 *
 * A new operation needs an entry here; the scope table test fails until it
 * has one.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { AgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";
import { indexedTo } from "../../src/store/agent/message_index.ts";
import { messageIndexPath } from "../../src/store/agent/schema.ts";
import { sha256Hex } from "../../src/docs/mod.ts";

/** What the samples point at: the document root and the seeded targets. */
export interface SampleContext {
  /** The document root (VANTAGE_ROOTS) the write operations write into. */
  root: string;
  /** An agent session with a transcript and hook events. */
  agentSession: string;
  /** A URL serving a small file on loopback. */
  downloadUrl: string;
}

/** How to call one operation, and what else it needs. */
export interface OperationSample {
  /** Arguments that act on the seeded store. */
  args(context: SampleContext): Record<string, unknown>;
  /**
   * Scopes this call needs besides the operation's declared ones, checked
   * inside the operation (exec_query opens a table only to the scope that
   * owns it): the operation stays listed, and running it is refused.
   */
  alsoNeeds?: readonly string[];
  /** It reaches the network, so a process without network permission cannot complete it. */
  network?: boolean;
}

/** The agent session of the Claude Code fixture: its transcript and its hook payloads. */
export const FIXTURE_SESSION = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";

/** A document another store pushes (`sync.push_documents`'s sample). */
const PUSHED_DOCUMENT = "# Pushed\n\nA note pushed from another store.\n";

/** Bytes the loopback download serves. */
export const DOWNLOAD_TEXT = "downloaded bytes for the scope table\n";

/** Every built-in operation's sample. */
export const OPERATION_SAMPLES: Readonly<Record<string, OperationSample>> = {
  "dex.describe": { args: () => ({ target: "docs.search" }) },
  "dex.list_cassettes": { args: () => ({}) },
  "agent.get_context_bundle": { args: (c) => ({ session_id: c.agentSession }) },
  "agent.get_session_state": { args: (c) => ({ session_id: c.agentSession }) },
  "agent.get_anomalies": { args: (c) => ({ session_id: c.agentSession }) },
  "agent.get_build_status": { args: () => ({}) },
  "agent.get_external_changes": { args: () => ({ since_min: 600 }) },
  "agent.get_project_state": { args: () => ({}) },
  "agent.get_peer_sessions": { args: () => ({ since_min: 100_000_000 }) },
  "agent.search_sessions": { args: () => ({ query: "hello" }) },
  "agent.get_session_transcript": { args: (c) => ({ session_id: c.agentSession }) },
  "agent.exec_query": {
    args: () => ({ sql: "SELECT CAST(substr(data, 1, 40) AS TEXT) FROM docs_chunks" }),
    alsoNeeds: ["docs:read"],
  },
  "agent.overview": { args: () => ({}) },
  "agent.list_sessions": { args: () => ({}) },
  "agent.usage_timeseries": { args: () => ({}) },
  "agent.session_timeline": { args: (c) => ({ session_id: c.agentSession }) },
  "agent.list_anomalies": { args: () => ({}) },
  "agent.latency": { args: () => ({}) },
  "agent.tool_performance": { args: () => ({}) },
  "agent.api_errors": { args: () => ({}) },
  "agent.cost_burn": { args: () => ({}) },
  "agent.traces": { args: () => ({}) },
  "agent.security": { args: () => ({}) },
  "docs.search": { args: () => ({ query: "wombats" }) },
  "docs.grep": { args: () => ({ pattern: "wombat" }) },
  "docs.list": { args: () => ({}) },
  "docs.get": { args: () => ({ name: "alpha.md", include_content: true }) },
  "docs.graph": { args: () => ({ name: "beta.ts" }) },
  "docs.status": { args: () => ({ detailed: true }) },
  "docs.list_collections": { args: () => ({}) },
  "docs.list_snapshots": { args: () => ({}) },
  "docs.suggest_context": { args: () => ({ query: "wombats" }) },
  "docs.semantic_dedupe": { args: () => ({}) },
  "docs.verify": { args: () => ({}) },
  "docs.add": { args: (c) => ({ path: `${c.root}/incoming/new.md`, tags: ["incoming"] }) },
  "docs.update": { args: () => ({ name: "alpha.md", tags: ["reviewed"] }) },
  "docs.delete": { args: () => ({ name: "delete-me.md" }) },
  "docs.restore": {
    args: (c) => ({ collection: "notes", output_directory: `${c.root}/restored` }),
  },
  // overwrite: dex runs each sample twice (one operation, then a one-step pipeline).
  "docs.export": {
    args: (c) => ({ name: "alpha.md", outputPath: `${c.root}/exported/alpha.md`, overwrite: true }),
  },
  "docs.download": {
    args: (c) => ({ url: c.downloadUrl, name: "downloaded.txt" }),
    network: true,
  },
  "docs.repair": { args: () => ({}) },
  "doc_session.start": { args: () => ({ name: "fresh" }) },
  "doc_session.stop": { args: () => ({ name: "to-stop" }) },
  "doc_session.pin": { args: () => ({ name: "beta.ts", session: "seeded" }) },
  "doc_session.unpin": { args: () => ({ name: "alpha.md", session: "seeded" }) },
  "doc_session.watch": { args: (c) => ({ path: `${c.root}/watched`, once: true }) },
  // replace: dex runs each sample twice, and the second add of a valid person rotates.
  "team.add_user": { args: () => ({ name: "new-person", replace: true }) },
  "team.revoke_user": { args: () => ({ name: "seeded-person" }) },
  "team.list_users": { args: () => ({}) },
  "sync.hello": { args: () => ({}) },
  "sync.push": {
    args: () => ({
      sessions: [{
        session_id: "sync-sample-session",
        agent: "claude_code",
        cwd: "/work/pushed",
        started_at: Date.UTC(2026, 0, 2),
        last_activity_at: Date.UTC(2026, 0, 2),
        is_subagent: false,
      }],
      messages: [{
        agent: "claude_code",
        session_id: "sync-sample-session",
        message_key: "pushed-1",
        ts: Date.UTC(2026, 0, 2),
        role: "user",
        message_type: "user",
        text: "a message pushed from another store",
      }],
    }),
  },
  "sync.push_documents": {
    args: () => ({
      documents: [{
        path: "/elsewhere/pushed.md",
        relative_path: "pushed.md",
        hash: sha256Hex(PUSHED_DOCUMENT),
        content_base64: new TextEncoder().encode(PUSHED_DOCUMENT).toBase64(),
        modified_at: Date.UTC(2026, 0, 2),
        tags: ["pushed"],
      }],
    }),
  },
};

/**
 * Lays out the document root: stored notes, one file not yet stored (for
 * `docs.add`) and a folder to watch.
 */
export async function writeRoot(root: string): Promise<void> {
  const files: Record<string, string> = {
    "notes/alpha.md": "# Alpha\n\nNotes about wombats and their burrows.\n",
    "notes/beta.ts": 'import { gamma } from "./gamma.ts";\nexport function beta() {\n' +
      "  return gamma() + 1;\n}\n",
    "notes/gamma.ts": "export function gamma() {\n  return 41;\n}\n",
    "notes/delete-me.md": "# Delete me\n\nA note the delete sample removes.\n",
    "incoming/new.md": "# New\n\nA note no one stored yet: docs.add's sample.\n",
    "watched/seen.md": "# Watched\n\nA note in the watched folder.\n",
  };
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/**
 * Fills a store with every kind of target the samples name, with every
 * scope: transcripts (`vantage ingest`), hook events posted to a real
 * `serve`, the notes collection, sessions `seeded` (current, with a pin) and
 * `to-stop`, and a team person `seeded-person`. The server is stopped before returning, so the store is at
 * rest.
 */
export async function seedStore(home: AgentHome, root: string): Promise<void> {
  const env = { ...home.env, VANTAGE_ROOTS: root };
  const ingest = await runVantage(["ingest"], { env });
  assert.equal(ingest.code, 0, ingest.stderr);
  const server = await startServe({ ...home, env }, ["--no-tail"], [root]);
  try {
    const call = async (id: string, args: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/api/ops/${id}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      const text = await response.text();
      assert.equal(response.status, 200, `seeding ${id}: ${text}`);
    };
    const hooks = (await Deno.readTextFile(`${FIXTURES}claude_code/hooks.jsonl`)).trim();
    for (const line of hooks.split("\n")) {
      const response = await fetch(`${server.url}/api/hooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-vantage-agent": "claude_code" },
        body: line,
      });
      assert.equal(response.status, 200, await response.text());
    }
    await call("doc_session.start", { name: "to-stop" });
    await call("doc_session.start", { name: "seeded" });
    await call("docs.add", { path: `${root}/notes`, collection: "notes", tags: ["seed"] });
    await call("docs.add", { content: "Inline wombat facts.", name: "inline/facts.md" });
    await call("doc_session.pin", { name: "alpha.md", session: "seeded" });
    await call("team.add_user", { name: "seeded-person" });
    await settled(home.dataHome);
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
  const db = new DatabaseSync(`${home.dataHome}/vantage.db`, { readOnly: true });
  try {
    const events = db.prepare("SELECT count(*) AS n FROM events WHERE session_id = ?")
      .get(FIXTURE_SESSION) as { n: number };
    assert.ok(events.n > 0, "the fixture session has hook events");
    const messages = db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = ?")
      .get(FIXTURE_SESSION) as { n: number };
    assert.ok(messages.n > 0, "the fixture session has a transcript");
  } finally {
    db.close();
  }
}

/**
 * Waits until the server has finished what it does in the background after
 * a write — indexing the new messages, applying queued document index
 * changes — so no later process finds work left over and writes it.
 */
async function settled(dataHome: string): Promise<void> {
  const store = `${dataHome}/vantage.db`;
  const pending = () => {
    const db = new DatabaseSync(store, { readOnly: true, timeout: 5000 });
    const index = new DatabaseSync(messageIndexPath(store), { readOnly: true, timeout: 5000 });
    try {
      const messages = db.prepare("SELECT coalesce(max(id), 0) AS id FROM messages").get() as {
        id: number;
      };
      const queued = db.prepare("SELECT count(*) AS n FROM docs_index_queue").get() as {
        n: number;
      };
      return { unindexedMessages: messages.id - indexedTo(index), queuedDocuments: queued.n };
    } finally {
      index.close();
      db.close();
    }
  };
  const deadline = Date.now() + 30_000;
  let state = pending();
  while (state.unindexedMessages > 0 || state.queuedDocuments > 0) {
    if (Date.now() > deadline) {
      throw new Error(`the server did not settle: ${JSON.stringify(state)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    state = pending();
  }
}
