/**
 * A host-defined catalog for tests: what a program embedding Vantage's
 * library would register, with a read op, a write op, a failing op, a slow op
 * and one that returns too much.
 */
import { z } from "zod";
import { createCatalog, defineOperation, mcpNaming, OperationFailure } from "../../mod.ts";
import type { Catalog } from "../../mod.ts";

/** Where the host's operations sit on the composite MCP surface: the host's own table. */
export const HOST_NAMING = mcpNaming({
  composite: {
    "notes.put": { tool: "execute", name: "put" },
    "notes.list": { tool: "query", name: "list" },
    "notes.read_note": { tool: "query", name: "get" },
  },
});

/** Builds a fresh host catalog whose notes live in `store`. */
export function hostCatalog(store: Map<string, string> = new Map()): Catalog {
  return createCatalog({
    limits: { timeoutMs: 200, maxResultChars: 5_000 },
    naming: HOST_NAMING,
    cassettes: [{
      name: "notes",
      source: "test-host",
      description: "A tiny note book",
      operations: [
        defineOperation({
          id: "notes.put",
          title: "Save a note",
          description: "Stores a note under a key, replacing any earlier one.",
          input: z.object({ key: z.string().min(1), text: z.string() }),
          output: z.object({ key: z.string(), stored: z.boolean() }),
          scopes: ["notes:write"],
          annotations: { readOnlyHint: false, destructiveHint: true },
          run: (_ctx, { key, text }) => {
            store.set(key, text);
            return { key, stored: true };
          },
        }),
        defineOperation({
          id: "notes.list",
          title: "List notes",
          description: "Lists the keys of every stored note, alphabetically.",
          input: z.object({
            prefix: z.string().optional().describe("Only keys starting with this"),
          }),
          output: z.object({ keys: z.array(z.string()) }),
          scopes: ["notes:read"],
          annotations: { readOnlyHint: true },
          run: (_ctx, { prefix }) => ({
            keys: [...store.keys()].filter((k) => k.startsWith(prefix ?? "")).sort(),
          }),
        }),
        defineOperation({
          id: "notes.read_note",
          title: "Read a note",
          description: "Returns the text of one note by its key.",
          input: z.object({ key: z.string().describe("The note's key") }),
          output: z.object({ key: z.string(), text: z.string() }),
          scopes: ["notes:read"],
          annotations: { readOnlyHint: true },
          run: (_ctx, { key }) => {
            const text = store.get(key);
            if (text === undefined) throw new OperationFailure(`no note '${key}'`, { key });
            return { key, text };
          },
        }),
        defineOperation({
          id: "notes.slow",
          title: "Sleep",
          description: "Waits longer than the time limit.",
          input: z.object({}),
          output: z.object({ aborted: z.boolean() }),
          scopes: ["notes:read"],
          annotations: { readOnlyHint: true },
          run: async (ctx) => {
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            return { aborted: ctx.signal.aborted };
          },
        }),
        defineOperation({
          id: "notes.dump",
          title: "Dump",
          description: "Returns a very large text.",
          input: z.object({}),
          output: z.object({ text: z.string() }),
          scopes: ["notes:read"],
          annotations: { readOnlyHint: true },
          run: () => ({ text: "x".repeat(10_000) }),
        }),
        defineOperation({
          id: "notes.broken",
          title: "Broken",
          description: "Returns a result that breaks its own output schema.",
          input: z.object({}),
          output: z.object({ count: z.number() }),
          scopes: ["notes:read"],
          annotations: { readOnlyHint: true },
          run: () => ({ count: "many" as unknown as number }),
        }),
      ],
    }],
  });
}
