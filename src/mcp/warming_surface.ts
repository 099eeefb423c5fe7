/**
 * A surface that runs a warm-up once the client has its tool list: after
 * the first `tools/list` is answered (a timer, so the answer is written
 * first), unless a call came first (that call paid the one-time costs
 * already) or the server is closing.
 *
 * @module
 */
import type { McpSurface } from "./surface.ts";

/** How long after `tools/list` the warm-up starts: enough for the answer to be written out. */
const AFTER_LIST_MS = 20;

/** Wraps `surface` so that `warm` runs once, in the background, after the first `tools/list`. */
export function warmingSurface(
  surface: McpSurface,
  warm: () => void,
  closing: () => boolean,
): McpSurface {
  let started = false;
  let called = false;
  return {
    name: surface.name,
    tools() {
      const tools = surface.tools();
      if (!started) {
        started = true;
        setTimeout(() => {
          if (!called && !closing()) warm();
        }, AFTER_LIST_MS);
      }
      return tools;
    },
    call(name, args) {
      called = true;
      return surface.call(name, args);
    },
  };
}
