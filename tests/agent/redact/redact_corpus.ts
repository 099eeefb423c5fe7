/**
 * The labelled corpus for secret redaction: fake secrets in the shapes real ones have (each
 * made from a seeded generator, so no key-looking string is written in this repository), in
 * the places agents print them, and ordinary code and prose that must come through intact.
 */

// mulberry32: deterministic, so a failing sample is the same on every run.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = generator(20_240_615);

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";
const B64URL = ALNUM + "-_";

/** `n` random characters from `alphabet`, with at least one digit when it has digits. */
function chars(alphabet: string, n: number): string {
  for (;;) {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * alphabet.length)];
    if (!/[0-9]/.test(alphabet) || /[0-9]/.test(out) || n < 6) return out;
  }
}

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function uuid(): string {
  return `${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-a${chars(HEX, 3)}-${chars(HEX, 12)}`;
}

function pemBody(prefix: string, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push((i === 0 ? prefix : "") + chars(B64, i === 0 ? 64 - prefix.length : 64));
  }
  return out.join("\n");
}

/** One labelled secret: the text an agent might see, and the secret values inside it. */
export interface SecretSample {
  /** What shape this is. */
  name: string;
  /** The family, for the tally: provider, token, private key, connection, assignment, glued. */
  group: "provider" | "token" | "private_key" | "connection" | "assignment" | "glued";
  /** The text around the secret, as an agent might print or read it. */
  text: string;
  /** The secret values that must not survive redaction. */
  secrets: string[];
}

function sample(
  group: SecretSample["group"],
  name: string,
  secret: string,
  around: (secret: string) => string = (s) => `using ${s} for the next request`,
): SecretSample {
  return { group, name, text: around(secret), secrets: [secret] };
}

const jwtHeader = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
function jwt(payload: Record<string, unknown>): string {
  return `${jwtHeader}.${base64url(JSON.stringify(payload))}.${chars(B64URL, 43)}`;
}

const grafanaCloud = `glc_${
  btoa(JSON.stringify({ o: "123456", n: "stack-1-read", k: chars(ALNUM, 24), m: { r: "us" } }))
}`;
// A 1Password service-account token is base64 of a JSON object; its length is chosen so the
// encoding ends in `fQ==`, as real ones do.
function onePasswordToken(): string {
  for (let extra = 0;; extra++) {
    const json = JSON.stringify({
      accountId: chars(UPPER + DIGITS, 26 + extra),
      signInAddress: "my.1password.com",
      userAuth: {
        method: "SRPg-4096",
        alg: "PBES2g-HS256",
        iterations: 650000,
        salt: chars(B64URL, 22),
      },
      email: "agent@example.net",
      srpX: chars(HEX, 64),
      muk: { alg: "A256GCM", ext: true, k: chars(B64URL, 43), kty: "oct", kid: "mp" },
      secretKey: `A3-${chars(UPPER + DIGITS, 6)}-${chars(UPPER + DIGITS, 6)}`,
      deviceUuid: chars("abcdefghijklmnopqrstuvwxyz234567", 26),
    });
    if (json.length % 3 === 1) return `ops_${btoa(json)}`;
  }
}
const onePassword = onePasswordToken();

