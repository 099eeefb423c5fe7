/**
 * Install and uninstall as two steps: a plan (every file's text before and
 * after, computed without writing anything, which is all `--dry-run` needs)
 * and its application (backups, atomic writes, the install record). An
 * uninstall restores a file's exact original bytes when the file still holds
 * what Vantage wrote; otherwise it removes Vantage's entries and leaves the
 * user's later edits in place.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { VantageError } from "../core/errors.ts";
import { adapterFor } from "./adapters.ts";
import type { AdapterName, InstallOptions } from "./agent.ts";
import { autostartFile } from "./autostart.ts";
import { type InstallEnvironment, installStateDirectory } from "./environment.ts";
import {
  backupOnce,
  ensureFolder,
  readTextIfExists,
  removeFile,
  removeFolderIfEmpty,
  sha256,
  writeTextAtomic,
} from "./file_io.ts";
import {
  deleteInstallRecord,
  type FileRecord,
  type InstallRecord,
  readInstallRecord,
  recordedAdapters,
  writeInstallRecord,
} from "./install_record.ts";
import type { ManagedFile, Prune } from "./managed_file.ts";
import { unifiedDiff } from "./unified_diff.ts";

/** The record name of the autostart service, kept apart from the agents'. */
export const AUTOSTART_RECORD = "autostart";

/** One file's planned change. */
export interface FileChange {
  /** Absolute path. */
  path: string;
  /** What Vantage keeps there. */
  purpose: string;
  /** Current text (undefined: the file does not exist). */
  before: string | undefined;
  /** Planned text (undefined: the file will be removed). */
  after: string | undefined;
}

/** Every change one command would make, grouped by record. */
export interface Plan {
  /** What the plan does. */
  action: "install" | "uninstall";
  /** Changes per record name (an adapter name, or `autostart`). */
  groups: Array<{ record: string; changes: FileChange[] }>;
}

/** What applying a plan did, for the CLI to report. */
export interface Outcome {
  /** Files written (created or updated). */
  written: string[];
  /** Files removed. */
  removed: string[];
  /** Backups made of originals. */
  backups: string[];
  /** Backups removed because the original was restored exactly. */
  backupsRemoved: string[];
  /** Backups kept because the file was not restored exactly (the user edited it since). */
  backupsKept: string[];
  /** Folders removed because Vantage had created them and they were left empty. */
  foldersRemoved: string[];
  /** Warnings worth showing. */
  warnings: string[];
}

/** Options of an install beyond the adapter's own. */
export interface InstallRequest extends InstallOptions {
  /** Also write the autostart service. */
  autostart?: boolean;
}

/**
 * Plans an install: reads every file the adapter manages and computes its
 * new text. Throws (naming file, line and column) when a file does not parse;
 * writes nothing.
 */
export async function planInstall(
  environment: InstallEnvironment,
  adapter: AdapterName,
  request: InstallRequest,
): Promise<Plan> {
  const plan: Plan = { action: "install", groups: [] };
  const files = adapterFor(adapter).files(environment, request);
  plan.groups.push({
    record: adapter,
    changes: await planFiles(environment, adapter, files, "install"),
  });
  if (request.autostart === true) {
    const file = autostartFile(environment);
    if (file !== undefined) {
      plan.groups.push({
        record: AUTOSTART_RECORD,
        changes: await planFiles(environment, AUTOSTART_RECORD, [file], "install"),
      });
    }
  }
  return plan;
}

/**
 * Plans an uninstall: Vantage's entries out of every file the adapter
 * manages (and of any file its record lists), and the autostart service
 * when no other agent still has Vantage installed.
 */
export async function planUninstall(
  environment: InstallEnvironment,
  adapter: AdapterName,
  options: InstallOptions,
): Promise<Plan> {
  const record = await readInstallRecord(environment, adapter);
  const recorded = record?.files.map((file) => file.path) ?? [];
  const agent = adapterFor(adapter);
  const files = agent.uninstallFiles?.(environment, options, recorded) ??
    agent.files(environment, options);
  const plan: Plan = { action: "uninstall", groups: [] };
  plan.groups.push({
    record: adapter,
    changes: await planFiles(environment, adapter, files, "uninstall"),
  });
  const others = (await recordedAdapters(environment))
    .filter((name) => name !== adapter && name !== AUTOSTART_RECORD);
  const autostart = autostartFile(environment);
  if (others.length === 0 && autostart !== undefined) {
    const changes = await planFiles(environment, AUTOSTART_RECORD, [autostart], "uninstall");
    plan.groups.push({ record: AUTOSTART_RECORD, changes });
  }
  return plan;
}

