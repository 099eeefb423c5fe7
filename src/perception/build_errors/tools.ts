/**
 * The registry of build tools whose output is understood: each tool's parser, the commands that
 * name it, and the fingerprint of its output.
 *
 * Adding a tool:
 * 1. Write `src/perception/build_errors/<tool>.ts` exporting a {@linkcode ToolParser}: `parse`
 *    (lines in, problems out, each made with `make` from `helpers.ts`), `programs` (the program
 *    names, or a launcher and the word that picks the tool: `deno check`, `python -m pytest`)
 *    and `signature` (a regex its output matches and no other tool's does).
 * 2. Add its name to `BuildTool` in `types.ts` and one line to {@linkcode TOOL_PARSERS} below, at
 *    the place its signature should be tried (the compiler asks for the line once the name
 *    exists).
 * 3. Add its output to `tests/perception/build_errors/` with the problems expected from it.
 *
 * @module
 */
import { cargoParser } from "./cargo.ts";
import { denoCheckParser, denoLintParser, denoTestParser } from "./deno.ts";
import { eslintParser } from "./eslint.ts";
import { gccParser } from "./gcc.ts";
import { goParser } from "./go.ts";
import { jestParser } from "./jest.ts";
import { pytestParser } from "./pytest.ts";
import { tscParser } from "./tsc.ts";
import type { BuildTool, ToolParser } from "./types.ts";
import { vitestParser } from "./vitest.ts";

/** A tool with a parser: every {@linkcode BuildTool} but `unknown`. */
export type KnownTool = Exclude<BuildTool, "unknown">;

/**
 * Every tool with a parser, in the order their output signatures are tried: most specific first,
 * so each tool is named before a broader fingerprint could claim its output.
 */
export const TOOL_PARSERS: Readonly<Record<KnownTool, ToolParser>> = {
  deno_test: denoTestParser,
  deno_check: denoCheckParser,
  tsc: tscParser,
  deno_lint: denoLintParser,
  cargo: cargoParser,
  vitest: vitestParser,
  jest: jestParser,
  pytest: pytestParser,
  go: goParser,
  eslint: eslintParser,
  gcc: gccParser,
};