const rsaBody = pemBody("MIIEpAIBAAKCAQEA", 6);
const ecBody = pemBody("MHcCAQEEI", 3);
const opensshBody = pemBody(
  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
  5,
);
const pkcs8Body = pemBody("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 6);
const encryptedBody = pemBody("MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 6);
const pgpBody = `lQOYBGX${chars(B64, 57)}\n${pemBody("", 5)}\n=${chars(B64, 4)}`;
const serviceAccountKey = pemBody("MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ", 5).replace(
  /\n/g,
  "\\n",
);

const password = `${chars(ALNUM, 6)}!${chars(ALNUM, 6)}`;

/** The labelled secrets: every shape must be fully redacted. */
export const SECRET_SAMPLES: readonly SecretSample[] = [
  // Providers' keys, bare in text.
  sample("provider", "Anthropic API key", `sk-ant-api03-${chars(B64URL, 93)}AA`),
  sample("provider", "Anthropic admin key", `sk-ant-admin01-${chars(B64URL, 93)}AA`),
  sample("provider", "OpenAI legacy key", `sk-${chars(ALNUM, 20)}T3BlbkFJ${chars(ALNUM, 20)}`),
  sample(
    "provider",
    "OpenAI project key",
    `sk-proj-${chars(B64URL, 74)}T3BlbkFJ${chars(B64URL, 74)}`,
  ),
  sample(
    "provider",
    "OpenAI service-account key",
    `sk-svcacct-${chars(B64URL, 74)}T3BlbkFJ${chars(B64URL, 74)}`,
  ),
  sample(
    "provider",
    "OpenAI admin key",
    `sk-admin-${chars(B64URL, 58)}T3BlbkFJ${chars(B64URL, 58)}`,
  ),
  sample("provider", "GitHub classic PAT", `ghp_${chars(ALNUM, 36)}`),
  sample("provider", "GitHub OAuth token", `gho_${chars(ALNUM, 36)}`),
  sample("provider", "GitHub user-to-server token", `ghu_${chars(ALNUM, 36)}`),
  sample("provider", "GitHub app installation token", `ghs_${chars(ALNUM, 36)}`),
  sample("provider", "GitHub refresh token", `ghr_${chars(ALNUM, 36)}`),
  sample(
    "provider",
    "GitHub fine-grained PAT",
    `github_pat_11${chars(UPPER + DIGITS, 20)}_${chars(ALNUM, 59)}`,
  ),
  sample("provider", "GitLab PAT", `glpat-${chars(B64URL, 20)}`),
  sample("provider", "GitLab deploy token", `gldt-${chars(B64URL, 20)}`),
  sample("provider", "GitLab runner token", `glrt-${chars(B64URL, 20)}`),
  sample("provider", "AWS access key id", `AKIA${chars(UPPER + DIGITS, 16)}`),
  sample("provider", "AWS temporary access key id", `ASIA${chars(UPPER + DIGITS, 16)}`),
  sample(
    "provider",
    "AWS secret access key (credentials file)",
    chars(B64, 40),
    (s) =>
      `[default]\naws_access_key_id = AKIA${
        chars(UPPER + DIGITS, 16)
      }\naws_secret_access_key = ${s}\n`,
  ),
  sample(
    "provider",
    "AWS secret access key (CloudFormation)",
    chars(B64, 40),
    (s) => `  SecretAccessKey: ${s}\n`,
  ),
  sample("provider", "GCP API key", `AIza${chars(B64URL, 35)}`),
  {
    group: "provider",
    name: "GCP service-account key JSON",
    text: `{\n  "type": "service_account",\n  "project_id": "demo-project",\n  "private_key_id": "${
      chars(HEX, 40)
    }",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${serviceAccountKey}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@demo-project.iam.gserviceaccount.com"\n}`,
    secrets: serviceAccountKey.split("\\n"),
  },
  sample(
    "provider",
    "Azure storage connection string",
    `${chars(B64, 86)}==`,
    (s) =>
      `DefaultEndpointsProtocol=https;AccountName=demoacct;AccountKey=${s};EndpointSuffix=core.windows.net`,
  ),
  sample(
    "provider",
    "Azure SAS URL",
    `${chars(ALNUM, 43)}%3D`,
    (s) =>
      `https://demoacct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig=${s}`,
  ),
  sample(
    "provider",
    "Azure Service Bus connection string",
    `${chars(B64, 43)}=`,
    (s) =>
      `Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${s}`,
  ),
  sample("provider", "Azure AD client secret", `${chars(ALNUM, 3)}8Q~${chars(ALNUM + "_~.-", 34)}`),
  sample(
    "provider",
    "Slack bot token",
    `xoxb-${chars(DIGITS, 12)}-${chars(DIGITS, 13)}-${chars(ALNUM, 24)}`,
  ),
  sample(
    "provider",
    "Slack user token",
    `xoxp-${chars(DIGITS, 12)}-${chars(DIGITS, 12)}-${chars(DIGITS, 13)}-${chars(HEX, 32)}`,
  ),
  sample(
    "provider",
    "Slack incoming webhook",
    `T${chars(UPPER + DIGITS, 8)}/B${chars(UPPER + DIGITS, 10)}/${chars(ALNUM, 24)}`,
    (s) => `curl -X POST https://hooks.slack.com/services/${s} -d '{"text":"done"}'`,
  ),
  sample("provider", "Stripe live secret key", `sk_live_51${chars(ALNUM, 97)}`),
  sample("provider", "Stripe test secret key", `sk_test_51${chars(ALNUM, 97)}`),
  sample("provider", "Stripe restricted key", `rk_live_51${chars(ALNUM, 97)}`),
  sample("provider", "Stripe webhook secret", `whsec_${chars(ALNUM, 32)}`),
  sample("provider", "Twilio auth token", chars(HEX, 32), (s) => `export TWILIO_AUTH_TOKEN=${s}`),
  sample("provider", "Twilio API key secret", chars(ALNUM, 32), (s) => `TWILIO_API_SECRET="${s}"`),
  sample("provider", "SendGrid API key", `SG.${chars(B64URL, 22)}.${chars(B64URL, 43)}`),
  sample("provider", "Mailgun API key", `key-${chars(HEX, 32)}`),
  sample(
    "provider",
    "Mailgun API key (new format)",
    `${chars(HEX, 32)}-${chars(HEX, 8)}-${chars(HEX, 8)}`,
    (s) => `MAILGUN_API_KEY=${s}`,
  ),
  sample("provider", "npm access token", `npm_${chars(ALNUM, 36)}`),
  sample(
    "provider",
    "npm legacy auth token in .npmrc",
    uuid(),
    (s) => `//registry.npmjs.org/:_authToken=${s}\n`,
  ),
  sample("provider", "PyPI API token", `pypi-AgEIcHlwaS5vcmc${chars(B64URL, 120)}`),
  sample("provider", "Docker Hub PAT", `dckr_pat_${chars(B64URL, 27)}`),
  sample("provider", "Hugging Face token", `hf_${chars(UPPER + LOWER, 34)}`),
  sample("provider", "Hugging Face org token", `api_org_${chars(UPPER + LOWER, 34)}`),
  sample("provider", "Databricks token", `dapi${chars(HEX, 32)}`),
  sample("provider", "DigitalOcean PAT", `dop_v1_${chars(HEX, 64)}`),
  sample("provider", "DigitalOcean OAuth token", `doo_v1_${chars(HEX, 64)}`),
  sample("provider", "Shopify access token", `shpat_${chars(HEX, 32)}`),
  sample("provider", "Shopify shared secret", `shpss_${chars(HEX, 32)}`),
  sample("provider", "Square access token", `EAAA${chars(B64URL, 60)}`),
  sample("provider", "Square OAuth secret", `sq0csp-${chars(B64URL, 43)}`),
  sample(
    "provider",
    "Discord bot token (env)",
    `MT${chars(ALNUM, 24)}.${chars(B64URL, 6)}.${chars(B64URL, 38)}`,
    (s) => `DISCORD_BOT_TOKEN=${s}`,
  ),
  sample(
    "provider",
    "Discord bot token (header)",
    `MT${chars(ALNUM, 24)}.${chars(B64URL, 6)}.${chars(B64URL, 38)}`,
    (s) => `curl -H "Authorization: Bot ${s}" https://discord.com/api/v10/users/@me`,
  ),
  sample(
    "provider",
    "Discord webhook URL",
    chars(B64URL, 68),
    (s) => `https://discord.com/api/webhooks/${chars(DIGITS, 18)}/${s}`,
  ),
  sample("provider", "Telegram bot token", `${chars(DIGITS, 10)}:AA${chars(B64URL, 33)}`),
  sample(
    "provider",
    "Heroku API key (env)",
    uuid(),
    (s) => `heroku config -a demo  # HEROKU_API_KEY=${s}`,
  ),
  sample("provider", "Heroku platform token", `HRKU-AA${chars(B64URL, 58)}`),
  sample(
    "provider",
    "Cloudflare API token (env)",
    chars(B64URL, 40),
    (s) => `CLOUDFLARE_API_TOKEN=${s}`,
  ),
  sample("provider", "Cloudflare user token", `cfut_${chars(ALNUM, 40)}${chars(HEX, 8)}`),
  sample("provider", "Vercel access token", `vcp_${chars(ALNUM, 56)}`),
  sample(
    "provider",
    "Vercel legacy token (env)",
    chars(ALNUM, 24),
    (s) => `VERCEL_TOKEN=${s} vercel deploy`,
  ),
  sample(
    "provider",
    "Supabase service-role key",
    jwt({
      iss: "supabase",
      ref: chars(LOWER, 20),
      role: "service_role",
      iat: 1700000000,
      exp: 2000000000,
    }),
    (s) => `SUPABASE_SERVICE_ROLE_KEY=${s}`,
  ),
  sample("provider", "Supabase secret key", `sb_secret_${chars(B64URL, 32)}`),
  sample("provider", "Supabase personal access token", `sbp_${chars(HEX, 40)}`),
  sample(
    "provider",
    "Firebase Cloud Messaging server key",
    `AAAA${chars(B64URL, 7)}:APA91b${chars(B64URL, 134)}`,
  ),
  sample("provider", "OpenRouter key", `sk-or-v1-${chars(HEX, 64)}`),
  sample("provider", "Groq key", `gsk_${chars(ALNUM, 52)}`),
  sample("provider", "Replicate token", `r8_${chars(ALNUM, 37)}`),
  sample("provider", "Linear API key", `lin_api_${chars(ALNUM, 40)}`),
  sample("provider", "Notion integration token", `ntn_${chars(DIGITS, 11)}${chars(ALNUM, 35)}`),
  sample("provider", "Grafana Cloud token", grafanaCloud),
  sample("provider", "Grafana service-account token", `glsa_${chars(ALNUM, 32)}_${chars(HEX, 8)}`),
  sample("provider", "HashiCorp Vault token", `hvs.${chars(B64URL, 95)}`),
  sample("provider", "Tailscale auth key", `tskey-auth-k${chars(ALNUM, 11)}-${chars(ALNUM, 33)}`),
  sample("provider", "1Password service-account token", onePassword),
  sample("provider", "Figma token", `figd_${chars(B64URL, 40)}`),
  sample(
    "provider",
    "age secret key",
    `AGE-SECRET-KEY-1${chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)}`,
  ),
  // Tokens in headers and JWTs.
  sample("token", "JWT", jwt({ sub: "1234567890", name: "Agent", iat: 1700000000 })),
  sample(
    "token",
    "JWT in a Bearer header",
    jwt({ sub: "svc", scope: "admin", exp: 2000000000 }),
    (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.net/v1/me`,
  ),
  sample("token", "opaque Bearer token", chars(B64URL, 40), (s) => `Bearer ${s}`),
  sample(
    "token",
    "Basic auth header",
    btoa(`deploy:${password}`),
    (s) => `{"headers": {"Authorization": "Basic ${s}"}}`,
  ),
  sample("token", "X-Api-Key header", chars(HEX, 32), (s) => `X-Api-Key: ${s}\r\nAccept: */*`),
  sample("token", "Cookie header", chars(B64URL, 32), (s) => `Cookie: sessionid=${s}; theme=dark`),
  // PEM private keys.
  {
    group: "private_key",
    name: "RSA private key",
    text:
      `cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${rsaBody}\n-----END RSA PRIVATE KEY-----\n`,
    secrets: rsaBody.split("\n"),
  },
  {
    group: "private_key",
    name: "EC private key",
    text: `-----BEGIN EC PRIVATE KEY-----\n${ecBody}\n-----END EC PRIVATE KEY-----`,
    secrets: ecBody.split("\n"),
  },
  {
    group: "private_key",
    name: "OpenSSH private key",
    text:
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${opensshBody}\n-----END OPENSSH PRIVATE KEY-----\n`,
    secrets: opensshBody.split("\n"),
  },
  {
    group: "private_key",
    name: "PKCS#8 private key",
    text: `key.pem:\n-----BEGIN PRIVATE KEY-----\n${pkcs8Body}\n-----END PRIVATE KEY-----`,
    secrets: pkcs8Body.split("\n"),
  },
  {
    group: "private_key",
    name: "encrypted PKCS#8 private key",
    text:
      `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${encryptedBody}\n-----END ENCRYPTED PRIVATE KEY-----`,
    secrets: encryptedBody.split("\n"),
  },
  {
    group: "private_key",
    name: "PGP private key block",
    text:
      `-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n${pgpBody}\n-----END PGP PRIVATE KEY BLOCK-----`,
    secrets: pgpBody.split("\n").filter((line) => line.length >= 8),
  },
  {
    group: "private_key",
    name: "private key cut off mid-body",
    text: `-----BEGIN RSA PRIVATE KEY-----\n${rsaBody.slice(0, 150)}`,
    secrets: rsaBody.slice(0, 150).split("\n"),
  },
  // Connection strings with passwords.
  sample(
    "connection",
    "PostgreSQL URL",
    password,
    (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`,
  ),
  sample("connection", "MySQL URL", password, (s) => `mysql://root:${s}@127.0.0.1:3306/shop`),
  sample(
    "connection",
    "MongoDB SRV URL",
    password,
    (s) =>
      `mongodb+srv://svc-user:${s}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority`,
  ),
  sample("connection", "Redis URL", password, (s) => `REDIS_URL=redis://:${s}@cache:6379/0`),
  sample("connection", "AMQP URL", password, (s) => `amqp://worker:${s}@rabbit.local:5672/jobs`),
  sample(
    "connection",
    "HTTPS URL with credentials",
    password,
    (s) => `git clone https://builder:${s}@git.internal/team/app.git`,
  ),
  sample(
    "connection",
    "ADO.NET connection string",
    password,
    (s) => `Server=tcp:sql.internal,1433;Database=app;User Id=sa;Password=${s};Encrypt=true;`,
  ),
  sample(
    "connection",
    "curl -u credentials",
    password,
    (s) => `curl -u deploy:${s} https://ci.internal/api/jobs`,
  ),
  // Assignment forms.
  sample("assignment", "env KEY=value", password, (s) => `DB_PASSWORD=${s} npm start`),
  sample(
    "assignment",
    'export KEY="value"',
    chars(ALNUM, 32),
    (s) => `export OPENAI_API_KEY="${s}"`,
  ),
  sample(
    "assignment",
    "YAML password",
    "hunter2222",
    (s) => `database:\n  user: app\n  password: ${s}\n`,
  ),
  sample("assignment", "YAML api_key", "abcd1234efgh5678", (s) => `api_key: ${s}`),
  sample(
    "assignment",
    "YAML client_secret",
    chars(B64URL, 40),
    (s) => `oauth:\n  client_id: web\n  client_secret: ${s}\n`,
  ),
  sample(
    "assignment",
    'JSON "key": "value"',
    chars(ALNUM, 24),
    (s) => `{"user": "ci", "token": "${s}"}`,
  ),
  sample(
    "assignment",
    "JSON escaped inside a string",
    chars(ALNUM, 24),
    (s) => `"content": "{\\"api_key\\": \\"${s}\\", \\"model\\": \\"m\\"}"`,
  ),
  sample("assignment", "TOML key = 'value'", chars(ALNUM, 20), (s) => `[auth]\nsecret = '${s}'\n`),
  sample(
    "assignment",
    "INI key = value",
    password,
    (s) => `[mysql]\nuser = app\npassword = ${s}\n`,
  ),
  sample(
    "assignment",
    "CLI --password value",
    password,
    (s) => `psql --username app --password ${s} -h db`,
  ),
  sample(
    "assignment",
    "CLI --api-key=value",
    chars(ALNUM, 32),
    (s) => `tool run --api-key=${s} --verbose`,
  ),
  sample(
    "assignment",
    "URL query ?access_token=",
    chars(B64URL, 40),
    (s) => `GET /v1/items?access_token=${s}&page=2`,
  ),
  sample(
    "assignment",
    "URL query &token=",
    chars(ALNUM, 32),
    (s) => `https://example.net/feed?user=3&token=${s}`,
  ),
  sample("assignment", "PHP 'key' => 'value'", password, (s) => `'password' => '${s}',`),
  sample("assignment", 'Go token := "value"', chars(ALNUM, 30), (s) => `token := "${s}"`),
  sample(
    "assignment",
    "Python keyword argument",
    password,
    (s) => `client = Client(user="ci", password="${s}")`,
  ),
  sample(
    "assignment",
    "docker run -e",
    password,
    (s) => `docker run -e POSTGRES_PASSWORD=${s} postgres:16`,
  ),
  sample(
    "assignment",
    "Kubernetes secret literal",
    password,
    (s) => `kubectl create secret generic db --from-literal=password=${s}`,
  ),
  // Keys glued to a word.
  sample(
    "glued",
    "Anthropic key glued to a name",
    `sk-ant-api03-${chars(B64URL, 93)}AA`,
    (s) => `x_${s}`,
  ),
  sample(
    "glued",
    "AWS key id glued to a name",
    `AKIA${chars(UPPER + DIGITS, 16)}`,
    (s) => `AWS_KEY_${s}`,
  ),
  sample(
    "glued",
    "GitHub token glued to a name",
    `ghp_${chars(ALNUM, 36)}`,
    (s) => `GH_TOKEN_${s}`,
  ),
  sample("glued", "OpenAI key glued to a word", `sk-proj-${chars(B64URL, 40)}`, (s) => `key${s}`),
];

/**
 * Ordinary code and prose that names secrets without holding one; each line must come
 * through unchanged.
 */
export const TRICKY_NEGATIVES: readonly string[] = [
  "max_tokens=4096 input_tokens=12 output_tokens=3",
  'usage: {"input_tokens": 1200, "cache_read_input_tokens": 800, "token_count": 5}',
  "token_count: 120",
  "password_hint: the name of your first pet",
  "the password field is required",
  "PASSWORD=$DB_PASSWORD ./run",
  'const password = process.env.DB_PASSWORD ?? "";',
  "password: string;",
  "token?: string | null;",
  "readonly apiKey: string;",
  "apiKey: options.apiKey,",
  "const token = await getToken(scope);",
  'api_key = os.environ["OPENAI_API_KEY"]',
  "secret = None",
  "if token == expected_token:",
  "headers.Authorization = `Bearer ${token}`;",
  "Authorization: Bearer <token>",
  "authorization: req.headers.authorization,",
  "password: z.string().min(12),",
  "credentials: 'include',",
  "key: user.id,",
  'cacheKey = "user:" + id',
  "sortKey: 'createdAt',",
  "PUBLIC_KEY=/etc/ssl/certs/server.pem",
  "private_key_path = ~/.ssh/id_ed25519",
  "GOOGLE_APPLICATION_CREDENTIALS=/home/ci/sa.json",
  "OLDPWD=/home/agent/project",
  "PWD=/home/agent/project",
  "tokenizer: cl100k_base",
  "sk-short and skip-this",
  "task-runner --watch",
  "commit 3f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
  "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  '"integrity": "sha512-dPnplMyjJYpVCJDNTjpUA8c/AfoHbWANJJJWKroK50DGGhAB4Oumzk+XinBMyMMAwgOsjU9CB9lUHXDvObMVCg=="',
  "request_id: 7c9e6679-7425-40de-944b-e07fc1f90ae7",
  "src: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "https://user@example.com/path and mailto:someone@example.net",
  "@secretlint/secretlint-rule-preset-recommend and @modelcontextprotocol/sdk",
  "the bearer of bad news",
  "Use --token to pass a token, and --password-file for the password.",
  "secret: sauce",
  "export TOKEN=[REDACTED:secret]",
  "author: Jane Doe <jane@example.net>",
  "oauth: true",
  "signal: controller.signal,",
  "const sig = signature(payload);",
  "Token::new(kind, span)",
  "if (password !== confirm) return;",
  "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519",
  "postgres://localhost:5432/app",
  "redis://cache:6379/0",
  "https://host.example:8443/path?q=1",
  "nothing to see here at all",
];

/** Where the repository's own code and prose are read from for the false-positive count. */
export const NEGATIVE_ROOTS = ["src", "scripts", "tests", "README.md", "deno.json"] as const;

/** Files under the negative roots that hold secrets on purpose (tests of redaction). */
export const NEGATIVE_EXCLUDES: readonly string[] = [
  "tests/agent/redact/redact_test.ts",
  "tests/agent/redact/redact_corpus.ts",
  "tests/agent/redact/redact_corpus_test.ts",
  "tests/fixtures",
];
