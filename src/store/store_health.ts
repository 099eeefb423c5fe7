/**
 * What is known about the store's health, shared by every process of a data
 * home through one small file beside the store (`store-health.json`): the
 * outcome of the last verification, and damage any process met while
 * working (a chunk that failed its hash, SQLite reporting a malformed file,
 * a structural check at `serve` start that failed). `serve` answers
 * `/api/health` with `degraded` while anything is recorded, and `docs.status`
 * reports it. A clean verification or a successful repair clears it.
 *
 * The file is rewritten whole, through a temporary file and a rename, so a
 * reader never sees half of it. Two processes recording at the same moment
 * may lose one record; the damage it described is met (and recorded) again
 * by the next read that touches it.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE } from "../core/private_files.ts";
import { type DatabaseSync, isCorruptionError, storeFilePath } from "./database.ts";

/** The health file's name, in the folder of the store. */
export const STORE_HEALTH_FILE = "store-health.json";

/** Damage records kept (the newest); older ones are dropped. */
const MAX_RECORDS = 20;

/** Where damage was noticed. */
export type DamageSource = "runtime" | "startup_check";

/** One piece of damage a process met. */
export interface DamageRecord {
  /** When, ms since the epoch. */
  at: number;
  /** Who noticed it. */
  source: DamageSource;
  /** The damaged file, when known. */
  file?: string;
  /** What was wrong, in the words of the error or check that found it. */
  message: string;
  /** The process that noticed it. */
  pid: number;
}

/** The outcome of the last verification. */
export interface VerifyOutcome {
  /** When it finished, ms since the epoch. */
  at: number;
  /** Whether nothing was damaged. */
  ok: boolean;
  /** Whether chunk bytes were read (false: structure only). */
  chunks: boolean;
  /** One line per problem found (empty when ok). */
  problems: string[];
}

/** The health file's content. */
export interface StoreHealth {
  /** The last verification, if any ran. */
  last_verify?: VerifyOutcome;
  /** Damage met since the last clean verification or successful repair. */
  damage: DamageRecord[];
}

/** The health summary `/api/health` and `docs.status` give. */
export interface HealthSummary {
  /** `degraded` while damage is known. */
  status: "ok" | "degraded";
  /** Why it is degraded (empty when ok). */
  reasons: string[];
  /** When the last verification finished (ISO), if one ran. */
  last_verified_at: string | null;
  /** Whether the last verification found nothing wrong (null when none ran). */
  last_verify_ok: boolean | null;
}

/** The health file of the store kept in `folder` (the data home). */
export function storeHealthPath(folder: string): string {
  return join(folder, STORE_HEALTH_FILE);
}

/** The folder a store connection's file is in; undefined for an in-memory store. */
export function storeFolder(db: DatabaseSync): string | undefined {
  const file = storeFilePath(db);
  return file === undefined ? undefined : dirname(file);
}

/** Reads the health file of the store in `folder` (empty when there is none or it is unreadable). */
export function readStoreHealth(folder: string): StoreHealth {
  let text: string;
  try {
    text = Deno.readTextFileSync(storeHealthPath(folder));
  } catch {
    return { damage: [] };
  }
  try {
    const parsed = JSON.parse(text) as Partial<StoreHealth>;
    return {
      ...(parsed.last_verify !== undefined ? { last_verify: parsed.last_verify } : {}),
      damage: Array.isArray(parsed.damage) ? parsed.damage : [],
    };
  } catch {
    // A file this module did not write whole (it never does) is treated as no record.
    return { damage: [] };
  }
}

