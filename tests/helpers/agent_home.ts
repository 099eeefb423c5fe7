/**
 * A temporary user home holding the transcript fixtures where each agent
 * keeps them (~/.claude, ~/.codex, ~/.copilot, ~/.openclaw), plus a data home.
 */
import { copy } from "./copy_tree.ts";
import { FIXTURES } from "./transcript_fixtures.ts";

/** The fixture folder of each agent, and where it goes in a home. */
const LAYOUT: Record<string, string> = {
  claude_code: ".claude",
  codex: ".codex",
  copilot_cli: ".copilot",
  openclaw: ".openclaw",
};

/** A prepared home. */
export interface AgentHome {
  /** The user home (HOME). */
  home: string;
  /** The data home (VANTAGE_HOME). */
  dataHome: string;
  /** Environment for child processes. */
  env: Record<string, string>;
  /** Removes everything. */
  cleanup(): Promise<void>;
}

/** Creates a home with every agent's fixtures copied in (hooks.jsonl excluded). */
export async function makeAgentHome(options: { fixtures?: boolean } = {}): Promise<AgentHome> {
  const home = await Deno.makeTempDir({ prefix: "vantage-home-" });
  if (options.fixtures !== false) {
    for (const [agent, folder] of Object.entries(LAYOUT)) {
      await copy(`${FIXTURES}${agent}`, `${home}/${folder}`, (name) => name !== "hooks.jsonl");
    }
  }
  const dataHome = `${home}/.vantage`;
  return {
    home,
    dataHome,
    env: { ...Deno.env.toObject(), HOME: home, VANTAGE_HOME: dataHome, DENO_DIR: denoDir() },
    cleanup: () => Deno.remove(home, { recursive: true }).catch(() => {}),
  };
}

/** Deno's cache folder: a child with another HOME must keep using it rather than download again. */
export function denoDir(): string {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit !== undefined && explicit !== "") return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  return `${xdg !== undefined && xdg !== "" ? xdg : `${Deno.env.get("HOME")}/.cache`}/deno`;
}