/** The unified diff of every planned change, for `--dry-run`. */
export function planDiff(plan: Plan): string {
  return plan.groups.flatMap((group) => group.changes)
    .map((change) => unifiedDiff(change.path, change.before, change.after))
    .join("");
}

/** Whether a plan changes anything. */
export function planChangesNothing(plan: Plan): boolean {
  return plan.groups.every((group) => group.changes.length === 0);
}

/**
 * Applies a plan: backs up each original once, writes atomically, removes
 * what should go, and keeps the install record (or, for an uninstall,
 * removes backups made redundant, the folders Vantage created and the
 * record). Files are re-read first, and a file that changed since the plan
 * was made stops the command before anything is written.
 */
export async function applyPlan(environment: InstallEnvironment, plan: Plan): Promise<Outcome> {
  const outcome: Outcome = {
    written: [],
    removed: [],
    backups: [],
    backupsRemoved: [],
    backupsKept: [],
    foldersRemoved: [],
    warnings: [],
  };
  for (const group of plan.groups) {
    for (const change of group.changes) {
      if (await readTextIfExists(change.path) !== change.before) {
        throw new VantageError(
          "conflict",
          `${change.path} changed while Vantage was working on it; nothing was written, run the command again`,
        );
      }
    }
  }
  for (const group of plan.groups) {
    if (plan.action === "install") await applyInstallGroup(environment, group, outcome);
    else await applyUninstallGroup(environment, group, outcome);
  }
  return outcome;
}

/**
 * Deletes the data home (`--purge-data`), keeping the install records of
 * agents that still have Vantage installed. Refuses a data home that is the
 * user's home, holds it, or is a filesystem root.
 */
export async function purgeDataHome(environment: InstallEnvironment): Promise<string[]> {
  const home = environment.dataHome.replace(/\/+$/, "");
  const userHome = environment.userHome.replace(/\/+$/, "");
  if (home === "" || dirname(home) === home || (userHome + "/").startsWith(home + "/")) {
    throw new VantageError(
      "invalid_arguments",
      `refusing to purge ${environment.dataHome}: it is not a data folder of its own`,
    );
  }
  const keep = installStateDirectory(environment);
  const remaining = await recordedAdapters(environment);
  const removed: string[] = [];
  try {
    for await (const entry of Deno.readDir(home)) {
      const path = join(home, entry.name);
      if (path === keep && remaining.length > 0) continue;
      await Deno.remove(path, { recursive: true });
      removed.push(path);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return removed;
    throw error;
  }
  if (await removeFolderIfEmpty(home)) removed.push(home);
  return removed;
}

async function planFiles(
  environment: InstallEnvironment,
  recordName: string,
  files: ManagedFile[],
  action: "install" | "uninstall",
): Promise<FileChange[]> {
  const record = await readInstallRecord(environment, recordName);
  const changes: FileChange[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.path)) continue;
    seen.add(file.path);
    const before = await readTextIfExists(file.path);
    const entry = record?.files.find((each) => each.path === file.path);
    const original = await knownOriginal(entry, before, action);
    const prune = pruneFor(file, original);
    let after: string | undefined;
    if (action === "install") {
      after = file.install(before, prune);
      // Turning Vantage's part off (--no-hooks) empties a file it created: remove it instead.
      if (after !== undefined && entry !== undefined && !entry.existed && file.isEmpty(after)) {
        after = undefined;
      }
    } else {
      if (before === undefined) continue;
      after = removal(file, before, entry, original, prune);
    }
    if (after !== before) changes.push({ path: file.path, purpose: file.purpose, before, after });
  }
  return changes;
}

