/**
 * A push's JSON body, built from records encoded once: each record is
 * turned into UTF-8 JSON as it is added, so the body's size in bytes is
 * known exactly while the batch grows, and the body is those bytes joined,
 * not the batch serialized again.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * A JSON object whose members are arrays of records, in a fixed order.
 *
 * @example
 * ```ts
 * import { BatchBody } from "./batch_body.ts";
 * const body = new BatchBody(["events", "messages"]);
 * body.add("messages", { text: "hi" });
 * new TextDecoder().decode(body.bytes()); // '{"events":[],"messages":[{"text":"hi"}]}'
 * ```
 */
export class BatchBody {
  readonly #parts = new Map<string, Uint8Array[]>();
  #size: number;
  #records = 0;

  constructor(readonly sections: readonly string[]) {
    for (const section of sections) this.#parts.set(section, []);
    // `{"a":[],"b":[]}`: braces, each name quoted with its colon and brackets, commas between.
    this.#size = 2 + sections.reduce((sum, name) => sum + encoder.encode(name).length + 5, 0) +
      Math.max(0, sections.length - 1);
  }

  /** The record as it would be added, and what it would add to the body, in bytes. */
  static encode(record: unknown): Uint8Array {
    return encoder.encode(JSON.stringify(record));
  }

  /** Adds an encoded record (see {@linkcode BatchBody.encode}) to a section. */
  addEncoded(section: string, encoded: Uint8Array): void {
    const parts = this.#parts.get(section);
    if (parts === undefined) throw new Error(`no section '${section}' in this body`);
    this.#size += encoded.length + (parts.length > 0 ? 1 : 0);
    parts.push(encoded);
    this.#records++;
  }

  /** Encodes and adds a record to a section; answers its size in bytes. */
  add(section: string, record: unknown): number {
    const encoded = BatchBody.encode(record);
    this.addEncoded(section, encoded);
    return encoded.length;
  }

  /** What the body would grow by with an encoded record of `bytes` in `section`. */
  growth(section: string, bytes: number): number {
    return bytes + ((this.#parts.get(section)?.length ?? 0) > 0 ? 1 : 0);
  }

  /** The body's size in bytes. */
  get size(): number {
    return this.#size;
  }

  /** Records added. */
  get records(): number {
    return this.#records;
  }

  /** The body. */
  bytes(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.#size);
    let at = 0;
    const put = (bytes: Uint8Array) => {
      out.set(bytes, at);
      at += bytes.length;
    };
    const text = (value: string) => put(encoder.encode(value));
    text("{");
    this.sections.forEach((section, index) => {
      text(`${index > 0 ? "," : ""}${JSON.stringify(section)}:[`);
      this.#parts.get(section)!.forEach((part, i) => {
        if (i > 0) text(",");
        put(part);
      });
      text("]");
    });
    text("}");
    return out;
  }
}
