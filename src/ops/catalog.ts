/**
 * The operation catalog: cassettes of operations, looked up by id, searched
 * by what they do, and filtered by what a caller may run.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { Bm25Index } from "./bm25.ts";
import { type JsonSchema, toJsonSchema } from "./json_schema.ts";
import { defaultNaming, type OperationNames, type OperationNaming } from "./naming.ts";
import {
  type Caller,
  type Cassette,
  type CatalogView,
  missingScopes,
  type Operation,
  type OperationAnnotations,
} from "./operation.ts";

/** Limits the executor enforces for every operation in a catalog. */
export interface CatalogLimits {
  /** Default time limit per operation in milliseconds. */
  timeoutMs: number;
  /** Largest result, in characters of its JSON form. */
  maxResultChars: number;
  /** Largest arguments, in characters of their JSON form. */
  maxArgumentChars: number;
  /** Most steps in one pipeline. */
  maxPipelineSteps: number;
}

/** The limits used when a catalog is created without its own. */
export const DEFAULT_LIMITS: CatalogLimits = {
  timeoutMs: 10_000,
  maxResultChars: 2_000_000,
  maxArgumentChars: 1_000_000,
  maxPipelineSteps: 16,
};

/** One search result, in the Tama.Dex shape. */
export interface OperationSummary {
  /** The operation's id. */
  operation_id: string;
  /** The cassette holding it. */
  cassette: string;
  /** The cassette's source. */
  source: string;
  /** Short title. */
  title: string;
  /** What it does. */
  description: string;
  /** JSON Schema of the arguments. */
  input_schema: JsonSchema;
  /** JSON Schema of the result. */
  output_schema: JsonSchema;
  /** MCP tool hints. */
  annotations: OperationAnnotations;
}

/** The result of {@linkcode Catalog.search}. */
export interface SearchResult {
  /** Best matches first. */
  results: OperationSummary[];
  /** More operations matched than were returned. */
  truncated: boolean;
}

/** Options for {@linkcode createCatalog}. */
export interface CatalogOptions {
  /** The cassettes, in the order their operations are listed. */
  cassettes: readonly Cassette[];
  /** Overrides of {@linkcode DEFAULT_LIMITS}. */
  limits?: Partial<CatalogLimits>;
  /**
   * What surfaces that rename operations call them (default:
   * {@linkcode defaultNaming}); `describe` shows these names and search finds
   * operations by them.
   */
  naming?: OperationNaming;
}

const OPERATION_ID = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/** An immutable catalog of operations. Build one with {@linkcode createCatalog}. */
export class Catalog implements CatalogView {
  /** Every cassette, in registration order. */
  readonly cassettes: readonly Cassette[];
  /** The executor's limits. */
  readonly limits: CatalogLimits;
  #byId = new Map<string, { operation: Operation; cassette: Cassette }>();
  /** Former ids, each to the id it now has. */
  #aliases = new Map<string, string>();
  #naming: OperationNaming;
  #index: Bm25Index | undefined;

  /** Validates and indexes `options.cassettes`. */
  constructor(options: CatalogOptions) {
    this.cassettes = options.cassettes;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#naming = options.naming ?? defaultNaming;
    const cassetteNames = new Set<string>();
    for (const cassette of options.cassettes) {
      if (cassetteNames.has(cassette.name)) {
        throw new VantageError("conflict", `cassette '${cassette.name}' is registered twice`);
      }
      cassetteNames.add(cassette.name);
      for (const operation of cassette.operations) {
        if (!OPERATION_ID.test(operation.id)) {
          throw new VantageError(
            "invalid_arguments",
            `operation id '${operation.id}' must look like 'cassette.name' (lowercase, digits, _)`,
          );
        }
        if (!operation.id.startsWith(cassette.name + ".")) {
          throw new VantageError(
            "invalid_arguments",
            `operation '${operation.id}' must start with its cassette name '${cassette.name}.'`,
          );
        }
        if (this.#byId.has(operation.id)) {
          throw new VantageError("conflict", `operation '${operation.id}' is registered twice`);
        }
        this.#byId.set(operation.id, { operation, cassette });
      }
    }
    for (const operation of this.operations()) {
      for (const alias of operation.aliases ?? []) this.#addAlias(alias, operation.id);
    }
  }

