/**
 * The reference for the OTLP benchmark: an HTTP server that only reads each
 * export's body and decodes it with the same protobufjs types Vantage uses,
 * then answers 200 — no mapping, no storage. Prints its port on stdout.
 */
import { decodeExport } from "../../src/agent/otlp/otlp_decode.ts";
import type { OtlpSignal } from "../../src/agent/otlp/otlp_schema.ts";

let decoded = 0;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  async (request) => {
    const signal = new URL(request.url).pathname.slice("/v1/".length) as OtlpSignal;
    const body = new Uint8Array(await request.arrayBuffer());
    decodeExport(signal, body, "protobuf");
    decoded++;
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  },
);
console.log((server.addr as Deno.NetAddr).port);
Deno.addSignalListener("SIGTERM", () => {
  console.error(`decoded ${decoded}`);
  server.shutdown();
});
