/**
 * `vantage doctor`: checks every agent Vantage is installed in and the
 * server, and prints what to fix (or the whole report as JSON). With
 * `--store` it verifies the data home's store instead, through
 * `docs.verify`, and prints the damage by file and by document.
 *
 * @module
 */
import { parseAdapterName } from "../install/agent.ts";
import { type CheckStatus, type DoctorReport, runDoctor } from "../install/doctor.ts";
import {
  currentEnvironment,
  displayPath,
  type InstallEnvironment,
} from "../install/environment.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import { formatBytes, integerFlag, runDocsOperation } from "./docs_common.ts";

/** The `doctor` command. */
export const command: Command = {
  name: "doctor",
  summary: "Check each agent's Vantage setup and the server (--store: the store); say what to fix",
  usage: `Usage: vantage doctor [--adapter NAME] [--json]
       vantage doctor --store [--structural] [--max-documents N] [--json]

For each agent Vantage is installed in: the config file parses, it holds the
'vantage' MCP server, its command exists, the server answers 'initialize'
when started (10 s budget), and the hooks are registered. Also whether the
Vantage server answers at VANTAGE_URL (default http://127.0.0.1:14300); it
may be down, which is reported but is not an error.
Exits 0 when nothing failed, 1 otherwise.

With --store, verifies the data home's store instead (docs.verify): SQLite's
structural check of the store and its index files, every stored chunk read
back and hashed, chunk lists, pack files, and whether the search index holds
every document. Damage is listed by file and by document, with what to do;
the outcome becomes the store's health (/api/health, docs.status). Exits 1
when anything is damaged ('vantage repair' rebuilds what can be rebuilt).

Options:
  --adapter NAME       Check only this agent
  --store              Verify the store instead of the agents
  --structural         With --store: check structure only (do not read every chunk)
  --max-documents N    With --store: damaged documents listed (default 100)
  --json               Print the report as JSON
  -h, --help           Show this help`,
  async run(args) {
    const { values } = parseFlags("doctor", args, {
      adapter: { type: "string" },
      json: { type: "boolean" },
      store: { type: "boolean" },
      structural: { type: "boolean" },
      "max-documents": { type: "string" },
    });
    if (values.store === true) {
      const params: Record<string, unknown> = { chunks: values.structural !== true };
      const max = integerFlag("max-documents", values["max-documents"]);
      if (max !== undefined) params.max_documents = max;
      const report = await runDocsOperation(
        "docs.verify",
        params,
        undefined,
      ) as unknown as StoreReport;
      if (values.json === true) writeStdout(JSON.stringify(report, null, 2) + "\n");
      else writeStdout(renderStore(report));
      return report.ok ? 0 : 1;
    }
    const environment = currentEnvironment();
    const adapters = typeof values.adapter === "string"
      ? [parseAdapterName(values.adapter)]
      : undefined;
    const report = await runDoctor(environment, adapters === undefined ? {} : { adapters });
    if (values.json === true) writeStdout(JSON.stringify(report, null, 2) + "\n");
    else writeStdout(render(environment, report));
    return report.ok ? 0 : 1;
  },
};

const MARK: Record<CheckStatus, string> = { ok: "✔", warn: "⚠", fail: "✘" };