  #addAlias(alias: string, id: string): void {
    if (!OPERATION_ID.test(alias)) {
      throw new VantageError(
        "invalid_arguments",
        `alias '${alias}' of '${id}' must look like 'cassette.name' (lowercase, digits, _)`,
      );
    }
    const holder = this.#byId.has(alias) ? alias : this.#aliases.get(alias);
    if (holder !== undefined) {
      throw new VantageError(
        "conflict",
        `alias '${alias}' of '${id}' is already ${
          holder === alias ? "an operation id" : `an alias of '${holder}'`
        }`,
      );
    }
    this.#aliases.set(alias, id);
  }

  /** Every operation, in registration order. */
  operations(): readonly Operation[] {
    return [...this.#byId.values()].map((entry) => entry.operation);
  }

  /** The operation with this id (or a former id of it, see `Operation.aliases`), if any. */
  get(id: string): Operation | undefined {
    return this.#entry(id)?.operation;
  }

  #entry(id: string): { operation: Operation; cassette: Cassette } | undefined {
    return this.#byId.get(id) ?? this.#byId.get(this.#aliases.get(id) ?? "");
  }

  /** What the operation `id` is called on the surfaces that rename operations. */
  namesOf(id: string): OperationNames {
    return this.#naming(id);
  }

  /** The cassette holding the operation `id` (or a former id of it), if any. */
  cassetteOf(id: string): Cassette | undefined {
    return this.#entry(id)?.cassette;
  }

  /** The operations `caller` may run, in registration order. */
  visibleTo(caller: Caller): Operation[] {
    return this.operations().filter((operation) => missingScopes(operation, caller).length === 0);
  }

  /** The Tama.Dex summary of one operation. */
  summarize(operation: Operation): OperationSummary {
    const cassette = this.cassetteOf(operation.id);
    return {
      operation_id: operation.id,
      cassette: cassette?.name ?? operation.id.split(".")[0],
      source: cassette?.source ?? "unknown",
      title: operation.title,
      description: operation.description,
      input_schema: toJsonSchema(operation.input, "input"),
      output_schema: toJsonSchema(operation.output, "output"),
      annotations: operation.annotations,
    };
  }

  /**
   * Ranks the operations `caller` may run by BM25F over id, title,
   * description and parameter names and descriptions. An empty query lists
   * them in catalog order.
   */
  search(
    query: string,
    caller: Caller,
    options: { limit?: number; cassette?: string } = {},
  ): SearchResult {
    const limit = options.limit ?? 5;
    const allowed = new Set(
      this.visibleTo(caller)
        .filter((op) =>
          options.cassette === undefined || this.cassetteOf(op.id)?.name === options.cassette
        )
        .map((op) => op.id),
    );
    let keys: string[];
    if (query.trim() === "") {
      keys = [...allowed];
    } else {
      keys = this.#searchIndex().search(query, (key) => allowed.has(key)).map((hit) => hit.key);
    }
    return {
      results: keys.slice(0, limit).map((key) => this.summarize(this.get(key)!)),
      truncated: keys.length > limit,
    };
  }

  #searchIndex(): Bm25Index {
    if (this.#index === undefined) {
      this.#index = new Bm25Index(
        this.operations().map((operation) => {
          const names = this.namesOf(operation.id);
          // A default tool name only repeats the id's words; indexing it would re-weight them.
          const tool = names.tool === defaultNaming(operation.id).tool ? "" : names.tool;
          return {
            key: operation.id,
            fields: {
              id: `${operation.id} ${tool} ${names.composite?.name ?? ""}`,
              title: operation.title,
              description: operation.description,
              parameters: parameterText(toJsonSchema(operation.input, "input")),
            },
          };
        }),
        { weights: { id: 3, title: 2, description: 1, parameters: 1 } },
      );
    }
    return this.#index;
  }
}

/** Builds a catalog from cassettes; throws on duplicate or malformed ids. */
export function createCatalog(options: CatalogOptions): Catalog {
  return new Catalog(options);
}

/** Parameter names and descriptions, flattened for the search index. */
function parameterText(schema: JsonSchema): string {
  const parts: string[] = [];
  const properties = schema.properties;
  if (properties !== null && typeof properties === "object") {
    for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
      parts.push(name);
      if (property !== null && typeof property === "object") {
        const description = (property as Record<string, unknown>).description;
        if (typeof description === "string") parts.push(description);
      }
    }
  }
  return parts.join(" ");
}
