/**
 * Builds a surface by name.
 *
 * @module
 */
import type { Catalog } from "../ops/catalog.ts";
import type { ExecuteOptions } from "../ops/executor.ts";
import type { Caller } from "../ops/operation.ts";
import type { McpSurface, SurfaceName } from "./surface.ts";
import { compositeSurface } from "./surface_composite.ts";
import { dexSurface } from "./surface_dex.ts";
import { fullSurface } from "./surface_full.ts";

/** Builds the named surface over `catalog` for `caller`. */
export function buildSurface(
  name: SurfaceName,
  catalog: Catalog,
  caller: Caller,
  options: ExecuteOptions = {},
): McpSurface {
  switch (name) {
    case "dex":
      return dexSurface(catalog, caller, options);
    case "composite":
      return compositeSurface(catalog, caller, options);
    case "full":
      return fullSurface(catalog, caller, options);
  }
}
