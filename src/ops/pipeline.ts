/**
 * The one pipeline engine: steps run in order through the executor, each
 * step's string parameters may take parts of the previous successful
 * result (`$prev`, `$prev.results[0].hash`), and two options say how strict
 * the run is: `continueOnError` (a write batch goes on past a failed step)
 * and `readOnly` (a read pipeline refuses, before it runs, any operation not
 * annotated read-only, so no write is reachable from it). The dex `execute`
 * tool's pipelines and the composite `query` and `execute` tools all run
 * here; each only shapes the answer its callers expect.
 *
 * @module
 */
import type { ErrorObject } from "../core/errors.ts";
import type { Catalog } from "./catalog.ts";
import {
  executeOperation,
  type ExecuteOptions,
  type ExecuteResponse,
  failureOf,
} from "./executor.ts";
import type { Caller } from "./operation.ts";
import { resolveReferences } from "./prev_reference.ts";

/** One pipeline step named by operation id, as the dex `execute` tool takes it. */
export interface PipelineStep {
  /** The operation to run. */
  op: string;
  /** Its arguments; string values may be `$prev` references. */
  params?: Record<string, unknown>;
}

/** How strictly a pipeline runs, besides what the executor needs. */
export interface PipelineOptions extends ExecuteOptions {
  /** Go on after a failed step (a write batch); default: stop at the first failure. */
  continueOnError?: boolean;
  /** Refuse every operation not annotated `readOnlyHint: true`, before it runs. */
  readOnly?: boolean;
}

/**
 * Turns one step, in whatever form a surface takes it, into the operation it
 * names and its parameters, or into the reason it names none (a malformed
 * step, an unknown name): such a step fails without reaching the executor.
 */
export type StepResolver<S> = (
  step: S,
  index: number,
) => { operationId: string; params: unknown } | { error: ErrorObject };

/** One step as the pipeline took it. */
export interface StepOutcome<S> {
  /** The step's position in the pipeline. */
  index: number;
  /** The step as given. */
  step: S;
  /** The operation it named; undefined when the resolver found none. */
  operationId?: string;
  /** The executor's answer, or the pipeline's refusal of the step (`dispatched: false`). */
  response: ExecuteResponse;
}

/** What a pipeline did. */
export interface PipelineRun<S> {
  /** Every step taken, in order: all of them, or up to the first failure unless `continueOnError`. */
  outcomes: StepOutcome<S>[];
  /** How many steps succeeded. */
  succeeded: number;
  /** How many steps failed. */
  failed: number;
  /** The last successful step's result; null when none succeeded. */
  result: unknown;
  /** Set when the whole pipeline was refused before any step ran (too many steps). */
  refused?: ErrorObject;
}

/** The resolver of {@linkcode PipelineStep}s: `op` is the operation id. */
export function byOperationId(step: PipelineStep): { operationId: string; params: unknown } {
  return { operationId: step.op, params: step.params ?? {} };
}

/**
 * Runs `steps` in order for `caller`. Each step's parameters have their
 * `$prev` references resolved against the last successful result (`{}`
 * before any), then go through {@linkcode executeOperation}, so scopes,
 * validation and limits are the executor's. Never throws for a failed step.
 *
 * @example
 * ```ts ignore
 * const run = await runPipeline(catalog, [
 *   { op: "docs.search", params: { query: "auth" } },
 *   { op: "docs.get", params: { hash: "$prev.results[0].hash" } },
 * ], caller, byOperationId, { readOnly: true });
 * run.result; // the document, or null when a step failed first
 * ```
 */
export async function runPipeline<S>(
  catalog: Catalog,
  steps: readonly S[],
  caller: Caller,
  resolve: StepResolver<S>,
  options: PipelineOptions = {},
): Promise<PipelineRun<S>> {
  const run: PipelineRun<S> = { outcomes: [], succeeded: 0, failed: 0, result: null };
  const limit = catalog.limits.maxPipelineSteps;
  if (steps.length > limit) {
    run.refused = {
      kind: "invalid_arguments",
      dispatched: false,
      message: `a pipeline may have at most ${limit} steps; got ${steps.length}`,
      details: { steps: steps.length, limit },
    };
    return run;
  }
  const { continueOnError = false, readOnly = false, ...executeOptions } = options;
  let previous: unknown = {};
  for (const [index, step] of steps.entries()) {
    const resolved = resolve(step, index);
    let outcome: StepOutcome<S>;
    if ("error" in resolved) {
      outcome = { index, step, response: { error: resolved.error } };
    } else {
      const { operationId } = resolved;
      const refusal = readOnly ? writeRefusal(catalog, operationId) : undefined;
      const response = refusal !== undefined ? { error: refusal } : await executeOperation(
        catalog,
        operationId,
        resolveReferences(resolved.params, previous),
        caller,
        executeOptions,
      );
      outcome = { index, step, operationId, response };
    }
    run.outcomes.push(outcome);
    if (failureOf(outcome.response) === undefined) {
      previous = (outcome.response as { result: unknown }).result;
      run.result = previous;
      run.succeeded++;
      continue;
    }
    run.failed++;
    if (!continueOnError) break;
  }
  return run;
}

/**
 * The refusal of a step that might write, in a read-only pipeline. An id the
 * catalog does not hold is left to the executor, which reports it as unknown.
 */
function writeRefusal(catalog: Catalog, operationId: string): ErrorObject | undefined {
  const operation = catalog.get(operationId);
  if (operation === undefined || operation.annotations.readOnlyHint === true) return undefined;
  return {
    kind: "forbidden",
    dispatched: false,
    message:
      `operation '${operationId}' is not annotated read-only, and this pipeline runs only read-only operations; run writes on their own or in a write batch`,
    details: { operation_id: operationId, read_only_pipeline: true },
  };
}

/** The response of {@linkcode executePipeline}: the dex `execute` tool's pipeline shape. */
export interface PipelineResponse {
  /** One response per step that ran, in order. */
  steps: ExecuteResponse[];
  /** How many steps succeeded. */
  completed: number;
  /** The last successful step's result (null when none ran). */
  result: unknown;
  /** Present when a step failed: its error, with the step's position. */
  error?: ErrorObject & { step?: number };
}

/**
 * Runs steps named by operation id, and answers in the dex shape: every
 * step's response, how many succeeded, the last result, and the first
 * failure (where the pipeline stopped, unless `continueOnError`).
 *
 * @example
 * ```ts ignore
 * const response = await executePipeline(catalog, [
 *   { op: "dex.list_cassettes" },
 *   { op: "dex.describe", params: { target: "$prev.cassettes[0].operations[0]" } },
 * ], { scopes: ["dex:read"] });
 * response.completed; // 2
 * ```
 */
export async function executePipeline(
  catalog: Catalog,
  steps: readonly PipelineStep[],
  caller: Caller,
  options: PipelineOptions = {},
): Promise<PipelineResponse> {
  const run = await runPipeline(catalog, steps, caller, byOperationId, options);
  if (run.refused !== undefined) {
    return { steps: [], completed: 0, result: null, error: run.refused };
  }
  const response: PipelineResponse = {
    steps: run.outcomes.map((outcome) => outcome.response),
    completed: run.succeeded,
    result: run.result,
  };
  for (const outcome of run.outcomes) {
    const failure = failureOf(outcome.response);
    if (failure === undefined) continue;
    response.error = {
      ...failure,
      message: `step ${outcome.index + 1} (${outcome.step.op}): ${failure.message}`,
      step: outcome.index,
    };
    break;
  }
  return response;
}
