/**
 * `agent.traces`: conversations as the model saw them, from the agents' and
 * GenAI applications' telemetry — how the context grows turn by turn (the
 * "snowball": every turn resends the whole conversation, so input tokens
 * climb), what one question costs (a user turn and every model call it set
 * off: Claude Code's prompt id, a GenAI trace), and why calls stopped
 * (finish reasons: `end_turn`, `tool_use`, `max_tokens`, `length`…).
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import type { TelemetryWindow } from "../../store/telemetry/window.ts";
import { agentContext, clamp, iso } from "./common.ts";
import { resolveWindow, sinceMinSchema, windowEnd } from "./dashboard_window.ts";
import { NO_TELEMETRY_NOTE, TELEMETRY_READER, telemetryAnswerFields } from "./telemetry_window.ts";

/** Most points of one conversation's snowball. */
const SNOWBALL_POINTS = 100;
/** Most turns read for it (the latest). */
const TURNS_READ = 1000;

function usd(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e6) / 1e6;
}

/** Every `every`-th value, ending on the last, so a long conversation fits in `points`. */
function downsample(values: number[], points: number): { values: number[]; every: number } {
  if (values.length <= points) return { values, every: 1 };
  const every = Math.ceil(values.length / points);
  const picked: number[] = [];
  for (let i = (values.length - 1) % every; i < values.length; i += every) picked.push(values[i]);
  return { values: picked, every };
}

const reasonsSchema = z.array(z.object({ reason: z.string(), calls: z.number().int() }));

/** The `agent.traces` operation. */
export const tracesOperation: Operation = defineOperation({
  id: "agent.traces",
  title: "Traces",
  description:
    "Conversations from telemetry: context growth per turn, cost per question, finish reasons.",
  input: z.object({
    since_min: sinceMinSchema(1440),
    limit: clampedInt(1, 50).default(10).describe("Costliest conversations listed"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    conversations: z.number().int(),
    questions: z.number().int().describe("User turns: a prompt id or trace and its calls"),
    calls: z.number().int(),
    cost_usd: z.number(),
    unpriced_calls: z.number().int(),
    cost_per_question: z.object({
      questions: z.number().int().describe("Questions with a priced call"),
      avg_usd: z.number().nullable(),
      p50_usd: z.number().nullable(),
      p95_usd: z.number().nullable(),
      max_usd: z.number().nullable(),
    }),
    finish_reasons: reasonsSchema,
    top: z.array(z.object({
      session_id: z.string(),
      agent: z.string(),
      model: z.string().nullable(),
      first_at: z.string(),
      last_at: z.string(),
      calls: z.number().int(),
      questions: z.number().int(),
      cost_usd: z.number(),
      unpriced_calls: z.number().int(),
      cost_per_question_usd: z.number().nullable(),
      output_tokens: z.number().int(),
      snowball: z.object({
        turns: z.number().int(),
        first: z.number().int().nullable().describe("Context tokens of the first turn"),
        last: z.number().int().nullable(),
        max: z.number().int().nullable(),
        growth_per_turn: z.number().nullable().describe("Mean context tokens added per turn"),
        every: z.number().int().describe("context holds every n-th turn, ending on the last"),
        context: z.array(z.number().int()).describe("Context tokens per turn, oldest first"),
      }),
      finish_reasons: reasonsSchema,
    })),
    note: z.string().optional(),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const resolved = resolveWindow(ctx.now, input.since_min, undefined, 1440);
    const window: TelemetryWindow = { since: resolved.since, until: resolved.until };
    const totals = await ctx.store.telemetry.traceTotals(window);
    const spread = await ctx.store.telemetry.questionCostSpread(window);
    const conversations = await ctx.store.telemetry.topConversations(
      window,
      clamp(input.limit, 1, 50, 10),
    );
    const reasons = await ctx.store.telemetry.conversationFinishReasons(
      window,
      conversations.map((c) => c.session_id),
    );
    const top = [];
    for (const c of conversations) {
      const turns = (await ctx.store.telemetry.conversationTurns(window, c.session_id, TURNS_READ))
        .map((t) => t.context);
      const first = turns[0] ?? null;
      const last = turns.length > 0 ? turns[turns.length - 1] : null;
      const sample = downsample(turns, SNOWBALL_POINTS);
      top.push({
        session_id: c.session_id,
        agent: c.agent,
        model: c.model,
        first_at: iso(c.first_ts),
        last_at: iso(c.last_ts),
        calls: c.calls,
        questions: c.questions,
        cost_usd: usd(c.cost_usd) ?? 0,
        unpriced_calls: c.unpriced_calls,
        cost_per_question_usd: c.priced_calls > 0 && c.questions > 0
          ? usd(c.cost_usd / c.questions)
          : null,
        output_tokens: c.output_tokens,
        snowball: {
          turns: c.turns,
          first,
          last,
          max: turns.length > 0 ? Math.max(...turns) : null,
          growth_per_turn: first !== null && last !== null && turns.length > 1
            ? Math.round((last - first) / (turns.length - 1))
            : null,
          every: sample.every,
          context: sample.values,
        },
        finish_reasons: reasons.filter((r) => r.session_id === c.session_id)
          .map(({ reason, calls }) => ({ reason, calls })),
      });
    }
    return {
      since: iso(resolved.since),
      until: windowEnd(resolved, ctx.now),
      conversations: totals.conversations,
      questions: totals.questions,
      calls: totals.calls,
      cost_usd: usd(totals.cost_usd) ?? 0,
      unpriced_calls: totals.unpriced_calls,
      cost_per_question: {
        questions: spread.questions,
        avg_usd: usd(spread.avg),
        p50_usd: usd(spread.p50),
        p95_usd: usd(spread.p95),
        max_usd: usd(spread.max),
      },
      finish_reasons: await ctx.store.telemetry.finishReasons(window),
      top,
      ...(totals.calls === 0 ? { note: NO_TELEMETRY_NOTE } : {}),
    };
  },
});
