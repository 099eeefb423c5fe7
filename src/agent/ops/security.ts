/**
 * `agent.security`: risky shell commands agents ran (recursive deletes of
 * broad paths, downloaded code piped to a shell, world-writable files,
 * sudo, force pushes, credential reads, reverse shells…) and likely
 * prompt-injection text in what their tools returned, each with its
 * evidence: session, time, the command or the matched excerpt, where it was
 * read. From hook events, transcripts and telemetry, each call once.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { scanSecurity } from "../security/security_scan.ts";
import { agentContext, clamp, iso } from "./common.ts";
import { resolveWindow, sinceMinSchema, windowEnd } from "./dashboard_window.ts";
import {
  TELEMETRY_READER,
  telemetryAnswerFields,
  telemetryRecordFields,
} from "./telemetry_window.ts";

const severity = z.enum(["critical", "warning", "info"]);
const source = z.enum(["hook", "transcript", "telemetry"]);

/** The `agent.security` operation. */
export const securityOperation: Operation = defineOperation({
  id: "agent.security",
  title: "Security",
  description: "Risky shell commands agents ran and prompt-injection text in tool results.",
  input: z.object({
    since_min: sinceMinSchema(7 * 1440),
    limit: clampedInt(0, 200).default(50).describe("Findings listed per kind"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    commands: z.object({
      scanned: z.number().int().describe("Shell commands checked, each call once"),
      external_fetches: z.number().int().describe("Of them, network fetches (curl, wget, …)"),
      found: z.number().int().describe("Risky commands, listed or not"),
      by_rule: z.array(z.object({ rule: z.string(), severity, count: z.number().int() })),
      items: z.array(z.object({
        ...telemetryRecordFields,
        severity,
        rules: z.array(z.string()),
        command: z.string(),
        source,
        tool_use_id: z.string().nullable(),
      })),
    }),
    injections: z.object({
      scanned: z.number().int().describe("Tool results checked"),
      found: z.number().int().describe("Results with injection text, listed or not"),
      by_rule: z.array(z.object({ rule: z.string(), count: z.number().int() })),
      items: z.array(z.object({
        ...telemetryRecordFields,
        rules: z.array(z.string()),
        tool: z.string().nullable(),
        target: z.string().nullable().describe("The file, URL or command the tool read"),
        excerpt: z.string(),
        source,
        tool_use_id: z.string().nullable(),
      })),
    }),
    truncated: z.boolean().describe("Older records left out: a shorter window reads them all"),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const window = resolveWindow(ctx.now, input.since_min, undefined, 7 * 1440);
    const scan = await scanSecurity(
      ctx.store,
      { since: window.since, until: window.until },
      clamp(input.limit, 0, 200, 50),
    );
    return {
      since: iso(window.since),
      until: windowEnd(window, ctx.now),
      commands: {
        scanned: scan.commands_scanned,
        external_fetches: scan.external_fetches,
        found: scan.commands_found,
        by_rule: scan.command_rules,
        items: scan.commands.map(({ ts, ...rest }) => ({ at: iso(ts), ...rest })),
      },
      injections: {
        scanned: scan.results_scanned,
        found: scan.injections_found,
        by_rule: scan.injection_rules,
        items: scan.injections.map(({ ts, ...rest }) => ({ at: iso(ts), ...rest })),
      },
      truncated: scan.truncated,
    };
  },
});
