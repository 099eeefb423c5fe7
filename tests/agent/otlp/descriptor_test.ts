/**
 * The descriptor the decoder loads is what protobufjs makes of the vendored
 * official `.proto` files: regenerated here and compared, so neither can
 * change without the other.
 */
import assert from "node:assert/strict";
import { buildDescriptorText, DESCRIPTOR_PATH } from "../../../scripts/make_otlp_descriptor.ts";

Deno.test("otlp_descriptor.json is generated from the vendored OTLP definitions", async () => {
  const stored = JSON.parse(await Deno.readTextFile(DESCRIPTOR_PATH));
  assert.deepEqual(
    stored,
    JSON.parse(buildDescriptorText()),
    "run scripts/make_otlp_descriptor.ts after changing vendor/opentelemetry-proto/",
  );
  const version = await Deno.readTextFile(
    new URL("../../../vendor/opentelemetry-proto/VERSION.md", import.meta.url),
  );
  assert.match(version, /v1\.11\.0/);
});
