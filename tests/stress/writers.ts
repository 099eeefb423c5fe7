/**
 * The writers of the multi-process stress tests and the checks run after
 * them. Every writer records what it was told was stored (a hash it was
 * given back, a hook that was answered or spooled) in a ledger; the checks
 * then demand every confirmed write and a sound store.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { catchUpDocsIndex } from "../../src/docs/doc_index.ts";
import { readContent } from "../../src/docs/content_store.ts";
import { openDatabase } from "../../src/store/database.ts";
import { closeDocsIndex, docsIndex } from "../../src/store/docs/search_index.ts";
import type { AgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import type { McpProcess } from "../helpers/mcp_process.ts";
import { runHook } from "../helpers/serve_process.ts";

/** What the writers were told was stored. */
export class Ledger {
  /** Document bytes by their SHA-256, for every add that answered with that hash. */
  docs = new Map<string, Uint8Array>();
  /** Session ids of hooks answered 200 or whose hook process exited 0 (stored or spooled). */
  hookSessions = new Set<string>();
  /** Writes that failed in a way no kill explains. */
  errors: string[] = [];
  /** Writes attempted, by writer kind. */
  attempts: Record<string, number> = {};

  count(kind: string): void {
    this.attempts[kind] = (this.attempts[kind] ?? 0) + 1;
  }
}

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

let counter = 0;

/**
 * A unique document text; every other one large and random enough that its
 * chunks compress to more than the pack threshold (hex of random bytes
 * compresses to about half).
 */
export function uniqueContent(tag: string): string {
  const n = ++counter;
  const head = `# ${tag} ${n}\n\nstressword${tag.replace(/\W/g, "")}x${n} ${crypto.randomUUID()}\n`;
  if (n % 2 === 0) return head;
  const noise = crypto.getRandomValues(new Uint8Array(9_000 + Math.floor(Math.random() * 9_000)));
  return head + Array.from(noise, (b) => b.toString(16).padStart(2, "0")).join("") + "\n";
}

/** Writes a fresh folder of three files (one a pack-sized binary) for a folder add. */
export async function freshFolder(root: string, tag: string): Promise<Map<string, Uint8Array>> {
  const folder = join(root, `${tag}-${++counter}-${crypto.randomUUID().slice(0, 8)}`);
  await Deno.mkdir(folder, { recursive: true });
  const files = new Map<string, Uint8Array>();
  const encoder = new TextEncoder();
  files.set(join(folder, "a.md"), encoder.encode(uniqueContent(`${tag}-a`)));
  files.set(join(folder, "b.txt"), encoder.encode(uniqueContent(`${tag}-b`)));
  files.set(
    join(folder, "c.bin"),
    crypto.getRandomValues(new Uint8Array(20_000 + Math.floor(Math.random() * 30_000))),
  );
  for (const [path, bytes] of files) await Deno.writeFile(path, bytes);
  return files;
}

type Json = Record<string, unknown>;

/** Records the documents an add reported, when their hashes are what was sent. */
function confirmAdd(
  ledger: Ledger,
  kind: string,
  report: Json,
  sent: Map<string, Uint8Array>,
): void {
  const documents = (report.documents ?? []) as Array<{ hash: string; path: string }>;
  const byHash = new Map([...sent.values()].map((bytes) => [sha256(bytes), bytes]));
  let confirmed = 0;
  for (const doc of documents) {
    const bytes = byHash.get(doc.hash);
    if (bytes === undefined) continue;
    ledger.docs.set(doc.hash, bytes);
    confirmed++;
  }
  if (confirmed !== sent.size) {
    ledger.errors.push(
      `${kind}: an add of ${sent.size} documents answered with ${confirmed} of their hashes: ${
        JSON.stringify(report).slice(0, 300)
      }`,
    );
  }
}

/** One inline add over HTTP. Throws when the server could not be reached (it may be dead). */
export async function httpAdd(url: string, ledger: Ledger): Promise<void> {
  ledger.count("http_add");
  const content = uniqueContent("http");
  const response = await fetch(`${url}/api/ops/docs.add`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content, name: `http-${crypto.randomUUID()}.md` }),
  });
  const body = await response.json() as Json;
  if (response.status !== 200) {
    ledger.errors.push(`http add answered ${response.status}: ${JSON.stringify(body)}`);
    return;
  }
  const bytes = new TextEncoder().encode(content);
  confirmAdd(ledger, "http", body.result as Json, new Map([["inline", bytes]]));
}

