/**
 * `vantage repair`: rebuilds what can be rebuilt in the data home's store
 * through `docs.repair`, and prints what was done and what cannot be.
 *
 * @module
 */
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  formatBytes,
  integerFlag,
  OUTPUT_FLAGS,
  runDocsOperation,
  sharedFlagsHelp,
} from "./docs_common.ts";

/** The parts of `docs.repair`'s result the report prints. */
interface RepairResult {
  ok: boolean;
  dry_run: boolean;
  duration_ms: number;
  store: { file: string | null; status: string; problems: string[]; what_to_do?: string };
  docs_index: {
    file: string | null;
    action: string;
    reason?: string;
    new_file?: string;
    documents_indexed?: number;
  };
  message_index: { file: string | null; action: string; reason?: string; what_to_do?: string };
  earlier_index_files: string[];
  chunks: { damaged: number; restored: number };
  restored_documents: number;
  unrecoverable_documents: number;
  documents: Array<{ id: number; path: string; status: string; reason: string; files: string[] }>;
  documents_truncated: boolean;
  packs: { unreferenced: number; removed: number; bytes_reclaimed: number };
  remaining: string[];
}

/** The `repair` command. */
export const command: Command = {
  name: "repair",
  summary: "Rebuild what can be rebuilt in a damaged store; say what cannot",
  usage: `Usage: vantage repair [--dry-run] [--max-documents N] [--json]

Verifies the store (as 'vantage doctor --store' does), then:
  - a damaged or incomplete document search index is replaced by a new one
    built from the store;
  - damaged document bytes are written back from each document's original
    file, when it is still at its stored path and unchanged (same SHA-256);
    otherwise the document is reported as unrecoverable, with its path;
  - pack files nothing uses are reclaimed by the garbage collection;
  - a damaged message search index is rebuilt when no 'vantage serve' runs
    for this data home (otherwise it says to stop serve first).
A store file whose own pages are damaged cannot be rebuilt: it is reported
with what to do (restore it from a copy, or 'sqlite3 vantage.db .recover').
Exits 0 when nothing damaged is left, 1 otherwise.

Options:
  --dry-run            Report what would be done; change nothing
  --max-documents N    Documents listed one by one (default 100)
${sharedFlagsHelp(23)}`,
  async run(args) {
    const { values } = parseFlags("repair", args, {
      "dry-run": { type: "boolean" },
      "max-documents": { type: "string" },
      ...OUTPUT_FLAGS,
    });
    const params: Record<string, unknown> = {};
    if (values["dry-run"] === true) params.dry_run = true;
    const max = integerFlag("max-documents", values["max-documents"]);
    if (max !== undefined) params.max_documents = max;
    const result = await runDocsOperation(
      "docs.repair",
      params,
      values.scopes,
    ) as unknown as RepairResult;
    if (values.json === true) writeStdout(JSON.stringify(result, null, 2) + "\n");
    else writeStdout(render(result));
    return result.ok ? 0 : 1;
  },
};

const OK = "✔";
const FAIL = "✘";

function render(result: RepairResult): string {
  const lines: string[] = [];
  const store = result.store;
  if (store.status === "damaged") {
    lines.push(`${FAIL} store ${store.file ?? ""}: damaged`);
    for (const problem of store.problems) lines.push(`    ${problem}`);
    if (store.what_to_do !== undefined) lines.push(`    what to do: ${store.what_to_do}`);
  }
  const index = result.docs_index;
  if (index.action === "rebuilt") {
    lines.push(
      `${OK} search index ${index.file}: rebuilt as ${index.new_file} (${index.documents_indexed} documents indexed)`,
    );
  } else if (index.action === "would_rebuild") {
    lines.push(`- search index ${index.file}: would be rebuilt (${index.reason})`);
  }
  for (const file of result.earlier_index_files) {
    lines.push(
      `${result.dry_run ? "-" : OK} ${file}: earlier index file ${
        result.dry_run ? "would be removed" : "removed"
      }`,
    );
  }
  for (const document of result.documents) {
    const mark = document.status === "unrecoverable"
      ? FAIL
      : document.status === "restored"
      ? OK
      : "-";
    const what = document.status === "unrecoverable"
      ? `cannot be restored: ${document.reason}`
      : `${document.status === "restored" ? "restored" : "would be restored"} ${document.reason}`;
    lines.push(`${mark} #${document.id} ${document.path}: ${what}`);
    if (document.status === "unrecoverable") {
      lines.push(`      files: ${document.files.join(", ")}`);
    }
  }
  if (result.documents_truncated) {
    lines.push(`  … more documents (--max-documents N)`);
  }
  const messages = result.message_index;
  if (messages.action === "rebuilt") lines.push(`${OK} message index ${messages.file}: rebuilt`);
  else if (messages.action === "would_rebuild") {
    lines.push(`- message index ${messages.file}: would be rebuilt`);
  } else if (messages.action === "left") {
    lines.push(`${FAIL} message index ${messages.file}: damaged; ${messages.what_to_do}`);
  }
  if (result.packs.removed > 0) {
    lines.push(
      `${OK} ${result.packs.removed} pack files nothing used removed (${
        formatBytes(result.packs.bytes_reclaimed)
      })`,
    );
  } else if (result.dry_run && result.packs.unreferenced > 0) {
    lines.push(`- ${result.packs.unreferenced} pack files nothing uses would be reclaimed`);
  }
  lines.push(
    `Chunks: ${result.chunks.damaged} damaged, ${result.chunks.restored} restored; documents: ${result.restored_documents} ${
      result.dry_run ? "restorable" : "restored"
    }, ${result.unrecoverable_documents} unrecoverable (${
      (result.duration_ms / 1000).toFixed(1)
    } s).`,
  );
  if (result.remaining.length === 0) {
    lines.push(result.dry_run ? "Everything found can be repaired." : "Nothing damaged is left.");
  } else {
    lines.push(`Still damaged (${result.remaining.length}):`);
    for (const line of result.remaining) lines.push(`  ${FAIL} ${line}`);
  }
  return lines.join("\n") + "\n";
}