function render(environment: InstallEnvironment, report: DoctorReport): string {
  const short = (text: string): string =>
    environment.userHome.length > 1 ? text.replaceAll(environment.userHome + "/", "~/") : text;
  const lines: string[] = [];
  const server = report.server;
  lines.push(`${MARK[server.status]} server: ${short(server.detail)}`);
  if (server.fix !== undefined) lines.push(`    fix: ${server.fix}`);
  if (report.autostart !== undefined) {
    lines.push(`  autostart service: ${displayPath(environment, report.autostart)}`);
  }
  for (const adapter of report.adapters) {
    if (!adapter.installed) {
      lines.push(
        `- ${adapter.title}: not installed (vantage install --adapter ${adapter.adapter})`,
      );
      continue;
    }
    lines.push(`${adapter.title}:`);
    for (const check of adapter.checks) {
      lines.push(`  ${MARK[check.status]} ${check.name}: ${short(check.detail)}`);
      if (check.fix !== undefined) lines.push(`      fix: ${check.fix}`);
    }
  }
  if (report.adapters.every((adapter) => !adapter.installed)) {
    lines.push("Vantage is not installed in any agent: run vantage install --adapter <agent>.");
  } else {
    lines.push(report.ok ? "All checks passed." : "Some checks failed: see 'fix' above.");
  }
  return lines.join("\n") + "\n";
}

/** The parts of `docs.verify`'s result the store report prints. */
interface StoreReport {
  ok: boolean;
  chunks_checked: boolean;
  duration_ms: number;
  checked: { documents: number; chunks: number; bytes: number; files: number; pack_files: number };
  damaged: { documents: number; chunks: number; files: number };
  store: { file: string | null };
  index: { expected: number; indexed: number; queued: number };
  files: Array<{ path: string; kind: string; status: string; problems: string[] }>;
  documents: Array<{ id: number; path: string; hash: string; problems: string[]; files: string[] }>;
  documents_truncated: boolean;
  reclaimable: { pack_files: number; bytes: number };
  what_to_do: string[];
}

const FILE_MARK: Record<string, string> = {
  ok: MARK.ok,
  damaged: MARK.fail,
  short: MARK.fail,
  unreferenced: MARK.warn,
  left_behind: MARK.warn,
  unchecked: MARK.warn,
};

function renderStore(report: StoreReport): string {
  const lines: string[] = [];
  lines.push(`Store ${report.store.file ?? "(in memory)"}`);
  for (const file of report.files) {
    // A missing pack lost its chunks; a missing index file is rebuilt from the store.
    const mark = file.status === "missing"
      ? (file.kind === "pack" ? MARK.fail : MARK.warn)
      : FILE_MARK[file.status] ?? MARK.warn;
    let line = `${mark} ${file.path}: ${file.status}`;
    if (file.kind === "docs_index" && file.status === "ok") {
      line += ` (${report.index.indexed} documents indexed, ${report.index.queued} changes queued)`;
    }
    lines.push(line);
    for (const problem of file.problems) lines.push(`    ${problem}`);
  }
  if (report.documents.length > 0) {
    lines.push(`Damaged documents: ${report.damaged.documents}`);
    for (const document of report.documents) {
      lines.push(`  ${MARK.fail} #${document.id} ${document.path} (${document.hash})`);
      for (const problem of document.problems) lines.push(`      ${problem}`);
      lines.push(`      files: ${document.files.join(", ")}`);
    }
    if (report.documents_truncated) {
      lines.push(
        `  … and ${report.damaged.documents - report.documents.length} more (--max-documents N)`,
      );
    }
  }
  if (report.reclaimable.pack_files > 0) {
    lines.push(
      `${report.reclaimable.pack_files} pack files nothing uses (${
        formatBytes(report.reclaimable.bytes)
      }): 'vantage repair' reclaims them.`,
    );
  }
  const what = report.chunks_checked
    ? `${report.checked.chunks} chunks (${formatBytes(report.checked.bytes)})`
    : "structure only";
  lines.push(
    `Checked ${report.checked.documents} documents, ${what}, ${report.checked.files} database files and ${report.checked.pack_files} packs in ${
      (report.duration_ms / 1000).toFixed(1)
    } s.`,
  );
  if (report.ok) {
    lines.push("No damage found.");
  } else {
    lines.push(
      `Damage found (${report.damaged.documents} documents, ${report.damaged.chunks} chunks, ${report.damaged.files} files).`,
    );
    for (const advice of report.what_to_do) lines.push(`What to do: ${advice}`);
  }
  return lines.join("\n") + "\n";
}