function hookPayload(session: string, i: number): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `echo ${i}` },
    tool_response: { stdout: `${i}\n`, exitCode: 0 },
    cwd: "/work/stress",
  });
}

/** One hook posted over HTTP as `vantage hook` would. */
export async function httpHook(url: string, ledger: Ledger): Promise<void> {
  ledger.count("http_hook");
  const session = `stress-http-${crypto.randomUUID()}`;
  const response = await fetch(`${url}/api/hooks?agent=claude_code`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-vantage-delivery": crypto.randomUUID() },
    body: hookPayload(session, counter++),
  });
  const body = await response.json() as Json;
  if (response.status !== 200) {
    ledger.errors.push(`hook answered ${response.status}: ${JSON.stringify(body)}`);
    return;
  }
  ledger.hookSessions.add(session);
}

/** One real `vantage hook` process: exit 0 means stored, or spooled for the server to replay. */
export async function cliHook(home: AgentHome, url: string, ledger: Ledger): Promise<void> {
  ledger.count("cli_hook");
  const session = `stress-cli-${crypto.randomUUID()}`;
  const run = await runHook(home, "claude_code", hookPayload(session, counter++), {
    VANTAGE_URL: url,
    VANTAGE_AUTOSTART: "0",
  });
  if (run.code !== 0) {
    ledger.errors.push(`vantage hook exited ${run.code}: ${run.stderr.slice(0, 300)}`);
    return;
  }
  ledger.hookSessions.add(session);
}

/** One add through an `mcp-serve` process: inline, or every third time a fresh folder. */
export async function mcpAdd(
  mcp: McpProcess,
  root: string,
  ledger: Ledger,
): Promise<void> {
  ledger.count("mcp_add");
  if (counter % 3 === 0) {
    const files = await freshFolder(root, "mcp");
    const folder = [...files.keys()][0].replace(/\/[^/]+$/, "");
    const report = await mcp.callTool("docs_add", { path: folder });
    confirmAdd(ledger, "mcp folder", report, files);
    return;
  }
  const content = uniqueContent("mcp");
  const report = await mcp.callTool("docs_add", {
    content,
    name: `mcp-${crypto.randomUUID()}.md`,
  });
  confirmAdd(ledger, "mcp", report, new Map([["inline", new TextEncoder().encode(content)]]));
}

/** The permission flags of the CLI on `home`. */
function cliFlags(home: AgentHome, roots: string[]): string[] {
  return permissionFlags("cli", { ...resolvePaths(home.dataHome), userHome: home.home }, roots);
}

/**
 * Starts one `vantage call docs.add` (a fresh folder every other time) and
 * returns its process, so a test can kill it; the promise settles once it
 * exited and its output was checked.
 */
