/** An in-process document store for tests: a fresh data home and the real catalog. */
import { resolvePaths } from "../../src/core/config.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation, type ExecuteResponse } from "../../src/ops/executor.ts";
import { DATABASE, ROOTS, vantageServices } from "../../src/ops/runtime.ts";
import { tmpdir } from "node:os";
import type { DatabaseSync } from "../../src/store/database.ts";

/** A test store. */
export interface DocsHarness {
  home: string;
  db: DatabaseSync;
  /** Runs an operation; returns its result or throws with the failure's message. */
  run(
    operationId: string,
    args: Record<string, unknown>,
    scopes?: string[],
  ): Promise<Record<string, unknown>>;
  /** Runs an operation and returns the whole response. */
  call(
    operationId: string,
    args: Record<string, unknown>,
    scopes?: string[],
  ): Promise<ExecuteResponse>;
  close(): Promise<void>;
}

const ALL = ["dex:read", "docs:read", "docs:write", "session:write", "net"];

/** Opens a fresh store in a temporary data home. */
export async function openHarness(): Promise<DocsHarness> {
  const home = await Deno.makeTempDir({ prefix: "vantage-docs-" });
  // Files may be written (restore, export) anywhere below the temporary folder, as a user who
  // opened it with VANTAGE_ROOTS would; the data home inside it stays refused.
  const services = vantageServices(resolvePaths(home)).provide(ROOTS, () => [tmpdir()]);
  const catalog = builtinCatalog();
  const call = (operationId: string, args: Record<string, unknown>, scopes = ALL) =>
    executeOperation(catalog, operationId, args, { scopes }, { services });
  return {
    home,
    db: services.get(DATABASE),
    call,
    async run(operationId, args, scopes) {
      const response = await call(operationId, args, scopes);
      if ("result" in response) return response.result as Record<string, unknown>;
      throw new Error(JSON.stringify(response));
    },
    async close() {
      services.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** Writes a tree of files (path → text or bytes) below `root`. */
export async function writeTree(
  root: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
}

/** Deterministic pseudo-random bytes. */
export function randomBytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

/** Every file below `root` (relative path → bytes). */
export async function readTree(root: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, rel);
      else if (entry.isFile) out.set(rel, await Deno.readFile(`${dir}/${entry.name}`));
    }
  };
  await walk(root, "");
  return out;
}
