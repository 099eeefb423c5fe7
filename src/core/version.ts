/**
 * The version, read from deno.json so there is one place to bump it.
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };

/** Vantage's version. */
export const VERSION: string = config.version;
