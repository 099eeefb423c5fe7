import assert from "node:assert/strict";
import { cosine, normalizeL2, vectorFromBytes, vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder, STOPWORDS, tokenizeWords } from "../../src/docs/hashed_embedder.ts";
import { HttpEmbedder } from "../../src/docs/http_embedder.ts";

Deno.test("tokenizeWords lowercases and splits identifiers", () => {
  assert.deepEqual(tokenizeWords("parseHTTPRequest(x)"), [
    "parsehttprequest",
    "parse",
    "http",
    "request",
    "x",
  ]);
  assert.deepEqual(tokenizeWords("get_user_name, Ünïcode!"), [
    "get_user_name",
    "get",
    "user",
    "name",
    "ünïcode",
  ]);
  assert.deepEqual(tokenizeWords("  ...  "), []);
});

Deno.test("HashedEmbedder: unit vectors, deterministic, configurable size", async () => {
  const embedder = new HashedEmbedder();
  assert.equal(embedder.dimensions, 384);
  assert.equal(embedder.id, "hashed-v1-384");
  const [a, b] = await embedder.embed(["Content addressed storage", "Content addressed storage"]);
  assert.equal(a.length, 384);
  assert.deepEqual(a, b);
  const norm = Math.sqrt(a.reduce((sum, v) => sum + v * v, 0));
  assert.ok(Math.abs(norm - 1) < 1e-5);
  assert.deepEqual(new HashedEmbedder().embedOne("Content addressed storage"), a);
  assert.equal(new HashedEmbedder({ dimensions: 64 }).embedOne("x y z").length, 64);
  assert.throws(() => new HashedEmbedder({ dimensions: 3 }), /dimensions/);
});

Deno.test("HashedEmbedder: related texts are closer than unrelated ones", async () => {
  const embedder = new HashedEmbedder();
  const [query, near, far, typo] = await embedder.embed([
    "open the sqlite database connection",
    "opening a SQLite database file and connecting",
    "render the dashboard chart with colours",
    "open the sqllite databse conection",
  ]);
  assert.ok(cosine(query, near) > cosine(query, far) + 0.2);
  assert.ok(
    cosine(query, typo) > cosine(query, far) + 0.2,
    "character n-grams should tolerate typos",
  );
  const [snake, camel] = await embedder.embed(["get_user_name", "getUserName"]);
  assert.ok(cosine(snake, camel) > 0.5);
});

Deno.test("HashedEmbedder: stopwords and empty text carry no signal", async () => {
  const embedder = new HashedEmbedder();
  const [empty, onlyStopwords] = await embedder.embed(["", "the and of to is"]);
  assert.ok(empty.every((v) => v === 0));
  assert.ok(onlyStopwords.every((v) => v === 0));
  assert.ok(STOPWORDS.has("the") && !STOPWORDS.has("database"));
  assert.equal(cosine(empty, embedder.embedOne("anything")), 0);
});

Deno.test("HashedEmbedder: word order matters through bigrams", () => {
  const embedder = new HashedEmbedder();
  const a = embedder.embedOne("index build cache");
  const b = embedder.embedOne("build index cache");
  assert.ok(cosine(a, b) < 0.999);
  assert.ok(cosine(a, b) > 0.6);
});

Deno.test("cosine, normalizeL2 and vector bytes", () => {
  assert.ok(
    Math.abs(cosine(new Float32Array([1, 0]), new Float32Array([1, 1])) - Math.SQRT1_2) < 1e-6,
  );
  assert.throws(() => cosine(new Float32Array(2), new Float32Array(3)), /different lengths/);
  assert.deepEqual(normalizeL2(new Float32Array([3, 4])), new Float32Array([0.6, 0.8]));
  assert.deepEqual(normalizeL2(new Float32Array(2)), new Float32Array(2));
  const vector = new Float32Array([0.5, -1, 3.25]);
  const bytes = vectorToBytes(vector);
  assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 0, 63]);
  assert.deepEqual(vectorFromBytes(bytes), vector);
  assert.deepEqual(vectorFromBytes(bytes.slice(4)), new Float32Array([-1, 3.25]));
  assert.throws(() => vectorFromBytes(new Uint8Array(5)), /multiple of 4/);
});

interface Recorded {
  path: string;
  body: { model: string; input: string[] };
  authorization: string | null;
}

async function withServer(
  respond: (path: string, body: { model: string; input: string[] }) => Response,
  run: (url: string, requests: Recorded[]) => Promise<void>,
): Promise<void> {
  const requests: Recorded[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json();
    const path = new URL(request.url).pathname;
    requests.push({ path, body, authorization: request.headers.get("authorization") });
    return respond(path, body);
  });
  try {
    await run(`http://127.0.0.1:${server.addr.port}`, requests);
  } finally {
    await server.shutdown();
  }
}

const fakeVector = (text: string) => [text.length, 1, 0];

