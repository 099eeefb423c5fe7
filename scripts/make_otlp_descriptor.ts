/**
 * Turns the vendored OTLP `.proto` files (`vendor/opentelemetry-proto/`) into the JSON descriptor
 * the decoder loads (`src/agent/otlp/otlp_descriptor.json`), with protobufjs' own parser. Run
 * after replacing the `.proto` files with a newer release:
 *
 * ```sh
 * deno run --allow-read --allow-write=src/agent/otlp scripts/make_otlp_descriptor.ts
 * ```
 *
 * @module
 */
import protobuf from "protobufjs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The vendored definitions' folder. */
export const PROTO_DIR: string = fileURLToPath(
  new URL("../vendor/opentelemetry-proto/", import.meta.url),
);

/** The descriptor file the decoder imports. */
export const DESCRIPTOR_PATH: string = fileURLToPath(
  new URL("../src/agent/otlp/otlp_descriptor.json", import.meta.url),
);

/** The files whose messages Vantage decodes and answers with (their imports come along). */
const ENTRY_FILES = [
  "opentelemetry/proto/collector/trace/v1/trace_service.proto",
  "opentelemetry/proto/collector/metrics/v1/metrics_service.proto",
  "opentelemetry/proto/collector/logs/v1/logs_service.proto",
  "google/rpc/status.proto",
];

/** The descriptor text, as the file should hold it. */
export function buildDescriptorText(): string {
  const root = new protobuf.Root();
  // Imports resolve inside the vendored folder; google/protobuf/* are protobufjs' built-ins.
  root.resolvePath = (_origin: string, target: string) =>
    target.startsWith("google/protobuf/") || target.startsWith("/")
      ? target
      : join(PROTO_DIR, target);
  root.loadSync(ENTRY_FILES, { keepCase: false });
  root.resolveAll();
  return JSON.stringify(root.toJSON({ keepComments: false }), null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(DESCRIPTOR_PATH, buildDescriptorText());
  console.log(`wrote ${DESCRIPTOR_PATH}`);
}
