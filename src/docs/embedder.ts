/**
 * Text embeddings for vector search: what an embedder is, and the vector
 * arithmetic and storage layout every embedder's vectors share.
 *
 * Two embedders ship: `HashedEmbedder` (`hashed_embedder.ts`) works offline with nothing to
 * download; `HttpEmbedder` (`http_embedder.ts`) calls a real model behind an OpenAI-compatible
 * or Ollama endpoint when one is configured.
 *
 * @module
 */
/** Anything that turns texts into fixed-size vectors. */
export interface Embedder {
  /** Stable identifier of model and settings; vectors from different ids must not be compared. */
  readonly id: string;
  /** Vector length (0 while an `HttpEmbedder` has not yet learned it). */
  readonly dimensions: number;
  /** Embeds each text; the result has one vector per input, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Returns `vector` scaled to unit length, in place; a zero vector stays zero.
 *
 * @example
 * ```ts
 * import { normalizeL2 } from "./embedder.ts";
 *
 * normalizeL2(new Float32Array([3, 4])); // Float32Array [0.6, 0.8]
 * ```
 */
export function normalizeL2(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is all zeros.
 *
 * @example
 * ```ts
 * import { cosine } from "./embedder.ts";
 *
 * cosine(new Float32Array([1, 0]), new Float32Array([1, 1])); // ≈ 0.7071
 * ```
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new RangeError(
      `Cannot compare vectors of different lengths (${a.length} and ${b.length})`,
    );
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}

/**
 * Serializes a vector as little-endian float32 bytes, the layout to keep in a database BLOB.
 *
 * @example
 * ```ts
 * import { vectorFromBytes, vectorToBytes } from "./embedder.ts";
 *
 * vectorFromBytes(vectorToBytes(new Float32Array([0.5, -1]))); // Float32Array [0.5, -1]
 * ```
 */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  // On a little-endian machine (all Deno targets) the array's own bytes are the layout.
  if (LITTLE_ENDIAN) {
    return new Uint8Array(
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
    );
  }
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads a vector written by {@linkcode vectorToBytes}; throws when the length is not a multiple
 * of 4.
 *
 * @example
 * ```ts
 * import { vectorFromBytes } from "./embedder.ts";
 *
 * vectorFromBytes(new Uint8Array([0, 0, 128, 63])); // Float32Array [1]
 * ```
 */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.length % 4 !== 0) {
    throw new RangeError(`Vector blob has ${bytes.length} bytes, not a multiple of 4`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
