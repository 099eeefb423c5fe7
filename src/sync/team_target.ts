/**
 * Where a person's team server is and what they reach it with: its URL
 * (`--to`, else `VANTAGE_TEAM_URL`), their token (`VANTAGE_TEAM_TOKEN`, else
 * the file `team-token` in the data home, so it never has to be on a
 * command line where `ps` shows it) and the name of this machine
 * (`VANTAGE_HOSTNAME`, else the system's), which the server records with
 * what they send.
 *
 * @module
 */
import { joinPath, readEnv } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";

/** A team server and how to reach it. */
export interface TeamTarget {
  /** Its base URL, without a trailing slash. */
  url: string;
  /** The person's bearer token. */
  token: string;
  /** This machine's name, when it can be read. */
  host?: string;
}

/** The file in the data home a person's team token may be kept in. */
export const TEAM_TOKEN_FILE = "team-token";

/**
 * A team server's URL, checked: `given` (a flag) or `VANTAGE_TEAM_URL`.
 *
 * @example
 * ```ts
 * import { teamUrl } from "./team_target.ts";
 * teamUrl("https://team.example/"); // "https://team.example"
 * ```
 */
export function teamUrl(given: string | undefined, flag = "--to"): string {
  const text = given ?? readEnv("VANTAGE_TEAM_URL");
  if (text === undefined || text.trim() === "") {
    throw new VantageError(
      "invalid_arguments",
      `name the team server: ${flag} https://team-host, or set VANTAGE_TEAM_URL`,
    );
  }
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new VantageError("invalid_arguments", `${flag} '${text}' is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new VantageError(
      "invalid_arguments",
      `${flag} '${text}' must be an http:// or https:// URL`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * The person's token: `VANTAGE_TEAM_TOKEN`, else the data home's `team-token` file (its first
 * line); `invalid_arguments` saying where to put it when neither has one.
 */
export async function teamToken(home: string): Promise<string> {
  const fromEnv = readEnv("VANTAGE_TEAM_TOKEN")?.trim();
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const file = joinPath(home, TEAM_TOKEN_FILE);
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const token = text?.split("\n")[0].trim();
  if (token === undefined || token === "") {
    throw new VantageError(
      "invalid_arguments",
      `no team token: set VANTAGE_TEAM_TOKEN, or put the token 'vantage team add-user' printed on the team server in ${file} (readable by you alone)`,
    );
  }
  return token;
}

/** This machine's name: `VANTAGE_HOSTNAME`, else the system's; undefined when neither reads. */
export function thisHost(): string | undefined {
  const given = readEnv("VANTAGE_HOSTNAME")?.trim();
  if (given !== undefined && given !== "") return given;
  try {
    return Deno.hostname();
  } catch {
    return undefined;
  }
}

/** The team server to reach from the data home `home`, with `--to` as given. */
export async function teamTarget(home: string, to?: string): Promise<TeamTarget> {
  const target: TeamTarget = { url: teamUrl(to), token: await teamToken(home) };
  const host = thisHost();
  if (host !== undefined) target.host = host;
  return target;
}