Deno.test("HttpEmbedder speaks the OpenAI embeddings API, in batches", async () => {
  await withServer(
    (_path, body) =>
      Response.json({
        // Reversed on purpose: results must be put back in input order by `index`.
        data: body.input.map((text, index) => ({ index, embedding: fakeVector(text) })).reverse(),
      }),
    async (url, requests) => {
      const embedder = new HttpEmbedder({ url, model: "m1", apiKey: "k", batchSize: 2 });
      assert.equal(embedder.id, "openai:m1");
      assert.equal(embedder.dimensions, 0);
      const vectors = await embedder.embed(["a", "bb", "ccc"]);
      assert.equal(embedder.dimensions, 3);
      assert.equal(requests.length, 2);
      assert.equal(requests[0].path, "/v1/embeddings");
      assert.equal(requests[0].authorization, "Bearer k");
      assert.deepEqual(requests[0].body.input, ["a", "bb"]);
      assert.equal(requests[0].body.model, "m1");
      // Normalized by default: [len, 1, 0] / |…|.
      for (const [i, vector] of vectors.entries()) {
        const len = i + 1;
        const norm = Math.hypot(len, 1);
        assert.ok(Math.abs(vector[0] - len / norm) < 1e-6);
      }
      const raw = new HttpEmbedder({ url: `${url}/v1`, model: "m1", normalize: false });
      assert.deepEqual(await raw.embed(["abcd"]), [new Float32Array([4, 1, 0])]);
      assert.equal(requests.at(-1)?.path, "/v1/embeddings");
    },
  );
});

Deno.test("HttpEmbedder speaks the Ollama /api/embed API", async () => {
  await withServer(
    (_path, body) => Response.json({ model: body.model, embeddings: body.input.map(fakeVector) }),
    async (url, requests) => {
      const embedder = new HttpEmbedder({ url, api: "ollama", model: "nomic", normalize: false });
      assert.equal(embedder.id, "ollama:nomic");
      assert.deepEqual(await embedder.embed(["xy"]), [new Float32Array([2, 1, 0])]);
      assert.equal(requests[0].path, "/api/embed");
      assert.equal(requests[0].authorization, null);
      assert.deepEqual(await embedder.embed([]), []);
      assert.equal(requests.length, 1);
    },
  );
});

Deno.test("HttpEmbedder reports HTTP errors, bad shapes and dimension mismatches", async () => {
  await withServer(
    (path, body) => {
      if (body.model === "missing") return new Response("model not found", { status: 404 });
      if (body.model === "shape") return Response.json({ nope: true });
      if (body.model === "count") return Response.json({ embeddings: [[1, 2]] });
      return Response.json({ embeddings: body.input.map(() => [1, 2]), path });
    },
    async (url) => {
      const make = (model: string, dimensions?: number) =>
        new HttpEmbedder({ url, api: "ollama", model, dimensions });
      await assert.rejects(make("missing").embed(["a"]), /HTTP 404: model not found/);
      await assert.rejects(make("shape").embed(["a"]), /lacks an "embeddings" array/);
      await assert.rejects(make("count").embed(["a", "b"]), /1 vectors for 2 inputs/);
      await assert.rejects(make("ok", 3).embed(["a"]), /2 dimensions, expected 3/);
    },
  );
  await assert.rejects(
    new HttpEmbedder({ url: "http://127.0.0.1:9", model: "m", timeoutMs: 2000 }).embed(["a"]),
    /Embedding request to http:\/\/127\.0\.0\.1:9\/v1\/embeddings failed/,
  );
  assert.throws(
    () => new HttpEmbedder({ url: "not a url", model: "m" }),
    /Invalid embedding server URL/,
  );
  assert.throws(() => new HttpEmbedder({ url: "http://x", model: "" }), /model/);
});

Deno.test("the one-pass ASCII word count embeds exactly as the general tokenizer does", () => {
  const embedder = new HashedEmbedder();
  let state = 11;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 0x100000000;
  };
  const vocabulary = [
    "The",
    "the",
    "parseHTTPRequest",
    "get_user_name",
    "getUserName",
    "IO",
    "x",
    "A",
    "an",
    "index",
    "Index",
    "INDEX",
    "build",
    "v2",
    "utf8Decoder",
    "__init__",
    "snake_Case",
    "and",
    "XMLHttpRequest",
    "db",
    "SQLite",
    "sqlite",
    "42",
    "_",
    "ok",
  ];
  for (let round = 0; round < 100; round++) {
    const words: string[] = [];
    const length = Math.floor(random() * 300);
    for (let i = 0; i < length; i++) {
      const word = vocabulary[Math.floor(random() * vocabulary.length)];
      words.push(word + [" ", " ", ", ", ".\n", "(", ")"][Math.floor(random() * 6)]);
    }
    const text = words.join("");
    // An em dash is not a word character, but it sends the text down the general path.
    assert.deepEqual(
      embedder.embedOne(text),
      embedder.embedOne(`${text} \u2014`),
      `round ${round}: ${text.slice(0, 80)}`,
    );
  }
});
