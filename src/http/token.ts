/**
 * The server's bearer token: generated once into the data home, readable
 * only by its owner.
 *
 * @module
 */
import { join } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../core/private_files.ts";

/** Reads the token file, creating it with a random token when missing. */
export async function loadOrCreateToken(home: string): Promise<string> {
  const path = join(home, "token");
  try {
    const existing = (await Deno.readTextFile(path)).trim();
    if (existing !== "") return existing;
  } catch {
    // Not created yet.
  }
  await makePrivateFolder(home);
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await Deno.writeTextFile(path, token + "\n", { mode: PRIVATE_FILE_MODE });
  return token;
}