function writeStoreHealth(folder: string, health: StoreHealth): void {
  const path = storeHealthPath(folder);
  const temporary = `${path}.${Deno.pid}-${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.writeTextFileSync(temporary, JSON.stringify(health, null, 2) + "\n", {
      mode: PRIVATE_FILE_MODE,
    });
    Deno.renameSync(temporary, path);
  } catch (error) {
    try {
      Deno.removeSync(temporary);
    } catch {
      // Never made.
    }
    throw error;
  }
}

/**
 * Records damage met in the store of `folder` (a message already recorded
 * is not recorded twice). Never throws: a health file that cannot be written
 * must not turn one failure into two.
 */
export function recordStoreDamage(
  folder: string,
  damage: { source: DamageSource; message: string; file?: string },
): void {
  try {
    const health = readStoreHealth(folder);
    if (health.damage.some((known) => known.message === damage.message)) return;
    health.damage.push({
      at: Date.now(),
      source: damage.source,
      ...(damage.file !== undefined ? { file: damage.file } : {}),
      message: damage.message,
      pid: Deno.pid,
    });
    health.damage = health.damage.slice(-MAX_RECORDS);
    writeStoreHealth(folder, health);
  } catch {
    // A read-only data home (or a refused write) keeps no record; the error itself still surfaces.
  }
}

/**
 * Drops damage records of `source` naming `file` (a structural check that
 * now passes on that file takes back what an earlier one recorded).
 */
export function clearStoreDamage(folder: string, source: DamageSource, file: string): void {
  try {
    const health = readStoreHealth(folder);
    const kept = health.damage.filter((known) => known.source !== source || known.file !== file);
    if (kept.length === health.damage.length) return;
    writeStoreHealth(folder, { ...health, damage: kept });
  } catch {
    // Nothing recorded, or nothing writable: nothing to take back.
  }
}

/**
 * Records a verification's outcome. A clean one (or a successful repair)
 * clears the damage recorded before it started: what it checked was found
 * whole, or was made whole. Damage recorded while it ran stays.
 */
export function recordVerifyOutcome(
  folder: string,
  outcome: VerifyOutcome,
  startedAt: number,
): void {
  try {
    const health = readStoreHealth(folder);
    const damage = outcome.ok
      ? health.damage.filter((known) => known.at > startedAt)
      : health.damage;
    writeStoreHealth(folder, { last_verify: outcome, damage });
  } catch {
    // The outcome is still returned to whoever asked; only the record is lost.
  }
}

/** The summary of a health record: degraded while damage is known. */
export function summarizeHealth(health: StoreHealth): HealthSummary {
  const reasons: string[] = [];
  const verify = health.last_verify;
  if (verify !== undefined && !verify.ok) {
    const shown = verify.problems.slice(0, 5);
    const more = verify.problems.length - shown.length;
    reasons.push(
      `the last verification (${new Date(verify.at).toISOString()}) found damage: ${
        shown.join("; ")
      }${more > 0 ? `; and ${more} more` : ""}`,
    );
  }
  for (const damage of health.damage) {
    const what = damage.source === "startup_check"
      ? "the structural check at server start failed"
      : `damage met at ${new Date(damage.at).toISOString()}`;
    reasons.push(`${what}: ${damage.message}`);
  }
  if (reasons.length > 0) {
    reasons.push("run 'vantage doctor --store' for details and 'vantage repair'");
  }
  return {
    status: reasons.length > 0 ? "degraded" : "ok",
    reasons,
    last_verified_at: verify === undefined ? null : new Date(verify.at).toISOString(),
    last_verify_ok: verify === undefined ? null : verify.ok,
  };
}

/** Whether an error says a stored file is damaged: a chunk that failed its check, or SQLite's words. */
export function isDamageError(error: unknown): boolean {
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof Error && current.name === "CorruptContentError") return true;
    if (isCorruptionError(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/** When each message was last recorded by this process (so a loop over damage writes once). */
const RECENT = new Map<string, number>();
const RECORD_AGAIN_AFTER_MS = 10_000;

/**
 * Records `error` in the health file beside the store of `db` when it is
 * damage ({@linkcode isDamageError}); anything else, or an in-memory store,
 * is left alone. Never throws.
 */
export function noticeStoreDamage(db: DatabaseSync, error: unknown, file?: string): void {
  if (!isDamageError(error)) return;
  let folder: string | undefined;
  try {
    folder = storeFolder(db);
  } catch {
    // A store too damaged to name its own file: nowhere to record.
  }
  if (folder !== undefined) noticeDamageIn(folder, error, file);
}

/** Like {@linkcode noticeStoreDamage}, for the store kept in `folder`. */
export function noticeDamageIn(folder: string, error: unknown, file?: string): void {
  if (!isDamageError(error)) return;
  const message = error instanceof Error ? error.message : String(error);
  const key = `${folder}\n${message}`;
  const last = RECENT.get(key);
  if (last !== undefined && Date.now() - last < RECORD_AGAIN_AFTER_MS) return;
  if (RECENT.size > 1000) RECENT.clear();
  RECENT.set(key, Date.now());
  const named = file ?? damagedFileOf(error);
  recordStoreDamage(folder, {
    source: "runtime",
    message,
    ...(named !== undefined ? { file: named } : {}),
  });
}

function damagedFileOf(error: unknown): string | undefined {
  const details = (error as { details?: Record<string, unknown> }).details;
  const file = details?.file ?? details?.pack_file;
  return typeof file === "string" ? file : undefined;
}