export function cliAdd(
  home: AgentHome,
  root: string,
  ledger: Ledger,
): { child: Promise<Deno.ChildProcess>; done: Promise<void> } {
  ledger.count("cli_add");
  let started: (child: Deno.ChildProcess) => void = () => {};
  const child = new Promise<Deno.ChildProcess>((resolve) => started = resolve);
  const done = (async () => {
    let sent: Map<string, Uint8Array>;
    let args: Json;
    if (counter % 2 === 0) {
      sent = await freshFolder(root, "cli");
      args = { path: [...sent.keys()][0].replace(/\/[^/]+$/, "") };
    } else {
      const content = uniqueContent("cli");
      sent = new Map([["inline", new TextEncoder().encode(content)]]);
      args = { content, name: `cli-${crypto.randomUUID()}.md` };
    }
    const process = new Deno.Command(Deno.execPath(), {
      args: ["run", ...cliFlags(home, [root]), MAIN_PATH, "call", "docs.add", JSON.stringify(args)],
      env: { ...home.env, VANTAGE_ROOTS: root },
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).spawn();
    started(process);
    const output = await process.output();
    if (output.signal === "SIGKILL") return;
    const decoder = new TextDecoder();
    if (output.code !== 0) {
      ledger.errors.push(
        `vantage call docs.add exited ${output.code}: ${
          decoder.decode(output.stderr).slice(0, 400)
        }`,
      );
      return;
    }
    confirmAdd(ledger, "cli", JSON.parse(decoder.decode(output.stdout)), sent);
  })();
  return { child, done };
}

const MAIN_PATH = new URL("../../main.ts", import.meta.url).pathname;

/** Runs the plain CLI once (for checks that go through the real command). */
export function vantage(home: AgentHome, args: string[], roots: string[] = []) {
  return runVantage(args, { env: home.env, flags: cliFlags(home, roots) });
}

/** The findings of {@linkcode checkStore}. */
export interface StoreCheck {
  /** Everything wrong; empty when the store is sound and every confirmed write is there. */
  problems: string[];
  /** Database files checked. */
  files: string[];
  /** Documents in the store. */
  documents: number;
  /** Chunks whose bytes are in pack files. */
  packedChunks: number;
  /** Events stored. */
  events: number;
}

/**
 * Checks a data home once every writer has stopped: `quick_check` on every
 * database file, every confirmed document present and read back byte for
 * byte (through its pack when it has one), every pack row inside its file,
 * the search index complete once queued changes are applied, and every
 * confirmed hook stored exactly once.
 */
export function checkStore(dataHome: string, ledger: Ledger): StoreCheck {
  const problems: string[] = [];
  const files = [...Deno.readDirSync(dataHome)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".db"))
    .map((entry) => join(dataHome, entry.name)).sort();
  for (const file of files) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare("PRAGMA quick_check").all() as Array<{ quick_check: string }>;
      const verdict = rows.map((row) => row.quick_check).join("; ");
      if (verdict !== "ok") problems.push(`quick_check of ${file}: ${verdict}`);
    } catch (error) {
      problems.push(`quick_check of ${file} failed: ${error}`);
    } finally {
      db.close();
    }
  }
  const db = openDatabase(resolvePaths(dataHome).database);
  try {
    const documentOf = db.prepare("SELECT id, path FROM docs_documents WHERE hash = ? LIMIT 1");
    for (const [hash, bytes] of ledger.docs) {
      const row = documentOf.get(hash) as { id: number; path: string } | undefined;
      if (row === undefined) {
        problems.push(`confirmed document ${hash} is missing`);
        continue;
      }
      try {
        const stored = readContent(db, hash, { id: row.id, path: row.path });
        if (sha256(stored) !== sha256(bytes)) {
          problems.push(`document ${row.path} reads back wrong`);
        }
      } catch (error) {
        problems.push(`document ${row.path} cannot be read: ${error}`);
      }
    }
    const packs = db.prepare(
      "SELECT pack, max(pack_offset + stored_size) AS end, count(*) AS n FROM docs_chunks WHERE pack IS NOT NULL GROUP BY pack",
    ).all() as Array<{ pack: number; end: number; n: number }>;
    let packedChunks = 0;
    for (const { pack, end, n } of packs) {
      packedChunks += n;
      const path = join(dataHome, "docs-packs", `pack-${pack}.vpk`);
      let size = -1;
      try {
        size = Deno.statSync(path).size;
      } catch {
        // Reported below.
      }
      if (size < end) problems.push(`pack ${path} holds ${size} bytes; its rows reach ${end}`);
    }
    // Changes a killed writer left queued are applied by whoever searches next; do it now.
    catchUpDocsIndex(db, 0);
    const queued = (db.prepare("SELECT count(*) AS n FROM docs_index_queue").get() as { n: number })
      .n;
    if (queued !== 0) problems.push(`${queued} index changes still queued after a catch-up`);
    const indexable = (db.prepare(
      "SELECT count(*) AS n FROM docs_documents WHERE is_latest = 1 AND is_text = 1",
    ).get() as { n: number }).n;
    const indexed = (docsIndex(db).prepare("SELECT count(*) AS n FROM docs_fts").get() as {
      n: number;
    }).n;
    if (indexed !== indexable) {
      problems.push(`the search index holds ${indexed} documents of ${indexable}`);
    }
    const hooksOf = db.prepare("SELECT count(*) AS n FROM events WHERE session_id = ?");
    for (const session of ledger.hookSessions) {
      const n = (hooksOf.get(session) as { n: number }).n;
      if (n !== 1) problems.push(`confirmed hook of session ${session} stored ${n} times`);
    }
    const documents = (db.prepare("SELECT count(*) AS n FROM docs_documents").get() as {
      n: number;
    }).n;
    const events = (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n;
    return { problems, files, documents, packedChunks, events };
  } finally {
    closeDocsIndex(db);
    db.close();
  }
}
