/**
 * The error of an OTLP body that is not an export request, in a module of
 * its own so the HTTP routes can tell it apart without loading the decoder
 * (protobufjs loads only when the first export arrives).
 *
 * @module
 */

/** A request body that is not a valid export request: the answer is 400 and nothing is kept. */
export class OtlpBadData extends Error {
  /** Builds the error. */
  constructor(message: string) {
    super(message);
    this.name = "OtlpBadData";
  }
}
