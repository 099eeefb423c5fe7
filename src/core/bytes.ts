/**
 * Joining byte pieces (a body read in parts, a content's chunks) into one
 * buffer.
 *
 * @module
 */

/**
 * The pieces' bytes one after another in one array; a single piece is
 * returned as it is. `total` is their summed length when the caller has
 * counted it already.
 *
 * @example
 * ```ts
 * import { concatBytes } from "./bytes.ts";
 * concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]); // Uint8Array [1, 2, 3]
 * ```
 */
export function concatBytes(
  pieces: readonly Uint8Array[],
  total = pieces.reduce((sum, piece) => sum + piece.length, 0),
): Uint8Array {
  if (pieces.length === 1 && pieces[0].length === total) return pieces[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}