/** What an uninstall leaves in a file. */
function removal(
  file: ManagedFile,
  before: string,
  entry: FileRecord | undefined,
  original: Original,
  prune: Prune,
): string | undefined {
  const untouched = entry !== undefined && entry.written_sha256 === sha256(before);
  if (untouched && !entry.existed) return undefined;
  if (untouched && original.known && original.text !== undefined) return original.text;
  const after = file.remove(before, prune);
  // A file Vantage created, and nothing but an empty document left in it: it goes.
  if (after !== undefined && entry !== undefined && !entry.existed && file.isEmpty(after)) {
    return undefined;
  }
  return after;
}

/** The original content of a file, when known: `text` undefined means "did not exist". */
interface Original {
  known: boolean;
  text?: string;
}

async function knownOriginal(
  entry: FileRecord | undefined,
  current: string | undefined,
  action: "install" | "uninstall",
): Promise<Original> {
  // Never changed by Vantage yet: on install, what is there now is the original.
  if (entry === undefined) {
    return action === "install" ? { known: true, text: current } : { known: false };
  }
  if (!entry.existed) return { known: true };
  if (entry.backup === undefined) return { known: false };
  const backup = await readTextIfExists(entry.backup).catch(() => undefined);
  if (backup !== undefined && sha256(backup) === entry.original_sha256) {
    return { known: true, text: backup };
  }
  return { known: false };
}

function pruneFor(file: ManagedFile, original: Original): Prune {
  if (!original.known) return () => false;
  const text = original.text;
  if (text === undefined) return () => true;
  return (path) => !file.has(text, path);
}

async function applyInstallGroup(
  environment: InstallEnvironment,
  group: { record: string; changes: FileChange[] },
  outcome: Outcome,
): Promise<void> {
  if (group.changes.length === 0) return;
  const record: InstallRecord = await readInstallRecord(environment, group.record) ??
    { version: 1, adapter: group.record, files: [], created_folders: [] };
  for (const change of group.changes) {
    let entry = record.files.find((each) => each.path === change.path);
    if (entry === undefined) {
      entry = { path: change.path, existed: change.before !== undefined };
      if (change.before !== undefined) {
        entry.original_sha256 = sha256(change.before);
        const backup = await backupOnce(change.path, change.before);
        if (backup.matches) entry.backup = backup.backup;
        else {
          outcome.warnings.push(
            `${backup.backup} already existed and holds an older version; it was left as it was`,
          );
        }
        if (backup.created) outcome.backups.push(backup.backup);
      }
      record.files.push(entry);
    }
    if (change.after === undefined) {
      await removeFile(change.path);
      delete entry.written_sha256;
      outcome.removed.push(change.path);
    } else {
      for (const folder of await ensureFolder(dirname(change.path))) {
        if (!record.created_folders.includes(folder)) record.created_folders.push(folder);
      }
      await writeTextAtomic(change.path, change.after);
      entry.written_sha256 = sha256(change.after);
      outcome.written.push(change.path);
    }
  }
  await writeInstallRecord(environment, record);
}

async function applyUninstallGroup(
  environment: InstallEnvironment,
  group: { record: string; changes: FileChange[] },
  outcome: Outcome,
): Promise<void> {
  const record = await readInstallRecord(environment, group.record);
  for (const change of group.changes) {
    if (change.after === undefined) {
      await removeFile(change.path);
      outcome.removed.push(change.path);
    } else {
      await writeTextAtomic(change.path, change.after);
      outcome.written.push(change.path);
    }
  }
  if (record === undefined) return;
  for (const entry of record.files) {
    if (entry.backup === undefined) continue;
    const backup = await readTextIfExists(entry.backup).catch(() => undefined);
    if (backup === undefined) continue;
    const now = await readTextIfExists(entry.path);
    if (now === backup) {
      await removeFile(entry.backup);
      outcome.backupsRemoved.push(entry.backup);
    } else {
      outcome.backupsKept.push(entry.backup);
    }
  }
  for (const folder of [...record.created_folders].reverse()) {
    if (await removeFolderIfEmpty(folder)) outcome.foldersRemoved.push(folder);
  }
  await deleteInstallRecord(environment, group.record);
  if (await removeFolderIfEmpty(environment.dataHome)) {
    outcome.foldersRemoved.push(environment.dataHome);
  }
}
